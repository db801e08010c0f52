// C = beta * C: the alpha = 0 and k = 0 cases of GEMM, shared by every configuration.
#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {
namespace {

// One thread per element; blockIdx.y walks columns (grid-stride beyond 65535).
__global__ void scale_c_kernel(const GemmParams<float> p) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p.m) return;
  const float beta = p.beta.device_ptr ? *p.beta.device_ptr : p.beta.value;
  for (int64_t j = blockIdx.y; j < p.n; j += gridDim.y) {
    float* dst = p.C + i + j * p.ldc;
    *dst = beta != 0.0f ? beta * *dst : 0.0f;  // beta = 0 never reads C
  }
}

}  // namespace

cudaError_t launch_scale_c(const GemmParams<float>& p, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const int64_t blocks_x = (p.m + kThreads - 1) / kThreads;
  const int64_t blocks_y = p.n < 65535 ? p.n : 65535;
  if (blocks_x > 0x7fffffff) return cudaErrorInvalidConfiguration;
  scale_c_kernel<<<dim3(static_cast<unsigned>(blocks_x), static_cast<unsigned>(blocks_y)),
                   kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace aegis::gemm::simt
