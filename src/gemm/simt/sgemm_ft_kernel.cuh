// SIMT SGEMM with fused, online ABFT (after Wu et al., ICS'23) at block, warp or thread
// level (ft_groups.h: what one checksum covers; the level changes only the check): the
// plain kernel's main loop (accumulate_k_range) in chunks of the verify interval, a check of
// the tile against its reference checksums after each chunk (with in-place repair, or the
// tile computed again), and a checked epilogue (ft_block.cuh).
#pragma once

#include <cstdint>

#include "gemm/simt/ft_block.cuh"
#include "gemm/simt/sgemm_kernel.cuh"

namespace aegis::gemm::simt {

// The plain kernel's main loop (sgemm_kernel.cuh) as a function: accumulates op(A)(tile rows,
// k) op(B)(k, tile columns) for k in [k_from, k_to) (num_k_tiles > 0 slices of KTB) into acc,
// which it does not clear. The tile's stages live at smem (2 stages, KTB x LDA_S of op(A)
// then 2 x KTB x LDB_S of op(B)); they may be reused once a block barrier has followed the
// return. on_slice(kt) runs after the FMAs of slice kt (relative to k_from): a no-op in the
// fast instance, the injection in the general one.
// kInterior: the tile is whole, [k_from, k_to) a whole number of slices and both operands
// 16-byte aligned (sgemm_all_interior): no bounds checks. The last slice stays in the loop
// (see kPeelLastSlice): with the FT tail after the loop, peeling it spilled inside the loop,
// while the loop as it is reads the register banks as well as the plain interior kernel's
// (scripts/sass-bank-conflicts, pairs per 1024 FFMAs in the 4 x 4 block order: NN 271, NT
// 263, TN 299, TT 234; kOrder, v12, takes them lower).
template <class Cfg, bool kTransA, bool kTransB, bool kInterior, FmaOrder kOrder, class OnSlice>
__device__ __forceinline__ void accumulate_k_range(const GemmParams<float>& p,
                                                   float (&acc)[Cfg::kMT][Cfg::kNT], float* smem,
                                                   int64_t m0, int64_t n0, int64_t k_from,
                                                   int64_t k_to, int64_t num_k_tiles,
                                                   int frag_row0, int frag_col0,
                                                   OnSlice on_slice) {
  constexpr int MTB = Cfg::kMTB, NTB = Cfg::kNTB, KTB = Cfg::kKTB;
  constexpr int MW = Cfg::kMW, NW = Cfg::kNW, MT = Cfg::kMT, NT = Cfg::kNT;
  constexpr int LDA_S = Cfg::kLdAs, LDB_S = Cfg::kLdBs;
  constexpr int kFragM = MT / 4, kFragN = NT / 4;  // 4x4 blocks per thread along M, N
  constexpr int kFragRowStride = MW / kFragM, kFragColStride = NW / kFragN;
  float* As = smem;                     // (2 stages, KTB, LDA_S): op(A) slice, k-major
  float* Bs = smem + 2 * KTB * LDA_S;   // (2 stages, KTB, LDB_S): op(B) slice, k-major
  const int tid = threadIdx.x;

  // op(A)(i, kk) lives at A[i + kk*lda] (N) or A[kk + i*lda] (T).
  TileLoader<MTB, KTB, Cfg::kThreads, LDA_S, !kTransA> a_loader(p.A, p.lda, m0, k_from, tid);
  // op(B)(kk, j) lives at B[kk + j*ldb] (N) or B[j + kk*ldb] (T).
  TileLoader<NTB, KTB, Cfg::kThreads, LDB_S, kTransB> b_loader(p.B, p.ldb, n0, k_from, tid);

  const int rows_left_a = clamp_to_int(p.m - m0), rows_left_b = clamp_to_int(p.n - n0);
  // Slices of an interior tile that are whole in k load without bounds checks.
  const bool interior = p.a_vec && p.b_vec && rows_left_a >= MTB && rows_left_b >= NTB;
  const int64_t whole_k_tiles = (k_to - k_from) / KTB;
  auto load_slice = [&](int64_t kt) {
    if (kInterior || (interior && kt < whole_k_tiles)) {
      a_loader.load_interior();
      b_loader.load_interior();
    } else {
      const int k_left = clamp_to_int(k_to - (k_from + kt * KTB));
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
  for (int64_t kt = 0; kt < num_k_tiles; ++kt) {
    const bool has_next = kt + 1 < num_k_tiles;
    if (has_next) {
      a_loader.advance(p.lda);
      b_loader.advance(p.ldb);
      load_slice(kt + 1);
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
      fma_fragments<kOrder>(acc, frag_a[cur], frag_b[cur]);
      if constexpr (kBufs == 1) {
        if (kk == KTB - 1 && has_next) {
          // The other stage was last read before the previous barrier.
          a_loader.store(As + (stage ^ 1) * KTB * LDA_S);
          b_loader.store(Bs + (stage ^ 1) * KTB * LDB_S);
          __syncthreads();
        }
      }
    }
    on_slice(kt);
    stage ^= 1;
  }
}

// A copy of a register array for an out-of-line function: the copy's address escapes (it
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

// The SIMT kernel with fused checks at level kLevel. The reference checksums come from
// launch_ft_checksums; no split-K. Two instances:
//  - fast (kGeneral false), for calls without a verify interval or faults to inject: the plain
//    kernel's source up to the end of its main loop, then the tile into shared memory, one
//    check and the checked epilogue. A tile whose check cannot locate its fault is listed
//    for the redo pass and left alone. Loops, restarts or calls around the main loop made
//    ptxas allocate it differently from the plain kernel: spills inside the slice loop, or
//    the same instructions 5.5 % slower (measured; docs/perf-notes.md FT-5).
//  - general: K in chunks of the verify interval, fault injection, tiles computed again in
//    place, and the redo pass over the fast instance's list.
//  - kInterior (fast kernel only): the loop without bounds checks, for calls whose tiles are
//    all whole (sgemm_all_interior).
template <class Cfg, bool kTransA, bool kTransB, bool kGeneral, FtLevel kLevel = FtLevel::kBlock,
          bool kInterior = false>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocksPerSM)
    sgemm_simt_ft_kernel(const __grid_constant__ GemmParams<float> p) {
  static_assert(!(kGeneral && kInterior), "the general kernel serves every call");
  constexpr int MTB = Cfg::kMTB, NTB = Cfg::kNTB, KTB = Cfg::kKTB;
  constexpr int MW = Cfg::kMW, NW = Cfg::kNW, MT = Cfg::kMT, NT = Cfg::kNT;
  using Ft = FtBlock<Cfg, kTransA, kTransB, kLevel>;
  using LoopState = typename Ft::LoopState;
  using Next = typename Ft::Next;
  // The fast kernel's FFMAs in the plain kernel's order where that measured faster on the
  // H200 (docs/perf-notes.md v12, v13). Block level: 0.4-7.6 % faster, except TT on shapes
  // that are not whole tiles (2.2-3.4 % slower). Warp level: NN, NT and TN 4-6 % faster, TT
  // 3-4 % slower. The thread level (it spilled in that order) and the general kernel keep the
  // 4 x 4 blocks.
  constexpr bool kPlainOrder = kLevel == FtLevel::kBlock   ? !(kTransA && kTransB && !kInterior)
                               : kLevel == FtLevel::kWarp ? !(kTransA && kTransB)
                                                          : false;
  constexpr FmaOrder kFastFmaOrder =
      kPlainOrder ? kPlainFmaOrder<Cfg, kTransA, kTransB, kInterior> : FmaOrder::kBlocks;

  extern __shared__ __align__(16) float smem[];

  int tm, tn;
  tile_coords(blockIdx.x, p.tiles_m, p.tiles_n, tm, tn);
  const int64_t m0 = static_cast<int64_t>(tm) * MTB;
  const int64_t n0 = static_cast<int64_t>(tn) * NTB;
  const int64_t k_begin = static_cast<int64_t>(blockIdx.y) * p.k_per_split;  // 0: no split-K
  const int64_t k_end = min(p.k, k_begin + p.k_per_split);

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp % Cfg::kWarpsM, warp_n = warp / Cfg::kWarpsM;
  const int lane_m = lane % Cfg::kLanesM, lane_n = lane / Cfg::kLanesM;
  const int frag_row0 = warp_m * MW + lane_m * 4;
  const int frag_col0 = warp_n * NW + lane_n * 4;

  const float alpha = read_scalar(p.alpha);
  float acc[MT][NT];  // (MT, NT) this thread's C fragment
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j) acc[i][j] = 0.0f;

  if constexpr (!kGeneral) {
    if (tid == 0) *Ft::loop_state(smem) = LoopState{0, 0, static_cast<int>(blockIdx.x)};
    Ft::clear_references(smem);
    // alpha = 0 (possible here only in device pointer mode) must not read A or B.
    const int64_t num_k_tiles = (alpha == 0.0f || k_end <= k_begin)
                                    ? 0
                                    : (k_end - k_begin + KTB - 1) / KTB;
    if (num_k_tiles > 0)
      accumulate_k_range<Cfg, kTransA, kTransB, kInterior, kFastFmaOrder>(
          p, acc, smem, m0, n0, k_begin, k_end, num_k_tiles, frag_row0, frag_col0,
          [](int64_t) {});
    // From here on FT reads its inputs afresh (ft_block.cuh: nothing kept across the loop).
    __syncthreads();  // the stages are free: the tile goes over them
    Ft::store_tile(smem, acc);
    __syncthreads();
    const TileSpan span = Ft::tile_span(p, Ft::fresh_block());
    if (Ft::num_k_tiles(p) > 0 && Ft::check_chunk(smem, p, span) == Next::kRestart) {
      // Computed again by the redo pass; this launch leaves the tile's C alone.
      if (Ft::fresh_tid() == 0) p.ft.redo_tiles[atomicAdd(p.ft.redo_count, 1)] = Ft::fresh_block();
      return;
    }
    if constexpr (kInterior)
      Ft::whole_tiles_epilogue(smem, p, span, read_scalar_again(p.alpha));
    else
      Ft::epilogue(smem, p, span, read_scalar_again(p.alpha));
  } else {
    // Verify intervals, faults to inject, and the redo pass: the K loop in chunks from the
    // loop state, each chunk followed by its check; a tile whose check cannot locate its
    // fault (first attempt) is computed again here. The redo pass walks the fast launch's
    // list of tiles, second attempts all.
    for (int i = blockIdx.x;; i += gridDim.x) {
      int tile = i;
      if (p.ft.redo_pass) {
        if (i >= *p.ft.redo_count) break;
        tile = p.ft.redo_tiles[i];
      } else if (i != static_cast<int>(blockIdx.x)) {
        break;
      }
      if (tid == 0) *Ft::loop_state(smem) = LoopState{0, p.ft.redo_pass ? 1 : 0, tile};
      Ft::clear_references(smem);
#pragma unroll
      for (int r = 0; r < MT; ++r)
#pragma unroll
        for (int c = 0; c < NT; ++c) acc[r][c] = 0.0f;
      __syncthreads();
      if (Ft::num_k_tiles(p) == 0) {  // no check runs: the tile holds zeros
        Ft::store_tile(smem, acc);
        __syncthreads();
      }
      while (Ft::loop_state(smem)->kt < Ft::num_k_tiles(p)) {
        const LoopState st = *Ft::loop_state(smem);
        const int64_t end = Ft::chunk_end(p, st.kt, Ft::num_k_tiles(p));
        const TileSpan span = Ft::tile_span(p, st.tile);
        const FragmentMap fm = Ft::fragment_map();
        auto on_slice = [&](int64_t s) {
          if (p.ft.num_faults > 0) {
            const LoopState now = *Ft::loop_state(smem);
            if (now.attempt == 0) {
              RegisterCopy<MT, NT> copy(acc);
              Ft::inject(copy.v, smem, p, now.kt + s);
              copy.copy_to(acc);
            }
          }
        };
        accumulate_k_range<Cfg, kTransA, kTransB, false, FmaOrder::kBlocks>(
            p, acc, smem, span.m0, span.n0, st.kt * KTB, min(p.k, end * KTB), end - st.kt,
            fm.row0, fm.col0, on_slice);
        __syncthreads();  // the stages are free: the tile goes over them
        Ft::store_tile(smem, acc, fm);
        __syncthreads();
        const Next next = Ft::check_chunk(smem, p, span);
        if (next == Next::kDone) break;
        if (next == Next::kRestart) {
#pragma unroll
          for (int r = 0; r < MT; ++r)
#pragma unroll
            for (int c = 0; c < NT; ++c) acc[r][c] = 0.0f;
          Ft::clear_references(smem);
        } else {
          Ft::load_tile(smem, acc, fm);  // with any repair of the check
          __syncthreads();               // before the next chunk's stages overwrite the tile
        }
      }
      Ft::epilogue(smem, p, Ft::tile_span(p, tile), read_scalar_again(p.alpha));
      __syncthreads();  // before the next tile reuses shared memory
    }
  }
}

}  // namespace aegis::gemm::simt
