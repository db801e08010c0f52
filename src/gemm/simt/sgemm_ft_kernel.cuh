// SIMT SGEMM with fused, online ABFT at thread-block level (Wu et al., ICS'23): the main loop
// of sgemm_kernel.cuh on a ring of stages, with the checksum update phases of ft_block.cuh
// between its slices, tile checks (with in-place repair or recompute) and a checked epilogue.
#pragma once

#include <cstdint>

#include "gemm/simt/ft_block.cuh"
#include "gemm/simt/sgemm_kernel.cuh"

namespace aegis::gemm::simt {

// Copies of register arrays for the out-of-line FT functions: a copy's address escapes (it
// lives on the stack while the function runs), the original stays in registers.
template <int R, int C>
struct RegisterCopy {
  float v[R][C];
  __device__ __forceinline__ explicit RegisterCopy(const float (&src)[R][C]) {
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
      for (int j = 0; j < C; ++j) v[i][j] = src[i][j];
  }
  __device__ __forceinline__ void copy_to(float (&dst)[R][C]) const {
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
      for (int j = 0; j < C; ++j) dst[i][j] = v[i][j];
  }
};
template <int N>
struct LineCopy {
  float v[N];
  __device__ __forceinline__ explicit LineCopy(const float (&src)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] = src[i];
  }
  __device__ __forceinline__ void copy_to(float (&dst)[N]) const {
#pragma unroll
    for (int i = 0; i < N; ++i) dst[i] = v[i];
  }
};

// The SIMT kernel with fused block-level checksums (ft_block.cuh): the plain kernel's main
// loop on a ring of kRing stages, paused every kPhase slices for an update phase; checks
// between K chunks and after the K loop, a checked epilogue, no split-K. The operand sums
// come from launch_ft_operand_sums. kInject: the instance for calls with faults to inject
// (the injection's call inside the slice loop changes how the compiler allocates the
// accumulators, measured: FFMAs no longer accumulating in place, so clean calls run an
// instance without it).
template <class Cfg, bool kTransA, bool kTransB, bool kInject>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocksPerSM)
    sgemm_simt_ft_kernel(const __grid_constant__ GemmParams<float> p) {
  constexpr int MTB = Cfg::kMTB, NTB = Cfg::kNTB, KTB = Cfg::kKTB;
  constexpr int MW = Cfg::kMW, NW = Cfg::kNW, MT = Cfg::kMT, NT = Cfg::kNT;
  constexpr int LDA_S = Cfg::kLdAs, LDB_S = Cfg::kLdBs;
  constexpr int kFragM = MT / 4, kFragN = NT / 4;  // 4x4 blocks per thread along M, N
  using Ft = FtBlock<Cfg, kTransA, kTransB>;
  constexpr int kRing = Ft::kRing, kRingMask = kRing - 1;

  extern __shared__ __align__(16) float smem[];
  float* As = smem;                        // (kRing, KTB, LDA_S): op(A) slices, k-major
  float* Bs = smem + kRing * KTB * LDA_S;  // (kRing, KTB, LDB_S): op(B) slices, k-major

  int tm, tn;
  tile_coords(p.tiles_m, p.tiles_n, tm, tn);
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
  const int rows_left = clamp_to_int(p.m - m0), cols_left = clamp_to_int(p.n - n0);
  const FragmentMap fmap{frag_row0, frag_col0, kFragRowStride, kFragColStride};
  const TileSpan span{m0, n0, k_begin, k_end, rows_left, cols_left};

  const float alpha = read_scalar(p.alpha);
  float acc[MT][NT];  // (MT, NT) this thread's C fragment
  // A check after k_tiles K tiles, once every slice before is in the partial checksums and a
  // block barrier has published them; true: the tile must be computed again. Between K
  // chunks the check is a call on copies (see RegisterCopy), after the K loop it is inline.
  auto needs_recompute = [&](abft::Verdict v, int attempt) {
    return v == abft::Verdict::kRecompute && p.ft.mode == abft::FtMode::kCorrect && attempt == 0;
  };
  auto chunk_check_needs_recompute = [&](int64_t k_tiles, int attempt) {
    float lines[Ft::kItems];
    Ft::line_checksums(smem, lines);
    RegisterCopy<MT, NT> copy(acc);
    const LineCopy<Ft::kItems> ck_copy(lines);
    const abft::Verdict v =
        Ft::check_call(copy.v, ck_copy.v, smem, p, fmap, span, k_tiles, attempt);
    copy.copy_to(acc);
    return needs_recompute(v, attempt);
  };
  auto final_check_needs_recompute = [&](int64_t k_tiles, int attempt) {
    float lines[Ft::kItems];
    Ft::line_checksums(smem, lines);
    return needs_recompute(Ft::check(acc, lines, smem, p, fmap, span, k_tiles, attempt), attempt);
  };

  // alpha = 0 (possible here only in device pointer mode) must not read A or B.
  const int64_t num_k_tiles = (alpha == 0.0f || k_end <= k_begin)
                                  ? 0
                                  : (k_end - k_begin + KTB - 1) / KTB;
  // FT: a tile whose check cannot locate its fault is computed once more from scratch.
  for (int attempt = 0;; ++attempt) {
    bool recompute = false;
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int j = 0; j < NT; ++j) acc[i][j] = 0.0f;
    Ft::clear_partials(smem);

    if (num_k_tiles > 0) {
      // op(A)(i, kk) lives at A[i + kk*lda] (N) or A[kk + i*lda] (T).
      TileLoader<MTB, KTB, Cfg::kThreads, LDA_S, !kTransA> a_loader(p.A, p.lda, m0, k_begin, tid);
      // op(B)(kk, j) lives at B[kk + j*ldb] (N) or B[j + kk*ldb] (T).
      TileLoader<NTB, KTB, Cfg::kThreads, LDB_S, kTransB> b_loader(p.B, p.ldb, n0, k_begin, tid);

      const int rows_left_a = rows_left, rows_left_b = cols_left;
      // Slices of an interior tile that are whole in k load without bounds checks.
      const bool interior = p.a_vec && p.b_vec && rows_left_a >= MTB && rows_left_b >= NTB;
      const int64_t whole_k_tiles = (k_end - k_begin) / KTB;
      auto load_slice = [&](int64_t kt) {
        if (interior && kt < whole_k_tiles) {
          a_loader.load_interior();
          b_loader.load_interior();
        } else {
          const int k_left = clamp_to_int(k_end - (k_begin + kt * KTB));
          a_loader.load(rows_left_a, k_left, p.a_vec);
          b_loader.load(rows_left_b, k_left, p.b_vec);
        }
      };
      // The operand sums of the first update phase.
      typename Ft::PhaseSums phase_sums(p.ft, tm, tn, k_begin);
      phase_sums.load(0, num_k_tiles);
      phase_sums.store(smem, 0);
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

      int stage = 0, phase_buf = 0;
      int64_t phase_first = 0;  // the first slice not yet in the partial checksums
      // Checks between chunks of verify_interval slices: a call inside the hot loop made the
      // compiler wait for the next slice's global loads before the first FFMA (measured:
      // +80% time).
      const int64_t chunk = p.ft.verify_interval > 0 ? p.ft.verify_interval : num_k_tiles;
      for (int64_t kt = 0, chunk_end = min(chunk, num_k_tiles); kt < num_k_tiles;
           chunk_end = min(chunk_end + chunk, num_k_tiles)) {
        for (; kt < chunk_end; ++kt) {
          const bool has_next = kt + 1 < num_k_tiles;
          const int next_stage = (stage + 1) & kRingMask;
          if (has_next) {
            a_loader.advance(p.lda);
            b_loader.advance(p.ldb);
            load_slice(kt + 1);
          }
          if (kt - phase_first == Ft::kPhase) {
            // The update phase of the kPhase slices before this one, while the next slice
            // loads (here rather than at the end of an iteration, where the compiler then
            // moved the last step's FFMAs ahead of the barrier instead of behind it).
            Ft::update_phase(smem, static_cast<int>(phase_first) & kRingMask, Ft::kPhase,
                             phase_buf, phase_sums, kt, num_k_tiles);
            phase_buf ^= 1;
            phase_first = kt;
          }
          const float* As_cur = As + stage * KTB * LDA_S;
          const float* Bs_cur = Bs + stage * KTB * LDB_S;
#pragma unroll
          for (int kk = 0; kk < KTB; ++kk) {
            const int cur = kBufs == 2 ? (kk & 1) : 0, nxt = kBufs == 2 ? (cur ^ 1) : 0;
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
              // The next ring stage was last read by an update phase before the previous
              // barrier: fill it, then fetch the first fragments of the next slice while this
              // one finishes.
              float* As_nxt = As + next_stage * KTB * LDA_S;
              float* Bs_nxt = Bs + next_stage * KTB * LDB_S;
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
            fma_fragments(acc, frag_a[cur], frag_b[cur]);
            if constexpr (kBufs == 1) {
              if (kk == KTB - 1 && has_next) {
                a_loader.store(As + next_stage * KTB * LDA_S);
                b_loader.store(Bs + next_stage * KTB * LDB_S);
                __syncthreads();
              }
            }
          }
          if constexpr (kInject) {
            if (attempt == 0) {
              RegisterCopy<MT, NT> copy(acc);
              Ft::inject(copy.v, smem, p.ft, kt, num_k_tiles, fmap, span);
              copy.copy_to(acc);
            }
          }
          stage = next_stage;
        }
        // The update phase of the slices not yet in the checksums (all published by the
        // barriers of the slices before them; the last slice of all has none, and the sums
        // stored by the phase before may have had none since).
        __syncthreads();
        Ft::update_phase(smem, static_cast<int>(phase_first) & kRingMask,
                         static_cast<int>(kt - phase_first), phase_buf, phase_sums, kt,
                         num_k_tiles);
        phase_buf ^= 1;
        phase_first = kt;
        if (kt < num_k_tiles) {
          __syncthreads();  // every partial is up to date
          if (chunk_check_needs_recompute(kt, attempt)) {
            recompute = true;  // a chunk boundary
            break;
          }
        }
      }
      if (!recompute) {
        __syncthreads();  // every partial is up to date
        recompute = final_check_needs_recompute(num_k_tiles, attempt);
      }
    }
    if (!recompute) break;
  }

  // ---- epilogue ------------------------------------------------------------------------
  Ft::epilogue(acc, smem, p, fmap, span, alpha, read_scalar(p.beta));
}

}  // namespace aegis::gemm::simt
