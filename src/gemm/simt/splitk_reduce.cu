// Split-K reduction and the C = beta * C path, shared by every SIMT GEMM configuration.
#include "common/dependent_launch.cuh"
#include "common/grid_limits.h"
#include "gemm/simt/gemm_params.h"
#include "gemm/simt/read_scalar.cuh"

namespace aegis::gemm::simt {
namespace {

// Each thread owns four consecutive rows of one column (threadIdx.x and blockIdx.x walk the
// row quads, threadIdx.y and blockIdx.y the columns, grid-stride beyond 65535): 16-byte
// accesses where the layout allows. A block spans several columns where m is short: with
// one column per block, m = 128 left 7/8 of every block idle, and the reduction of 128 x
// 4096 x 4096 took 9.2 us (ncu) against 5.7 us for 4096 x 128 x 4096, the same bytes
// (docs/perf-notes.md v9). Slices are summed in index order, so the result does not depend
// on scheduling; the loop is unrolled so several slices' loads are in flight at once.
__global__ void splitk_reduce_kernel(const GemmParams<float> p, int num_partials) {
  const int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 4;
  wait_for_preceding_kernel();
  if (i >= p.m) return;
  const float alpha = read_scalar(p.alpha);
  const float beta = read_scalar(p.beta);
  const int64_t slice = p.m * p.n;
  const bool whole = i + 3 < p.m;
  const bool vec_partial = whole && p.m % 4 == 0;  // workspace is 16-byte aligned, ld = m
  const bool vec_c = whole && p.c_vec;
  for (int64_t j = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; j < p.n;
       j += static_cast<int64_t>(gridDim.y) * blockDim.y) {
    float out[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (num_partials > 0) {
      const float* src = p.partial + i + j * p.m;
      float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll 4
      for (int s = 0; s < num_partials; ++s) {
        const float* sp = src + s * slice;
        if (vec_partial) {
          const float4 v = *reinterpret_cast<const float4*>(sp);
          sum[0] += v.x;
          sum[1] += v.y;
          sum[2] += v.z;
          sum[3] += v.w;
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q)
            if (i + q < p.m) sum[q] += sp[q];
        }
      }
#pragma unroll
      for (int q = 0; q < 4; ++q) out[q] = alpha * sum[q];
    }
    float* dst = p.C + i + j * p.ldc;
    if (vec_c) {
      float4* dst4 = reinterpret_cast<float4*>(dst);
      if (beta != 0.0f) {  // beta = 0 never reads C
        const float4 old = *dst4;
        out[0] = fmaf(beta, old.x, out[0]);
        out[1] = fmaf(beta, old.y, out[1]);
        out[2] = fmaf(beta, old.z, out[2]);
        out[3] = fmaf(beta, old.w, out[3]);
      }
      *dst4 = make_float4(out[0], out[1], out[2], out[3]);
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (i + q < p.m) dst[q] = beta != 0.0f ? fmaf(beta, dst[q], out[q]) : out[q];
    }
  }
}

}  // namespace

cudaError_t launch_splitk_reduce(const GemmParams<float>& p, int num_partials,
                                 cudaStream_t stream) {
  constexpr int kThreads = 256;
  // Row quads per block: all of m's, rounded up to a warp, up to 256; the rest of the block's
  // threads take further columns.
  const int64_t quads = (p.m + 3) / 4;
  if (quads == 0 || p.n == 0) return cudaSuccess;
  const int tx = quads >= kThreads ? kThreads : static_cast<int>((quads + 31) / 32 * 32);
  const int ty = kThreads / tx;
  const int64_t blocks_x = (quads + tx - 1) / tx;
  const int64_t col_blocks = (p.n + ty - 1) / ty;
  const int64_t blocks_y = col_blocks < kMaxGridDimY ? col_blocks : kMaxGridDimY;
  if (blocks_x > 0x7fffffff) return cudaErrorInvalidConfiguration;

  // A programmatic dependent of the GEMM: it waits for the partial sums in the kernel.
  return launch_dependent(splitk_reduce_kernel,
                          dim3(static_cast<unsigned>(blocks_x), static_cast<unsigned>(blocks_y)),
                          dim3(static_cast<unsigned>(tx), static_cast<unsigned>(ty)), stream, p,
                          num_partials);
}

}  // namespace aegis::gemm::simt
