#include "device_kernels.h"

namespace aegis::bench {
namespace {

// SplitMix64's finalizer: every input bit flips about half of the output bits.
__host__ __device__ uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__device__ float uniform_from_bits(uint64_t bits, float) {
  return float(bits >> 40) * 0x1p-23f - 1.0f;  // 24 random bits: exact in float
}
__device__ double uniform_from_bits(uint64_t bits, double) {
  return double(bits >> 11) * 0x1p-52 - 1.0;  // 53 random bits: exact in double
}
// 16-bit types: a float draw rounded to nearest; the stored value is what every reader sees.
__device__ __half uniform_from_bits(uint64_t bits, __half) {
  return __float2half_rn(uniform_from_bits(bits, float()));
}
__device__ __nv_bfloat16 uniform_from_bits(uint64_t bits, __nv_bfloat16) {
  return __float2bfloat16_rn(uniform_from_bits(bits, float()));
}

template <typename T>
__global__ void fill_uniform_kernel(T* data, int64_t count, uint64_t key) {
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    data[i] = uniform_from_bits(mix64(key + uint64_t(i)), T());
}

template <typename T>
cudaError_t launch_fill(T* data, int64_t count, uint64_t seed, uint64_t stream_id,
                        cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  constexpr int kThreads = 256;
  int64_t blocks = (count + kThreads - 1) / kThreads;
  if (blocks > 65536) blocks = 65536;  // grid-stride loop covers the rest
  uint64_t key = mix64(seed ^ mix64(stream_id));
  fill_uniform_kernel<<<unsigned(blocks), kThreads, 0, stream>>>(data, count, key);
  return cudaGetLastError();
}

}  // namespace

cudaError_t fill_uniform(float* data, int64_t count, uint64_t seed, uint64_t stream_id,
                         cudaStream_t stream) {
  return launch_fill(data, count, seed, stream_id, stream);
}

cudaError_t fill_uniform(double* data, int64_t count, uint64_t seed, uint64_t stream_id,
                         cudaStream_t stream) {
  return launch_fill(data, count, seed, stream_id, stream);
}

cudaError_t fill_uniform(__half* data, int64_t count, uint64_t seed, uint64_t stream_id,
                         cudaStream_t stream) {
  return launch_fill(data, count, seed, stream_id, stream);
}

cudaError_t fill_uniform(__nv_bfloat16* data, int64_t count, uint64_t seed, uint64_t stream_id,
                         cudaStream_t stream) {
  return launch_fill(data, count, seed, stream_id, stream);
}

}  // namespace aegis::bench
