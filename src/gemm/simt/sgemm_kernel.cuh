// SIMT GEMM kernel template: C = alpha * op(A) * op(B) + beta * C on CUDA cores.
//
// Structure (Wu et al., ICS'23, after the classic register-blocked SGEMM):
//   global --(float4 loads into registers, one k slice ahead)--> registers
//   registers --(stored into the idle half of a double-buffered stage)--> shared memory
//   shared memory --(float4 fragment loads, one or two register buffers)--> FMA
// One __syncthreads per k slice. Every shape is handled: partial tiles zero-fill their
// loads and guard their stores; unaligned pointers or leading dimensions take scalar loads.
// The fault-tolerant variant (sgemm_ft_kernel.cuh) shares the loaders and helpers here; its
// main loop is its own copy (accumulate_k_range) so that this one compiles exactly as
// measured: routing this kernel through that function changed its register allocation and
// cost 2 % on the squares (measured, docs/perf-notes.md FT-5).
#pragma once

#include <cstdint>
#include <type_traits>

#include "gemm/simt/gemm_config.h"
#include "gemm/simt/gemm_params.h"
#include "gemm/simt/read_scalar.cuh"

namespace aegis::gemm::simt {

// Loads one operand tile (ROWS x KTB of op(X), where ROWS runs along M for A and N for B)
// from global memory into registers and stores it to shared memory as Xs[k][row].
//
// kContigRows: consecutive rows are adjacent in memory (A not transposed, B transposed);
// the float4 then runs along rows and is stored as is. Otherwise consecutive k are adjacent
// (A transposed, B not transposed); the float4 runs along k and is stored transposed as
// four scalars. A warp's transposing stores cover 16 rows at two k offsets 4 apart; the
// padded row length (ROWS + 4 floats) puts those halves 16 banks apart.
//
// A thread's vectors sit kLineStep lines apart ("line" = k offset when kContigRows, row
// offset otherwise), so one pointer and one stride describe them all: the state is kept
// small because the 8x8 fragment already needs most of the 128 registers per thread.
template <int ROWS, int KTB, int THREADS, int LDS, bool kContigRows>
struct TileLoader {
  static constexpr int kVecs = ROWS * KTB / 4 / THREADS;  // float4 per thread per slice
  static constexpr int kVecsPerLine = kContigRows ? ROWS / 4 : KTB / 4;
  static constexpr int kLineStep = THREADS / kVecsPerLine;
  static_assert(THREADS % kVecsPerLine == 0, "a thread's vectors must share one position");

  const float* ptr;   // vector 0 of the current slice
  int64_t line_step;  // elements between consecutive vectors of this thread
  int line0, pos;     // line and position (in float4 units) of vector 0
  float4 regs[kVecs];

  __device__ __forceinline__ int row_of(int v) const {
    return kContigRows ? pos * 4 : line0 + v * kLineStep;
  }
  __device__ __forceinline__ int k_of(int v) const {
    return kContigRows ? line0 + v * kLineStep : pos * 4;
  }

  __device__ __forceinline__ TileLoader(const float* X, int64_t ld, int64_t row0, int64_t k0,
                                        int tid)
      : line_step(kLineStep * ld), line0(tid / kVecsPerLine), pos(tid % kVecsPerLine) {
    ptr = kContigRows ? X + (row0 + pos * 4) + (k0 + line0) * ld
                      : X + (k0 + pos * 4) + (row0 + line0) * ld;
  }

  // Loads the current slice into registers; elements at tile row >= rows_left or slice
  // k >= k_left read as zero.
  __device__ __forceinline__ void load(int rows_left, int k_left, bool vec) {
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const float* src = ptr + v * line_step;
      const int r = row_of(v), k = k_of(v);
      const bool full = kContigRows ? (k < k_left && r + 3 < rows_left)
                                    : (r < rows_left && k + 3 < k_left);
      if (vec && full) {
        regs[v] = __ldg(reinterpret_cast<const float4*>(src));
      } else {
        float e[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool in = kContigRows ? (k < k_left && r + q < rows_left)
                                      : (r < rows_left && k + q < k_left);
          e[q] = in ? __ldg(src + q) : 0.0f;
        }
        regs[v] = make_float4(e[0], e[1], e[2], e[3]);
      }
    }
  }

  // Loads the current slice with no bounds checks: only for slices known to lie inside
  // the operand with 16-byte aligned vectors (interior tiles, the common case), where the
  // checks would cost issue slots the FFMAs need.
  __device__ __forceinline__ void load_interior() {
#pragma unroll
    for (int v = 0; v < kVecs; ++v)
      regs[v] = __ldg(reinterpret_cast<const float4*>(ptr + v * line_step));
  }

  // Moves to the next slice.
  __device__ __forceinline__ void advance(int64_t ld) { ptr += kContigRows ? KTB * ld : KTB; }


  __device__ __forceinline__ void store(float* Xs /* (KTB, LDS) */) const {
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const int r = row_of(v), k = k_of(v);
      if (kContigRows) {
        *reinterpret_cast<float4*>(Xs + k * LDS + r) = regs[v];
      } else {
        Xs[(k + 0) * LDS + r] = regs[v].x;
        Xs[(k + 1) * LDS + r] = regs[v].y;
        Xs[(k + 2) * LDS + r] = regs[v].z;
        Xs[(k + 3) * LDS + r] = regs[v].w;
      }
    }
  }
};

// min(x, INT32_MAX) as int: tile-relative bounds fit in 32 bits.
__device__ __forceinline__ int clamp_to_int(int64_t x) {
  return x < INT32_MAX ? static_cast<int>(x) : INT32_MAX;
}

// Maps a linear block index (blockIdx.x) to (tile_m, tile_n), walking groups of kGroupM tile
// rows column by column so that blocks resident together share A and B panels in L2.
__device__ __forceinline__ void tile_coords(int tile, int tiles_m, int tiles_n, int& tm, int& tn) {
  constexpr int kGroupM = 8;
  const int per_group = kGroupM * tiles_n;
  const int group = tile / per_group;
  const int first_m = group * kGroupM;
  const int group_m = min(tiles_m - first_m, kGroupM);
  const int in_group = tile - group * per_group;
  tm = first_m + in_group % group_m;
  tn = in_group / group_m;
}

// The order of a thread's FFMAs within one k step. It decides how often an FFMA finds one of
// its operands in the operand reuse cache (the previous FFMA's operand in the same slot) and
// so how many registers each FFMA reads from the two register banks (docs/perf-notes.md v12).
enum class FmaOrder {
  kBlocks,             // 4 x 4 blocks, row by row within a block
  kBlockRows,          // 4 x 4 blocks, row by row, columns alternating direction
  kBlockColumns,       // 4 x 4 blocks along N first, column by column, rows alternating
  kColumnsSerpentine,  // the whole fragment column by column, rows alternating direction
};

// The F float4s of a fragment as 4 F floats, in order.
template <int F>
__device__ __forceinline__ void unpack_fragments(const float4 (&frag)[F], float (&out)[F * 4]) {
#pragma unroll
  for (int f = 0; f < F; ++f) {
    out[f * 4 + 0] = frag[f].x;
    out[f * 4 + 1] = frag[f].y;
    out[f * 4 + 2] = frag[f].z;
    out[f * 4 + 3] = frag[f].w;
  }
}

// acc += (one k step of) the outer product of this thread's A and B fragments: FM x FN
// blocks of 4 x 4, each float4 holding 4 rows of op(A) or 4 columns of op(B).
template <FmaOrder kOrder = FmaOrder::kBlocks, int FM, int FN>
__device__ __forceinline__ void fma_fragments(float (&acc)[FM * 4][FN * 4],
                                              const float4 (&frag_a)[FM],
                                              const float4 (&frag_b)[FN]) {
  float a[FM * 4], b[FN * 4];
  unpack_fragments(frag_a, a);
  unpack_fragments(frag_b, b);
  if constexpr (kOrder == FmaOrder::kBlocks) {
#pragma unroll
    for (int fi = 0; fi < FM; ++fi)
#pragma unroll
      for (int fj = 0; fj < FN; ++fj)
#pragma unroll
        for (int i = fi * 4; i < fi * 4 + 4; ++i)
#pragma unroll
          for (int j = fj * 4; j < fj * 4 + 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  } else if constexpr (kOrder == FmaOrder::kBlockRows || kOrder == FmaOrder::kBlockColumns) {
    // Block by block (row-major blocks for kBlockRows, along N first for kBlockColumns); in a
    // block, line u (a row, or a column) by line, alternating direction along each line.
    constexpr bool kRows = kOrder == FmaOrder::kBlockRows;
#pragma unroll
    for (int outer = 0; outer < (kRows ? FM : FN); ++outer)
#pragma unroll
      for (int inner = 0; inner < (kRows ? FN : FM); ++inner)
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
          for (int v = 0; v < 4; ++v) {
            const int w = u % 2 == 0 ? v : 3 - v;
            const int i = kRows ? outer * 4 + u : inner * 4 + w;
            const int j = kRows ? inner * 4 + w : outer * 4 + u;
            acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
          }
  } else {
    // Within a column b[j] can stay in its operand slot; at a column's end a[i] can.
#pragma unroll
    for (int j = 0; j < FN * 4; ++j)
#pragma unroll
      for (int ii = 0; ii < FM * 4; ++ii) {
        const int i = j % 2 == 0 ? ii : FM * 4 - 1 - ii;
        acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
  }
}

// Writes this thread's fragment of the finished tile at (m0, n0): with split-K, the unscaled
// partial sums to the slice's workspace panel; otherwise alpha * acc + beta * C into C
// (beta = 0 never reads C: NaN already in C must not survive). frag_row0/col0: the first
// row / column of the thread's 4-wide fragment blocks, relative to the tile.
template <class Cfg>
__device__ __forceinline__ void store_tile_fragment(const GemmParams<float>& p,
                                                    const float (&acc)[Cfg::kMT][Cfg::kNT],
                                                    int64_t m0, int64_t n0, int frag_row0,
                                                    int frag_col0, float alpha) {
  constexpr int kFragM = Cfg::kMT / 4, kFragN = Cfg::kNT / 4;
  constexpr int kFragRowStride = Cfg::kMW / kFragM, kFragColStride = Cfg::kNW / kFragN;
  // Tile-relative coordinates in 32 bits; one 64-bit base pointer per tile.
  const int rows_left = clamp_to_int(p.m - m0), cols_left = clamp_to_int(p.n - n0);
  // D = scale * acc + beta * D over this thread's fragment of the column-major tile at D
  // (leading dimension ld), skipping elements outside the matrix; beta = 0 never reads D.
  // Columns of four rows go out as one float4 where `vec` allows and the rows exist.
  auto store_fragment = [&](float* D, int64_t ld, bool vec, float scale, float beta) {
    const bool read_d = beta != 0.0f;
#pragma unroll
    for (int fi = 0; fi < kFragM; ++fi) {
      const int r = frag_row0 + fi * kFragRowStride;
#pragma unroll
      for (int fj = 0; fj < kFragN; ++fj) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int c = frag_col0 + fj * kFragColStride + j;
          if (c >= cols_left) continue;
          float* dst = D + r + c * ld;
          float out[4];
#pragma unroll
          for (int i = 0; i < 4; ++i) out[i] = scale * acc[fi * 4 + i][fj * 4 + j];
          if (vec && r + 3 < rows_left) {
            float4* dst4 = reinterpret_cast<float4*>(dst);
            if (read_d) {
              const float4 old = *dst4;
              out[0] = fmaf(beta, old.x, out[0]);
              out[1] = fmaf(beta, old.y, out[1]);
              out[2] = fmaf(beta, old.z, out[2]);
              out[3] = fmaf(beta, old.w, out[3]);
            }
            *dst4 = make_float4(out[0], out[1], out[2], out[3]);
          } else {
#pragma unroll
            for (int i = 0; i < 4; ++i)
              if (r + i < rows_left) dst[i] = read_d ? fmaf(beta, dst[i], out[i]) : out[i];
          }
        }
      }
    }
  };

  if (p.split_k > 1) {
    // Unscaled partial sums (scale 1 is exact); the reduction applies alpha and beta in a
    // fixed slice order. The workspace is 16-byte aligned with ld = m.
    float* P = p.partial + static_cast<int64_t>(blockIdx.y) * p.m * p.n + m0 + n0 * p.m;
    store_fragment(P, p.m, p.m % 4 == 0, 1.0f, 0.0f);
  } else {
    store_fragment(p.C + m0 + n0 * p.ldc, p.ldc, p.c_vec, alpha, read_scalar(p.beta));
  }
}

// Whether the interior kernel peels its last slice off the K loop, which then has no branch
// at all, or keeps the test for a next slice. ptxas places the accumulators in other
// register banks either way. For the 128x128x16 t8x8 f1 tiles, FFMAs per slice of 1024 that
// read two uncached operands from one bank (scripts/sass-bank-conflicts, pairs), peeled /
// kept, in the 4 x 4 block order: NN 293 / 594, NT 282 / 241, TN 786 / 234, TT 290 / 234 (the
// general kernel: 236, 235, 618, 268). Measured on the H200 (docs/perf-notes.md v11): TN kept
// ran 5 % faster than TN peeled, NT and TT peeled 0.5 % faster than kept.
template <bool kTransA, bool kTransB>
constexpr bool kPeelLastSlice = !(kTransA && !kTransB);

// The FFMA order of the 128x128x16 t8x8 f1 tiles (dispatch's for the medium to huge, tall and
// wide classes) per transpose pair and kernel, each the fastest measured on the H200
// (docs/perf-notes.md v12): against 4 x 4 blocks, NN interior +1.6-3.8 %, NN general
// +0.5-1.3 %, NT +1.0-4.5 %, TN +0.4-2.4 %, TT +1.0-3.0 %. The whole fragment column by column
// made TN and TT 1.5-4.7 % slower and NN general 1.6-2.2 %; row by row was slower than one of
// these in every pair. Other thread tiles keep the blocks (not measured).
template <bool kTransA, bool kTransB, bool kInterior>
constexpr FmaOrder fma_order_8x8() {
  if (!kTransA && !kTransB)
    return kInterior ? FmaOrder::kColumnsSerpentine : FmaOrder::kBlockColumns;
  if (!kTransA) return FmaOrder::kColumnsSerpentine;
  if (!kTransB) return FmaOrder::kBlockColumns;
  return kInterior ? FmaOrder::kBlockRows : FmaOrder::kBlockColumns;
}
template <class Cfg, bool kTransA, bool kTransB, bool kInterior>
constexpr FmaOrder kPlainFmaOrder = Cfg::kMT == 8 && Cfg::kNT == 8 && Cfg::kFragBuffers == 1
                                        ? fma_order_8x8<kTransA, kTransB, kInterior>()
                                        : FmaOrder::kBlocks;

// kInterior: the launcher guarantees that every tile is whole, every K range a whole number
// of slices and both operands 16-byte aligned (sgemm_all_interior), so the loop carries no
// bounds checks (and, where kPeelLastSlice, no branch).
template <class Cfg, bool kTransA, bool kTransB, bool kInterior = false>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocksPerSM)
    sgemm_simt_kernel(const GemmParams<float> p) {
  constexpr int MTB = Cfg::kMTB, NTB = Cfg::kNTB, KTB = Cfg::kKTB;
  constexpr int MW = Cfg::kMW, NW = Cfg::kNW, MT = Cfg::kMT, NT = Cfg::kNT;
  constexpr int LDA_S = Cfg::kLdAs, LDB_S = Cfg::kLdBs;
  constexpr int kFragM = MT / 4, kFragN = NT / 4;  // 4x4 blocks per thread along M, N

  extern __shared__ __align__(16) float smem[];
  float* As = smem;                     // (2 stages, KTB, LDA_S): op(A) slice, k-major
  float* Bs = smem + 2 * KTB * LDA_S;   // (2 stages, KTB, LDB_S): op(B) slice, k-major

  int tm, tn;
  tile_coords(blockIdx.x, p.tiles_m, p.tiles_n, tm, tn);
  const int64_t m0 = static_cast<int64_t>(tm) * MTB;
  const int64_t n0 = static_cast<int64_t>(tn) * NTB;
  const int64_t k_begin = static_cast<int64_t>(blockIdx.y) * p.k_per_split;
  const int64_t k_end = min(p.k, k_begin + p.k_per_split);

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp % Cfg::kWarpsM, warp_n = warp / Cfg::kWarpsM;
  const int lane_m = lane % Cfg::kLanesM, lane_n = lane / Cfg::kLanesM;
  // First row / column of each 4-wide fragment block of this thread, relative to the tile.
  // Blocks are MW / kFragM apart, so the lanes of a warp read adjacent float4s.
  const int frag_row0 = warp_m * MW + lane_m * 4;
  const int frag_col0 = warp_n * NW + lane_n * 4;
  constexpr int kFragRowStride = MW / kFragM, kFragColStride = NW / kFragN;

  const float alpha = read_scalar(p.alpha);
  float acc[MT][NT];  // (MT, NT) this thread's C fragment
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j) acc[i][j] = 0.0f;

  // alpha = 0 (possible here only in device pointer mode) must not read A or B.
  const int64_t num_k_tiles = (alpha == 0.0f || k_end <= k_begin)
                                  ? 0
                                  : (k_end - k_begin + KTB - 1) / KTB;
  if (num_k_tiles > 0) {
    // op(A)(i, kk) lives at A[i + kk*lda] (N) or A[kk + i*lda] (T).
    TileLoader<MTB, KTB, Cfg::kThreads, LDA_S, !kTransA> a_loader(p.A, p.lda, m0, k_begin, tid);
    // op(B)(kk, j) lives at B[kk + j*ldb] (N) or B[j + kk*ldb] (T).
    TileLoader<NTB, KTB, Cfg::kThreads, LDB_S, kTransB> b_loader(p.B, p.ldb, n0, k_begin, tid);

    const int rows_left_a = clamp_to_int(p.m - m0), rows_left_b = clamp_to_int(p.n - n0);
    // Slices of an interior tile that are whole in k load without bounds checks.
    const bool interior = p.a_vec && p.b_vec && rows_left_a >= MTB && rows_left_b >= NTB;
    const int64_t whole_k_tiles = (k_end - k_begin) / KTB;
    auto load_slice = [&](int64_t kt) {
      if (kInterior || (interior && kt < whole_k_tiles)) {
        a_loader.load_interior();
        b_loader.load_interior();
      } else {
        const int k_left = clamp_to_int(k_end - (k_begin + kt * KTB));
        a_loader.load(rows_left_a, k_left, p.a_vec);
        b_loader.load(rows_left_b, k_left, p.b_vec);
      }
    };
    load_slice(0);
    a_loader.store(As);
    b_loader.store(Bs);
    __syncthreads();

    constexpr int kBufs = Cfg::kFragBuffers;
    float4 frag_a[kBufs][kFragM];  // (buffer, block): 4 rows of op(A) per float4
    float4 frag_b[kBufs][kFragN];  // (buffer, block): 4 columns of op(B) per float4
    if constexpr (kBufs == 2) {
#pragma unroll
      for (int f = 0; f < kFragM; ++f)
        frag_a[0][f] = *reinterpret_cast<const float4*>(As + frag_row0 + f * kFragRowStride);
#pragma unroll
      for (int f = 0; f < kFragN; ++f)
        frag_b[0][f] = *reinterpret_cast<const float4*>(Bs + frag_col0 + f * kFragColStride);
    }

    int stage = 0;
    // Slice kt; has_next is a bool, or std::true_type / std::false_type where it is known.
    auto slice = [&](int64_t kt, auto has_next) {
      if (has_next) {
        a_loader.advance(p.lda);
        b_loader.advance(p.ldb);
        load_slice(kt + 1);
      }
      const float* As_cur = As + stage * KTB * LDA_S;
      const float* Bs_cur = Bs + stage * KTB * LDB_S;
#pragma unroll
      for (int kk = 0; kk < KTB; ++kk) {
        const int cur = kBufs == 2 ? (kk & 1) : 0;
        [[maybe_unused]] const int nxt = kBufs == 2 ? (cur ^ 1) : 0;
        if constexpr (kBufs == 1) {
          // One fragment buffer: this step's fragments, read just before use (the
          // compiler hoists them as far as registers allow).
#pragma unroll
          for (int f = 0; f < kFragM; ++f)
            frag_a[0][f] = *reinterpret_cast<const float4*>(
                As_cur + kk * LDA_S + frag_row0 + f * kFragRowStride);
#pragma unroll
          for (int f = 0; f < kFragN; ++f)
            frag_b[0][f] = *reinterpret_cast<const float4*>(
                Bs_cur + kk * LDB_S + frag_col0 + f * kFragColStride);
        } else if (kk + 1 < KTB) {
#pragma unroll
          for (int f = 0; f < kFragM; ++f)
            frag_a[nxt][f] = *reinterpret_cast<const float4*>(
                As_cur + (kk + 1) * LDA_S + frag_row0 + f * kFragRowStride);
#pragma unroll
          for (int f = 0; f < kFragN; ++f)
            frag_b[nxt][f] = *reinterpret_cast<const float4*>(
                Bs_cur + (kk + 1) * LDB_S + frag_col0 + f * kFragColStride);
        } else if (has_next) {
          // The other stage was last read before the previous barrier: refill it, then
          // fetch the first fragments of the next slice while this one finishes.
          float* As_nxt = As + (stage ^ 1) * KTB * LDA_S;
          float* Bs_nxt = Bs + (stage ^ 1) * KTB * LDB_S;
          a_loader.store(As_nxt);
          b_loader.store(Bs_nxt);
          __syncthreads();
#pragma unroll
          for (int f = 0; f < kFragM; ++f)
            frag_a[nxt][f] =
                *reinterpret_cast<const float4*>(As_nxt + frag_row0 + f * kFragRowStride);
#pragma unroll
          for (int f = 0; f < kFragN; ++f)
            frag_b[nxt][f] =
                *reinterpret_cast<const float4*>(Bs_nxt + frag_col0 + f * kFragColStride);
        }
        fma_fragments<kPlainFmaOrder<Cfg, kTransA, kTransB, kInterior>>(acc, frag_a[cur],
                                                                       frag_b[cur]);
        if constexpr (kBufs == 1) {
          if (kk == KTB - 1 && has_next) {
            // The other stage was last read before the previous barrier.
            a_loader.store(As + (stage ^ 1) * KTB * LDA_S);
            b_loader.store(Bs + (stage ^ 1) * KTB * LDB_S);
            __syncthreads();
          }
        }
      }
      stage ^= 1;
    };
    if constexpr (kInterior && kPeelLastSlice<kTransA, kTransB>) {
      for (int64_t kt = 0; kt + 1 < num_k_tiles; ++kt) slice(kt, std::true_type{});
      slice(num_k_tiles - 1, std::false_type{});
    } else {
      for (int64_t kt = 0; kt < num_k_tiles; ++kt) slice(kt, kt + 1 < num_k_tiles);
    }
  }

  store_tile_fragment<Cfg>(p, acc, m0, n0, frag_row0, frag_col0, alpha);
}

}  // namespace aegis::gemm::simt
