// SIMT GEMM kernel with an asynchronous-copy K loop: the tile and fragment layout, the FMA
// block and the epilogue of sgemm_kernel.cuh, but global memory goes straight into a ring
// of Cfg::kStages shared-memory stages with cp.async (no register staging), Cfg::kStages - 1
// slices ahead of the one being multiplied.
//
// Against the register-staged kernel this keeps more loads in flight (two slices instead of
// one with three stages), frees the staging registers, and drops the shared-memory stores
// from the instruction stream; cuBLAS's SGEMM on the H200 runs this way (256x128x8 tiles,
// three stages; docs/perf-notes.md, v8).
//
// Ring protocol: the prologue issues slices 0..S-1 (one commit group each, empty groups past
// the last slice so the counting stays uniform). At the last k step of slice t each thread
// waits until slice t+1 has landed (at most S-2 groups pending), the block synchronizes
// (all warps are then done reading slice t's stage and see slice t+1), and slice t+S is
// issued into slice t's stage.
#pragma once

#include <cstdint>

#include "gemm/simt/gemm_config.h"
#include "gemm/simt/gemm_params.h"
#include "gemm/simt/sgemm_kernel.cuh"

namespace aegis::gemm::simt {

template <class Cfg, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocksPerSM)
    sgemm_simt_async_kernel(const GemmParams<float> p) {
  constexpr int MTB = Cfg::kMTB, NTB = Cfg::kNTB, KTB = Cfg::kKTB;
  constexpr int MW = Cfg::kMW, NW = Cfg::kNW, MT = Cfg::kMT, NT = Cfg::kNT;
  constexpr int LDA_S = Cfg::kLdAs, LDB_S = Cfg::kLdBs;
  constexpr int S = Cfg::kStages;
  constexpr int kFragM = MT / 4, kFragN = NT / 4;
  static_assert(S >= 3, "the asynchronous K loop keeps at least two slices in flight");

  extern __shared__ __align__(16) float smem[];
  float* As = smem;                    // (S, KTB, LDA_S): op(A) slices, k-major
  float* Bs = smem + S * KTB * LDA_S;  // (S, KTB, LDB_S): op(B) slices, k-major

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
  const int frag_row0 = warp_m * MW + lane_m * 4;
  const int frag_col0 = warp_n * NW + lane_n * 4;
  constexpr int kFragRowStride = MW / kFragM, kFragColStride = NW / kFragN;

  const float alpha = read_scalar(p.alpha);
  float acc[MT][NT];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j) acc[i][j] = 0.0f;

  // alpha = 0 (possible here only in device pointer mode) must not read A or B.
  const int64_t num_k_tiles = (alpha == 0.0f || k_end <= k_begin)
                                  ? 0
                                  : (k_end - k_begin + KTB - 1) / KTB;
  if (num_k_tiles > 0) {
    TileLoader<MTB, KTB, Cfg::kThreads, LDA_S, !kTransA> a_loader(p.A, p.lda, m0, k_begin, tid);
    TileLoader<NTB, KTB, Cfg::kThreads, LDB_S, kTransB> b_loader(p.B, p.ldb, n0, k_begin, tid);
    const int rows_left_a = clamp_to_int(p.m - m0), rows_left_b = clamp_to_int(p.n - n0);
    const bool interior = p.a_vec && p.b_vec && rows_left_a >= MTB && rows_left_b >= NTB;
    const int64_t whole_k_tiles = (k_end - k_begin) / KTB;
    // Issues slice kt (the loaders stand at it) into stage st and closes its group; past
    // the last slice the group is empty.
    auto issue = [&](int64_t kt, int st) {
      if (kt < num_k_tiles) {
        float* As_st = As + st * KTB * LDA_S;
        float* Bs_st = Bs + st * KTB * LDB_S;
        if (interior && kt < whole_k_tiles) {
          a_loader.copy_async_interior(As_st);
          b_loader.copy_async_interior(Bs_st);
        } else {
          const int k_left = clamp_to_int(k_end - (k_begin + kt * KTB));
          a_loader.copy_async(As_st, rows_left_a, k_left, p.a_vec);
          b_loader.copy_async(Bs_st, rows_left_b, k_left, p.b_vec);
        }
        a_loader.advance(p.lda);
        b_loader.advance(p.ldb);
      }
      copy_async_commit();
    };
#pragma unroll
    for (int st = 0; st < S; ++st) issue(st, st);
    copy_async_wait<S - 1>();  // slice 0
    __syncthreads();

    constexpr int kBufs = Cfg::kFragBuffers;
    float4 frag_a[kBufs][kFragM];
    float4 frag_b[kBufs][kFragN];
    auto load_fragments = [&](int buf, const float* As_k, const float* Bs_k) {
#pragma unroll
      for (int f = 0; f < kFragM; ++f)
        frag_a[buf][f] = *reinterpret_cast<const float4*>(As_k + frag_row0 + f * kFragRowStride);
#pragma unroll
      for (int f = 0; f < kFragN; ++f)
        frag_b[buf][f] = *reinterpret_cast<const float4*>(Bs_k + frag_col0 + f * kFragColStride);
    };
    if constexpr (kBufs == 2) load_fragments(0, As, Bs);

    int stage = 0;
    for (int64_t kt = 0; kt < num_k_tiles; ++kt) {
      const bool has_next = kt + 1 < num_k_tiles;
      const int next_stage = stage + 1 == S ? 0 : stage + 1;
      const float* As_cur = As + stage * KTB * LDA_S;
      const float* Bs_cur = Bs + stage * KTB * LDB_S;
      // Slice kt+1 in place, slice kt's stage free again: refill it with slice kt+S.
      auto advance_ring = [&]() {
        copy_async_wait<S - 2>();
        __syncthreads();
        issue(kt + S, stage);
      };
#pragma unroll
      for (int kk = 0; kk < KTB; ++kk) {
        const int cur = kBufs == 2 ? (kk & 1) : 0, nxt = kBufs == 2 ? (cur ^ 1) : 0;
        if constexpr (kBufs == 1) {
          load_fragments(0, As_cur + kk * LDA_S, Bs_cur + kk * LDB_S);
        } else if (kk + 1 < KTB) {
          load_fragments(nxt, As_cur + (kk + 1) * LDA_S, Bs_cur + (kk + 1) * LDB_S);
        } else if (has_next) {
          // This step's fragments are in registers: the stage can go.
          advance_ring();
          load_fragments(nxt, As + next_stage * KTB * LDA_S, Bs + next_stage * KTB * LDB_S);
        }
        fma_fragments(acc, frag_a[cur], frag_b[cur]);
        if constexpr (kBufs == 1) {
          if (kk == KTB - 1 && has_next) advance_ring();
        }
      }
      stage = next_stage;
    }
    copy_async_wait<0>();  // no copy may still target shared memory at exit
  }

  store_tile_fragment<Cfg>(p, acc, m0, n0, frag_row0, frag_col0, alpha);
}

}  // namespace aegis::gemm::simt
