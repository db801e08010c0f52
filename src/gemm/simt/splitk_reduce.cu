// Split-K reduction and the C = beta * C path, shared by every SIMT GEMM configuration.
#include "common/dependent_launch.cuh"
#include "common/grid_limits.h"
#include "gemm/simt/gemm_params.h"
#include "gemm/simt/read_scalar.cuh"

namespace aegis::gemm::simt {
namespace {

// Slices whose loads a thread issues together before adding them.
constexpr int kBatch = 8;

// Each thread owns four consecutive rows of one column (threadIdx.x and blockIdx.x walk the
// row quads, threadIdx.y and blockIdx.y the columns, grid-stride beyond 65535): 16-byte
// accesses where the layout allows. A block spans several columns where m is short: with
// one column per block, m = 128 left 7/8 of every block idle, and the reduction of 128 x
// 4096 x 4096 took 9.2 us (ncu) against 5.7 us for 4096 x 128 x 4096, the same bytes
// (docs/perf-notes.md v9). Slices are summed in index order, so the result does not depend
// on scheduling.
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
      // All kBatch slices' loads are issued before the first add, so one L2 round trip
      // serves the batch. (Adding each slice right after its load, inside the layout test,
      // made every slice wait for its own round trip: 64 x 64 x 256 at split 8 spent 8.2
      // instead of 9.2 us per call; docs/perf-notes.md v14.)
      for (int s0 = 0; s0 < num_partials; s0 += kBatch) {
        float4 v[kBatch];
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
          const float* sp = src + (s0 + b) * slice;
          const bool in = s0 + b < num_partials;
          if (vec_partial) {
            v[b] = in ? *reinterpret_cast<const float4*>(sp) : make_float4(0, 0, 0, 0);
          } else {
            v[b].x = in ? sp[0] : 0.0f;
            v[b].y = in && i + 1 < p.m ? sp[1] : 0.0f;
            v[b].z = in && i + 2 < p.m ? sp[2] : 0.0f;
            v[b].w = in && i + 3 < p.m ? sp[3] : 0.0f;
          }
        }
        // In slice order, so the result does not depend on the batch size either.
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
          if (s0 + b < num_partials) {
            sum[0] += v[b].x;
            sum[1] += v[b].y;
            sum[2] += v[b].z;
            sum[3] += v[b].w;
          }
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
