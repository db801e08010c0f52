// The operand-sum pass of the fused ABFT (ft_operand_sums.h): one launch for both operands,
// each thread block working on one checksum group of rows (A) or columns (B) and a run of k,
// or (thread level, whose groups interleave) on many groups at once. Memory bound: it reads A
// and B once (O(mk + kn) against the GEMM's O(mnk)).
#include "gemm/simt/ft_operand_sums.h"

#include "common/dependent_launch.cuh"
#include "gemm/simt/read_scalar.cuh"

namespace aegis::gemm::simt {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// Contiguous groups: out[s * ld + k] = sum over i in [s * w, min(len, (s + 1) * w)) of X(i, k)
// (w = shape.width), for s < segs. Interleaved groups (shape.lanes > 1): out[s * ld + k] = sum over the
// elements i < len of group s % shape.groups() of tile s / shape.groups() (ft_groups.h).
// X(i, k) = x[i + k * ldx] when i runs along memory (contig) and x[k + i * ldx] otherwise.
struct SumJob {
  const float* x;
  int64_t ldx;
  int64_t len;   // extent of i: m for A, n for B
  int64_t k;     // extent of k
  bool contig;
  bool vec;      // strided groups: x and ldx allow 16-byte loads (strided_sums<4>)
  FtGroupShape shape;  // the groups; a contiguous group's width is best a multiple of 32
  int64_t segs;  // groups over all tiles
  float* out;
  int64_t blocks_per_seg;  // contiguous groups
  int64_t blocks;
};

struct SumArgs {
  SumJob job[2];
  int64_t ld;
  Scalar<float> alpha;
  int* redo_count;  // the FT kernel's list of tiles to compute again starts empty
};

// Contiguous segments: warp w of the block sums X(segment, k) for kKPerWarp consecutive k, each
// lane reading every 32nd element (128-byte lines), then a shuffle tree per k. Same order
// every run. (One k per warp made 16 K tiny blocks at 4096^2 and ran at half the memory's
// speed, measured.) The loads of up to kRunsInFlight runs of 32 per k are issued together,
// masked at the segment's end: a whole 128-wide segment is 16 loads per lane in flight (a loop
// with a run-time trip count kept about four, and the pass ran at ~2 TB/s).
constexpr int kKPerWarp = 4;
constexpr int kRunsInFlight = 8;
__device__ void contiguous_sums(const SumJob& j, int64_t ld, int64_t block) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t s = block / j.blocks_per_seg;
  const int64_t k0 = ((block % j.blocks_per_seg) * kWarps + warp) * kKPerWarp;
  const int64_t i0 = s * j.shape.width;
  const int64_t i_end = min(j.len, i0 + j.shape.width);
  float sum[kKPerWarp];
#pragma unroll
  for (int q = 0; q < kKPerWarp; ++q) sum[q] = 0.0f;
  for (int64_t base = i0 + lane; base < i_end; base += 32 * kRunsInFlight) {
    float v[kKPerWarp][kRunsInFlight];
#pragma unroll
    for (int q = 0; q < kKPerWarp; ++q) {
      const float* col = j.x + min(k0 + q, j.k - 1) * j.ldx;  // k past the end: masked
#pragma unroll
      for (int r = 0; r < kRunsInFlight; ++r) {
        const int64_t i = base + 32 * r;
        v[q][r] = k0 + q < j.k && i < i_end ? __ldg(col + i) : 0.0f;
      }
    }
#pragma unroll
    for (int q = 0; q < kKPerWarp; ++q)
#pragma unroll
      for (int r = 0; r < kRunsInFlight; ++r) sum[q] += v[q][r];
  }
#pragma unroll
  for (int q = 0; q < kKPerWarp; ++q) {
#pragma unroll
    for (int off = 16; off > 0; off /= 2) sum[q] += __shfl_xor_sync(0xffffffffu, sum[q], off);
    if (lane == 0 && k0 + q < ld) j.out[s * ld + k0 + q] = sum[q];
  }
}

// Strided segments: a block owns 32 kLaneK consecutive k, lane l the kLaneK from kLaneK l
// (kLaneK = 1: 128-byte lines; 4: one 16-byte load each, 512-byte lines and a quarter of the
// load instructions, where x and ldx allow), and warp w adds the segment's elements
// i = i0 + w, i0 + w + kWarps, ...; the warps' partials are then added in warp order (the
// same every run, and the same bits for either kLaneK). Eight warps per k keep enough loads
// in flight: one thread walking the whole segment (up to 256 dependent loads) took twice as
// long (measured). Each warp issues up to kStridedInFlight of its loads together (all 16 of a
// 128-wide segment), masked at the segment's end, as contiguous_sums does.
constexpr int kStridedInFlight = 16;

// The `valid` (at most kLaneK) elements at src, zeros after them.
template <int kLaneK>
__device__ __forceinline__ void load_lane(const float* src, int64_t valid, float (&v)[kLaneK]) {
  if constexpr (kLaneK == 4) {
    if (valid == 4) {
      const float4 q = __ldg(reinterpret_cast<const float4*>(src));
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
      return;
    }
  }
#pragma unroll
  for (int e = 0; e < kLaneK; ++e) v[e] = e < valid ? __ldg(src + e) : 0.0f;
}

template <int kLaneK>
__device__ void strided_sums(const SumJob& j, int64_t ld, int64_t block) {
  __shared__ float partial[kWarps][32][kLaneK];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t s = block / j.blocks_per_seg;
  const int64_t k = (block % j.blocks_per_seg) * 32 * kLaneK + kLaneK * lane;
  float sum[kLaneK] = {};
  if (k < j.k) {
    const int64_t i0 = s * j.shape.width;
    const int64_t i_end = min(j.len, i0 + j.shape.width);
    const int64_t k_valid = min(int64_t{kLaneK}, j.k - k);  // the last k of the matrix
    const float* x = j.x + k;
    for (int64_t base = i0 + warp; base < i_end; base += kWarps * kStridedInFlight) {
      float v[kStridedInFlight][kLaneK];
#pragma unroll
      for (int r = 0; r < kStridedInFlight; ++r) {
        const int64_t i = base + kWarps * r;
        load_lane<kLaneK>(x + i * j.ldx, i < i_end ? k_valid : 0, v[r]);
      }
#pragma unroll
      for (int r = 0; r < kStridedInFlight; ++r)
#pragma unroll
        for (int e = 0; e < kLaneK; ++e) sum[e] += v[r][e];
    }
  }
#pragma unroll
  for (int e = 0; e < kLaneK; ++e) partial[warp][lane][e] = sum[e];
  __syncthreads();
  // ld is a multiple of 4: with kLaneK = 4 the lane's k are all below it when the first is.
  if (warp == 0 && k < ld) {
#pragma unroll
    for (int e = 0; e < kLaneK; ++e) {
      float total = partial[0][lane][e];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) total += partial[w][lane][e];
      j.out[s * ld + k + e] = total;
    }
  }
}

// Interleaved groups (thread level: a group is a thread's rows or columns, runs of 4 spread
// over its warp's part of the tile). One thread per (group, k), its elements added in a fixed
// order. When i runs along memory, consecutive threads take consecutive groups of one k,
// whose runs lie side by side; otherwise consecutive threads take consecutive k of one group
// (128-byte lines either way).
__device__ void interleaved_sums(const SumJob& j, int64_t ld, int64_t block) {
  const int64_t t = block * kThreads + threadIdx.x;
  const int64_t s = j.contig ? t % j.segs : t / ld;
  const int64_t k = j.contig ? t / j.segs : t % ld;
  if (s >= j.segs || k >= ld) return;
  const int groups = j.shape.groups();
  const int64_t i0 = (s / groups) * j.shape.tile + j.shape.base(static_cast<int>(s % groups));
  float sum = 0.0f;
  if (k < j.k) {
    for (int r = 0; r < j.shape.runs(); ++r)
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int64_t i = i0 + r * j.shape.stride() + q;
        if (i < j.len) sum += __ldg(j.contig ? j.x + i + k * j.ldx : j.x + k + i * j.ldx);
      }
  }
  j.out[s * ld + k] = sum;
}

__global__ void __launch_bounds__(kThreads) operand_sums_kernel(const __grid_constant__ SumArgs a) {
  // The reference GEMMs after this pass are dependent launches that wait for it at their
  // start (ft_reference_tf32.h): they may launch now.
  allow_dependent_launch();
  if (blockIdx.x == 0 && threadIdx.x == 0) *a.redo_count = 0;
  if (read_scalar(a.alpha) == 0.0f) return;  // the GEMM reads neither operand
  int64_t block = blockIdx.x;
  const int which = block < a.job[0].blocks ? 0 : 1;
  if (which == 1) block -= a.job[0].blocks;
  const SumJob& j = a.job[which];
  if (!j.shape.contiguous())
    interleaved_sums(j, a.ld, block);
  else if (j.contig)
    contiguous_sums(j, a.ld, block);
  else if (j.vec)
    strided_sums<4>(j, a.ld, block);
  else
    strided_sums<1>(j, a.ld, block);
}

// tile: MTB (A) or NTB (B); the groups of every tile that starts below len.
// vec: x and ldx allow 16-byte loads.
SumJob make_job(const float* x, int64_t ldx, int64_t len, int64_t k, const FtGroupShape& shape,
                bool contig, bool vec, float* out, int64_t ld) {
  SumJob j{};
  j.x = x;
  j.ldx = ldx;
  j.len = len;
  j.k = k;
  j.contig = contig;
  j.vec = vec && !contig;
  j.shape = shape;
  j.segs = (len + shape.tile - 1) / shape.tile * shape.groups();
  j.out = out;
  if (!shape.contiguous()) {
    j.blocks = (j.segs * ld + kThreads - 1) / kThreads;
  } else {
    j.blocks_per_seg = contig  ? (ld + kWarps * kKPerWarp - 1) / (kWarps * kKPerWarp)
                       : j.vec ? (ld + 4 * 32 - 1) / (4 * 32)
                               : (ld + 31) / 32;
    j.blocks = j.blocks_per_seg * j.segs;
  }
  return j;
}

}  // namespace

cudaError_t launch_ft_operand_sums(const GemmParams<float>& p, bool trans_a, bool trans_b,
                                   const FtGroupShape& rows, const FtGroupShape& cols,
                                   float* a_sums, float* b_sums, int64_t ld, int* redo_count,
                                   cudaStream_t stream) {
  SumArgs a{};
  a.redo_count = redo_count;
  // op(A)(i, k) is A[i + k lda] (N: i along memory) or A[k + i lda] (T).
  a.job[0] = make_job(p.A, p.lda, p.m, p.k, rows, !trans_a, p.a_vec, a_sums, ld);
  if (!a_sums) a.job[0].blocks = 0;
  // op(B)(k, j) is B[k + j ldb] (N: k along memory) or B[j + k ldb] (T: j along memory).
  a.job[1] = make_job(p.B, p.ldb, p.n, p.k, cols, trans_b, p.b_vec, b_sums, ld);
  a.ld = ld;
  a.alpha = p.alpha;
  const int64_t blocks = a.job[0].blocks + a.job[1].blocks;
  if (blocks == 0) return cudaSuccess;
  if (blocks > INT32_MAX) return cudaErrorInvalidConfiguration;
  operand_sums_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace aegis::gemm::simt
