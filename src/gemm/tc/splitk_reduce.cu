#include "gemm/tc/splitk_reduce.h"
#include "gemm/tc/tc_scalar.cuh"

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace aegis::gemm::tc {

namespace {

// One thread per element of C, rows fastest so the partial sums and C are read coalesced.
template <typename Out>
__global__ void splitk_reduce_kernel(const TcGemmParams p) {
  const float alpha = read_scalar(p.alpha);
  const float beta = read_scalar(p.beta);
  const int64_t mn = p.m * p.n;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < mn;
       idx += stride) {
    float sum = 0.0f;
    for (int s = 0; s < p.split_k; ++s) sum += p.partial[s * mn + idx];
    const int64_t i = idx % p.m, j = idx / p.m;
    Out* c = static_cast<Out*>(p.C) + i + j * p.ldc;
    float out = alpha == 0.0f ? 0.0f : alpha * sum;
    if (beta != 0.0f) out += beta * static_cast<float>(*c);
    *c = static_cast<Out>(out);
  }
}

}  // namespace

cudaError_t launch_splitk_reduce(const TcGemmParams& p, cudaStream_t stream) {
  const int64_t mn = p.m * p.n;
  if (mn == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const int64_t blocks = (mn + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 65535 * 16 ? blocks : 65535 * 16);
  switch (p.c_type) {
    case DType::F32: splitk_reduce_kernel<float><<<grid, kThreads, 0, stream>>>(p); break;
    case DType::BF16: splitk_reduce_kernel<__nv_bfloat16><<<grid, kThreads, 0, stream>>>(p); break;
    default: splitk_reduce_kernel<__half><<<grid, kThreads, 0, stream>>>(p); break;
  }
  return cudaGetLastError();
}

}  // namespace aegis::gemm::tc
