// The operand-sum pass of the fused block-level ABFT (ft_operand_sums.h): one launch for
// both operands, each thread block working on one tile row (A) or tile column (B) and a run
// of k. Memory bound: it reads A and B once (O(mk + kn) against the GEMM's O(mnk)).
#include "gemm/simt/ft_operand_sums.h"

#include "gemm/simt/read_scalar.cuh"

namespace aegis::gemm::simt {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// out[s * ld + k] = sum over i in [s * seg, min(len, (s + 1) * seg)) of X(i, k), where
// X(i, k) = x[i + k * ldx] when i runs along memory (contig) and x[k + i * ldx] otherwise.
struct SumJob {
  const float* x;
  int64_t ldx;
  int64_t len;   // extent of i: m for A, n for B
  int64_t k;     // extent of k
  int seg;       // tile rows (A) or columns (B), a multiple of 32
  bool contig;
  float* out;
  int64_t blocks_per_seg;
  int64_t blocks;
};

struct SumArgs {
  SumJob job[2];
  int64_t ld;
  Scalar<float> alpha;
};

// Contiguous segments: warp w of the block sums X(seg, k) for one k, each lane reading every
// 32nd element (128-byte lines), then a shuffle tree. Same order every run.
__device__ void contiguous_sums(const SumJob& j, int64_t ld, int64_t block) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t s = block / j.blocks_per_seg;
  const int64_t k = (block % j.blocks_per_seg) * kWarps + warp;
  if (k >= ld) return;
  float sum = 0.0f;
  if (k < j.k) {
    const int64_t i0 = s * j.seg;
    const int64_t i_end = min(j.len, i0 + j.seg);
    const float* col = j.x + k * j.ldx;
#pragma unroll 8
    for (int64_t i = i0 + lane; i < i_end; i += 32) sum += __ldg(col + i);
#pragma unroll
    for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  }
  if (lane == 0) j.out[s * ld + k] = sum;
}

// Strided segments: thread t of the block owns one k and adds the segment's elements in
// order; the threads of a warp read 32 consecutive k (128-byte lines).
__device__ void strided_sums(const SumJob& j, int64_t ld, int64_t block) {
  const int64_t s = block / j.blocks_per_seg;
  const int64_t k = (block % j.blocks_per_seg) * kThreads + threadIdx.x;
  if (k >= ld) return;
  float sum = 0.0f;
  if (k < j.k) {
    const int64_t i0 = s * j.seg;
    const int64_t i_end = min(j.len, i0 + j.seg);
    const float* x = j.x + k;
#pragma unroll 8
    for (int64_t i = i0; i < i_end; ++i) sum += __ldg(x + i * j.ldx);
  }
  j.out[s * ld + k] = sum;
}

__global__ void __launch_bounds__(kThreads) operand_sums_kernel(const __grid_constant__ SumArgs a) {
  if (read_scalar(a.alpha) == 0.0f) return;  // the GEMM reads neither operand
  int64_t block = blockIdx.x;
  const int which = block < a.job[0].blocks ? 0 : 1;
  if (which == 1) block -= a.job[0].blocks;
  const SumJob& j = a.job[which];
  if (j.contig)
    contiguous_sums(j, a.ld, block);
  else
    strided_sums(j, a.ld, block);
}

size_t round_up_256(size_t bytes) { return (bytes + 255) / 256 * 256; }

SumJob make_job(const float* x, int64_t ldx, int64_t len, int64_t k, int seg, bool contig,
                float* out, int64_t ld) {
  SumJob j{x, ldx, len, k, seg, contig, out, 0, 0};
  j.blocks_per_seg = contig ? (ld + kWarps - 1) / kWarps : (ld + kThreads - 1) / kThreads;
  j.blocks = j.blocks_per_seg * ((len + seg - 1) / seg);
  return j;
}

}  // namespace

size_t ft_operand_sums_bytes(int64_t m, int64_t n, int64_t k, int tile_m, int tile_n) {
  const int64_t ld = ft_sums_ld(k);
  const int64_t tiles_m = (m + tile_m - 1) / tile_m, tiles_n = (n + tile_n - 1) / tile_n;
  return round_up_256(sizeof(float) * tiles_m * ld) + round_up_256(sizeof(float) * tiles_n * ld);
}

cudaError_t launch_ft_operand_sums(GemmParams<float>& p, bool trans_a, bool trans_b,
                                   int tile_m, int tile_n, void* sums, cudaStream_t stream) {
  const int64_t ld = ft_sums_ld(p.k);
  const int64_t tiles_m = (p.m + tile_m - 1) / tile_m;
  float* a_sums = static_cast<float*>(sums);
  float* b_sums = reinterpret_cast<float*>(static_cast<char*>(sums) +
                                           round_up_256(sizeof(float) * tiles_m * ld));
  SumArgs a{};
  // op(A)(i, k) is A[i + k lda] (N: i along memory) or A[k + i lda] (T).
  a.job[0] = make_job(p.A, p.lda, p.m, p.k, tile_m, !trans_a, a_sums, ld);
  // op(B)(k, j) is B[k + j ldb] (N: k along memory) or B[j + k ldb] (T: j along memory).
  a.job[1] = make_job(p.B, p.ldb, p.n, p.k, tile_n, trans_b, b_sums, ld);
  a.ld = ld;
  a.alpha = p.alpha;
  p.ft.a_sums = a_sums;
  p.ft.b_sums = b_sums;
  p.ft.sums_ld = ld;
  const int64_t blocks = a.job[0].blocks + a.job[1].blocks;
  if (blocks == 0) return cudaSuccess;
  if (blocks > INT32_MAX) return cudaErrorInvalidConfiguration;
  operand_sums_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace aegis::gemm::simt
