// Device-side helpers shared by the GPU suite's kernel files: launch checks, one-value
// device scratch, grid-stride loops, a hash for reproducible random data, and block-wide
// reductions. Everything is internal to each test translation unit that includes it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace aegis_test {
namespace {

constexpr int kThreads = 256;
constexpr uint64_t kNone = ~uint64_t(0);

void throw_on_error(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("test helper ") + what + ": CUDA error " +
                             cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

void launched(const char* what) { throw_on_error(cudaGetLastError(), what); }
void synced(const char* what) {
  launched(what);
  throw_on_error(cudaDeviceSynchronize(), what);
}

// One T in device memory, set at construction and read back with get().
template <typename T>
struct DeviceScratch {
  T* p = nullptr;
  explicit DeviceScratch(const T& init) {
    throw_on_error(cudaMalloc(&p, sizeof(T)), "cudaMalloc");
    throw_on_error(cudaMemcpy(p, &init, sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DeviceScratch() { cudaFree(p); }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
  T get() const {
    T v;
    throw_on_error(cudaMemcpy(&v, p, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return v;
  }
};

// Grid for a grid-stride loop over `count` items: enough blocks to fill a large GPU.
unsigned grid_for(uint64_t count) {
  const uint64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 8192 ? (blocks > 0 ? blocks : 1) : 8192);
}

__device__ __forceinline__ uint64_t grid_start() {
  return static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ uint64_t grid_stride() {
  return static_cast<uint64_t>(gridDim.x) * blockDim.x;
}

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Block-wide reductions; every thread of the block gets the result.
__device__ uint64_t block_sum(uint64_t v) {
  __shared__ uint64_t scratch[32];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  uint64_t total = 0;
  for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) total += scratch[w];
  return total;
}

__device__ uint64_t block_min(uint64_t v) {
  __shared__ uint64_t scratch[32];
  for (int o = 16; o > 0; o /= 2) {
    const uint64_t other = __shfl_down_sync(0xffffffffu, v, o);
    v = other < v ? other : v;
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  uint64_t best = kNone;
  for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w)
    best = scratch[w] < best ? scratch[w] : best;
  return best;
}

__device__ double block_max(double v) {
  __shared__ double scratch[32];
  for (int o = 16; o > 0; o /= 2) v = fmax(v, __shfl_down_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  double best = 0.0;
  for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) best = fmax(best, scratch[w]);
  return best;
}

}  // namespace
}  // namespace aegis_test
