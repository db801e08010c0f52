// Split-K reduction and the C = beta * C path, shared by every SIMT GEMM configuration.
#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {
namespace {

__device__ __forceinline__ float read_scalar_value(const Scalar<float>& s) {
  return s.device_ptr ? *s.device_ptr : s.value;
}

// One thread per element; blockIdx.y walks columns (grid-stride beyond 65535). Slices are
// summed in index order, so the result does not depend on scheduling.
__global__ void splitk_reduce_kernel(const GemmParams<float> p, int num_partials) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p.m) return;
  const float alpha = read_scalar_value(p.alpha);
  const float beta = read_scalar_value(p.beta);
  const int64_t slice = p.m * p.n;
  for (int64_t j = blockIdx.y; j < p.n; j += gridDim.y) {
    float out = 0.0f;
    if (num_partials > 0) {
      const float* src = p.partial + i + j * p.m;
      float sum = 0.0f;
      for (int s = 0; s < num_partials; ++s) sum += src[s * slice];
      out = alpha * sum;
    }
    float* dst = p.C + i + j * p.ldc;
    *dst = beta != 0.0f ? fmaf(beta, *dst, out) : out;
  }
}

}  // namespace

cudaError_t launch_splitk_reduce(const GemmParams<float>& p, int num_partials,
                                 cudaStream_t stream) {
  constexpr int kThreads = 256;
  const int64_t blocks_x = (p.m + kThreads - 1) / kThreads;
  const int64_t blocks_y = p.n < 65535 ? p.n : 65535;
  if (blocks_x > 0x7fffffff) return cudaErrorInvalidConfiguration;
  splitk_reduce_kernel<<<dim3(static_cast<unsigned>(blocks_x), static_cast<unsigned>(blocks_y)),
                         kThreads, 0, stream>>>(p, num_partials);
  return cudaGetLastError();
}

}  // namespace aegis::gemm::simt
