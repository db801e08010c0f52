// SIMT SGEMM with fused, online ABFT at thread-block level (Wu et al., ICS'23): the main loop
// of sgemm_kernel.cuh with the checksum encode and update of ft_block.cuh in each K slice,
// tile checks (with in-place repair or recompute) and a checked epilogue.
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

// The SIMT kernel with fused block-level checksums (ft_block.cuh): three shared-memory
// stages, checks between K chunks and after the K loop, a checked epilogue, no split-K.
template <class Cfg, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocksPerSM)
    sgemm_simt_ft_kernel(const __grid_constant__ GemmParams<float> p) {
  constexpr int MTB = Cfg::kMTB, NTB = Cfg::kNTB, KTB = Cfg::kKTB;
  constexpr int MW = Cfg::kMW, NW = Cfg::kNW, MT = Cfg::kMT, NT = Cfg::kNT;
  constexpr int LDA_S = Cfg::kLdAs, LDB_S = Cfg::kLdBs;
  constexpr int kFragM = MT / 4, kFragN = NT / 4;  // 4x4 blocks per thread along M, N
  constexpr int kStages = 3;  // see ft_block.cuh
  using Ft = FtBlock<Cfg, kTransA, kTransB>;

  extern __shared__ __align__(16) float smem[];
  float* As = smem;                          // (kStages, KTB, LDA_S): op(A) slice, k-major
  float* Bs = smem + kStages * KTB * LDA_S;  // (kStages, KTB, LDB_S): op(B) slice, k-major

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
  float acc[MT][NT];                     // (MT, NT) this thread's C fragment
  constexpr int kCk = Ft::kItems;
  float ck[kCk];                         // checksums of this thread's tile lines
  // A check on copies (see RegisterCopy) against checksums `lines`; true: the tile must be
  // computed again.
  auto check_needs_recompute = [&](const float (&lines)[kCk], int64_t k_tiles, int attempt) {
    RegisterCopy<MT, NT> copy(acc);
    const LineCopy<kCk> ck_copy(lines);
    const abft::Verdict v = Ft::check(copy.v, ck_copy.v, smem, p, fmap, span, k_tiles, attempt);
    copy.copy_to(acc);
    return v == abft::Verdict::kRecompute && p.ft.mode == abft::FtMode::kCorrect && attempt == 0;
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
#pragma unroll
    for (int q = 0; q < kCk; ++q) ck[q] = 0.0f;

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
      load_slice(0);
      a_loader.store(As);
      b_loader.store(Bs);
      Ft::clear_update_stage(smem, kStages - 1);  // the first iteration's "previous slice"
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

      int stage = 0, prev_stage = kStages - 1;
      typename Ft::EncodeState enc;
      // The operands of the update's k = kk - 1, loaded a step ago, not yet in ck.
      typename Ft::UpdateOperands pending;
      // Checks between chunks of verify_interval slices: a call inside the hot loop made the
      // compiler wait for the next slice's global loads before the first FFMA (measured:
      // +80% time).
      const int64_t chunk = p.ft.verify_interval > 0 ? p.ft.verify_interval : num_k_tiles;
      for (int64_t kt = 0, chunk_end = min(chunk, num_k_tiles); kt < num_k_tiles;
           chunk_end = min(chunk_end + chunk, num_k_tiles)) {
        for (; kt < chunk_end; ++kt) {
          const bool has_next = kt + 1 < num_k_tiles;
          const int next_stage = stage + 1 == kStages ? 0 : stage + 1;
          const float* As_cur = As + stage * KTB * LDA_S;
          const float* Bs_cur = Bs + stage * KTB * LDB_S;
          const float* As_prev = As + prev_stage * KTB * LDA_S;
          const float* Bs_prev = Bs + prev_stage * KTB * LDB_S;
          if (has_next) {
            a_loader.advance(p.lda);
            b_loader.advance(p.ldb);
            load_slice(kt + 1);
          }
#pragma unroll
          for (int kk = 0; kk < KTB; ++kk) {
            const int cur = kBufs == 2 ? (kk & 1) : 0, nxt = kBufs == 2 ? (cur ^ 1) : 0;
            // FT, spread over the steps and ahead of the barrier below (ft_block.cuh): the
            // product loaded a step ago, the operands of k = kk of the previous slice, one
            // link of this slice's encode.
            if (kk > 0) Ft::apply_update(ck, pending);
            Ft::load_update_operands(pending, smem, As_prev, Bs_prev, prev_stage, kk);
            if constexpr (Ft::kSpreadEncode) Ft::encode_step(enc, smem, As_cur, Bs_cur, stage, kk);
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
              // The next stage was last read before the previous barrier: refill it, then
              // fetch the first fragments of the next slice while this one finishes.
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
#pragma unroll
            for (int fi = 0; fi < kFragM; ++fi) {
              const float a[4] = {frag_a[cur][fi].x, frag_a[cur][fi].y, frag_a[cur][fi].z,
                                  frag_a[cur][fi].w};
#pragma unroll
              for (int fj = 0; fj < kFragN; ++fj) {
                const float b[4] = {frag_b[cur][fj].x, frag_b[cur][fj].y, frag_b[cur][fj].z,
                                    frag_b[cur][fj].w};
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                  for (int j = 0; j < 4; ++j)
                    acc[fi * 4 + i][fj * 4 + j] = fmaf(a[i], b[j], acc[fi * 4 + i][fj * 4 + j]);
              }
            }
            if constexpr (!Ft::kSpreadEncode) {
              // The whole encode after the first step's FFMAs.
              if (kk == 0) Ft::encode(smem, As_cur, Bs_cur, stage);
            }
            if constexpr (kBufs == 1) {
              if (kk == KTB - 1 && has_next) {
                // The next stage was last read before the previous barrier.
                a_loader.store(As + next_stage * KTB * LDA_S);
                b_loader.store(Bs + next_stage * KTB * LDB_S);
                __syncthreads();
              }
            }
          }
          // The last k's product after the last step's FFMAs, not across the loop's back edge
          // (measured: the compiler then copied the operands there, waiting for the loads).
          Ft::apply_update(ck, pending);
          if (p.ft.num_faults > 0 && attempt == 0) {
            RegisterCopy<MT, NT> copy(acc);
            LineCopy<kCk> ck_copy(ck);
            Ft::inject(copy.v, ck_copy.v, p.ft, kt, num_k_tiles, fmap, span);
            copy.copy_to(acc);
            ck_copy.copy_to(ck);
          }
          prev_stage = stage;
          stage = next_stage;
        }
        if (kt < num_k_tiles) {
          // A chunk boundary: check against the checksums brought up to date in a copy (the
          // next iteration's steps still add the last slice to ck itself).
          float ck_now[kCk];
#pragma unroll
          for (int q = 0; q < kCk; ++q) ck_now[q] = ck[q];
          Ft::update(ck_now, smem, As + prev_stage * KTB * LDA_S, Bs + prev_stage * KTB * LDB_S,
                     prev_stage);
          if (check_needs_recompute(ck_now, kt, attempt)) {
            recompute = true;
            break;
          }
        }
      }
      if (!recompute) {
        __syncthreads();  // the last slice's sums are written
        Ft::update(ck, smem, As + prev_stage * KTB * LDA_S, Bs + prev_stage * KTB * LDB_S,
                   prev_stage);
        recompute = check_needs_recompute(ck, num_k_tiles, attempt);
      }
    }
    if (!recompute) break;
  }

  // ---- epilogue ------------------------------------------------------------------------
  const RegisterCopy<MT, NT> copy(acc);
  Ft::epilogue(copy.v, smem, p, fmap, span, alpha, read_scalar(p.beta));
}

}  // namespace aegis::gemm::simt
