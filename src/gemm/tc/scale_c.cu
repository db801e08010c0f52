// C = beta * C over the m x n matrix C (column-major, ldc) for the tensor-core GEMM's alpha = 0
// and k = 0 calls, where there is no product to form. beta is applied in FP32 with one
// rounding to C's type. beta = 0 writes zeros without reading C (NaN/Inf already there must
// not survive); beta = 1 leaves C untouched without a pass over memory.
#include "gemm/tc/scale_c.h"
#include "gemm/tc/tc_scalar.cuh"
#include "common/grid_limits.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace aegis::gemm::tc {
namespace {

constexpr int kThreads = 256;
// Enough blocks to fill any current GPU many times over; larger matrices are grid-strided.
constexpr int64_t kMaxBlocks = 16384;

__device__ __forceinline__ float load_as_float(const float* p) { return *p; }
__device__ __forceinline__ float load_as_float(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float load_as_float(const __nv_bfloat16* p) {
  return __bfloat162float(*p);
}
__device__ __forceinline__ void store_from_float(float* p, float v) { *p = v; }
__device__ __forceinline__ void store_from_float(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store_from_float(__nv_bfloat16* p, float v) {
  *p = __float2bfloat16_rn(v);
}

// Threads of a block walk one column's rows (coalesced); blocks stride over rows in x and
// over columns in y.
template <typename TC>
__global__ void __launch_bounds__(kThreads)
    scale_c_kernel(TC* C, int64_t m, int64_t n, int64_t ldc, TcScalar beta_scalar) {
  const float beta = read_scalar(beta_scalar);
  if (beta == 1.0f) return;
  const int64_t row_begin = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t row_stride = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t col = blockIdx.y; col < n; col += gridDim.y) {
    TC* c_col = C + col * ldc;
    for (int64_t row = row_begin; row < m; row += row_stride) {
      const float out = beta == 0.0f ? 0.0f : beta * load_as_float(c_col + row);
      store_from_float(c_col + row, out);
    }
  }
}

template <typename TC>
cudaError_t launch_typed(const TcGemmParams& p, cudaStream_t stream) {
  const int64_t row_blocks = (p.m + kThreads - 1) / kThreads;
  const int64_t grid_x = row_blocks < kMaxBlocks ? row_blocks : kMaxBlocks;
  const int64_t y_budget = kMaxBlocks / grid_x;  // >= 1
  int64_t grid_y = p.n < y_budget ? p.n : y_budget;
  if (grid_y > kMaxGridDimY) grid_y = kMaxGridDimY;
  const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y));
  scale_c_kernel<TC><<<grid, kThreads, 0, stream>>>(static_cast<TC*>(p.C), p.m, p.n, p.ldc,
                                                    p.beta);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_scale_c(const TcGemmParams& p, cudaStream_t stream) {
  if (p.m <= 0 || p.n <= 0) return cudaSuccess;
  switch (p.c_type) {
    case DType::F32: return launch_typed<float>(p, stream);
    case DType::F16: return launch_typed<__half>(p, stream);
    case DType::BF16: return launch_typed<__nv_bfloat16>(p, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace aegis::gemm::tc
