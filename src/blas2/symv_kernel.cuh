// SYMV/HEMV kernel template: y = alpha A x + beta y, A n x n symmetric (or Hermitian), only
// the stored triangle read.
//
// The matrix is cut into NB x NB tiles; thread block (k, c) owns block column c and walks
// S stored tiles of it (chunk k; S = the plan's y_split): for the lower triangle tiles
// (c, c), (c+1, c), ..., for the upper (c, c), (c-1, c), ... Each off-diagonal tile A_rc
// is read once and used twice: A_rc x_c goes to y_r (summed over the Q thread columns
// through shared memory) and A_rc^T x_r (A_rc^H x_r for HEMV) to y_c (kept in registers
// over the whole chunk). The diagonal tile is loaded like the others, only its stored half
// (the rest zero), and used for its rows and, without its diagonal, mirrored for its
// columns (HEMV takes the diagonal as real). The next tile's loads are issued before the
// current tile's arithmetic (register double buffering), or, in the staged instances, the
// tiles two ahead are copied into shared memory (cp.async).
//
// Combine: atomics mode adds every contribution into y (scaled by beta first); the
// deterministic mode writes them to a workspace and symv_reduce_kernel adds them per row
// in a fixed order. TAGGED (float): the parts carry the call's tag (store_tagged), and the
// reduction runs alongside the main grid's last blocks, each row once its parts are in.
//
// Offsets: the operated matrix may start row_shift rows and columns after an aligned
// element of the full matrix; tiles are laid out from that aligned element ("physical"
// indices), so tile columns stay 16-byte aligned. Logical index = physical - row_shift;
// elements with logical index outside [0, n) are never read.
#pragma once

#include <algorithm>
#include <type_traits>

#include "blas2/blas2_common.cuh"
#include "common/cp_async.cuh"
#include "common/grid_limits.h"

namespace aegis::blas2 {

template <typename T>
struct SymvParams {
  const T* B;  // physical element (0, 0) = logical (-row_shift, -row_shift)
  int64_t lda;
  int row_shift;
  int64_t n;
  bool upper;
  int tiles_per_block;  // S
  int chunks_max;       // gridDim.x: chunks of the longest block column
  const T* x;
  int64_t incx;
  T* y;
  int64_t incy;
  Scalars<T> scalars;
  bool atomic;
  T* col_parts;  // [nt][chunks_max][NB]
  T* row_parts;  // [nt (nt - 1) / 2][NB], by tile index hi (hi - 1) / 2 + lo
};

// The TAGGED kernels' parameters: the parts arrays hold 8-byte tagged words (col_parts and
// row_parts point at such arrays), and this is the call's tag. (A struct of its own: grown
// parameters alone moved the allocation of the float kernels without tags, as they did the
// GEMV kernels'.)
template <typename T>
struct SymvTaggedParams : SymvParams<T> {
  unsigned part_tag;
};
template <typename T, bool TAGGED>
using SymvKernelParams = std::conditional_t<TAGGED, SymvTaggedParams<T>, SymvParams<T>>;

// The element type of the parts arrays (TAGGED: one part is kTaggedWords<T> of them).
template <typename T, bool TAGGED>
using SymvPart = std::conditional_t<TAGGED, uint64_t, T>;

// Stores partial sum v as part `index` of an array of tagged words.
template <typename T>
__device__ __forceinline__ void put_tagged_part(T* parts, int64_t index, T v, unsigned tag) {
  store_tagged(reinterpret_cast<uint64_t*>(parts) + index * kTaggedWords<T>, v, tag);
}

__host__ __device__ __forceinline__ int64_t symv_tile_count(int64_t nt, int64_t c, bool upper) {
  return upper ? c + 1 : nt - c;
}

// Whether the diagonal tile goes through shared memory (dsymv, csymv) rather than registers;
// the reasons and measurements are at its use in symv_kernel.
template <typename T, bool HERM>
constexpr bool symv_diag_in_smem() {
  return sizeof(T) == 8 && !HERM;
}

// STAGES > 0 (16-byte aligned instances only): the full tiles go from global to shared
// memory with cp.async, STAGES - 1 tiles ahead, each thread copying and reading back only
// its own vectors (so no barrier guards the stages), instead of the register double buffer
// that keeps one tile in flight per block.
template <typename T, int NB, int Q, bool VEC, bool HERM, int STAGES = 0, bool TAGGED = false>
// Blocks per SM the register allocation must allow (<= 128 registers at 256 threads x 2 or
// 128 x 4; <= 168 at 128 x 3 for 16-byte elements): a block keeps one tile of loads in
// flight across its per-tile barrier, so a few blocks per SM are needed to cover latency.
__global__ void __launch_bounds__(NB / kVecWidth<T> * Q,
                                  (NB / kVecWidth<T> * Q >= 256 ? 2 : sizeof(T) == 16 ? 3 : 4))
    symv_kernel(SymvKernelParams<T, TAGGED> p) {
  constexpr int V = kVecWidth<T>;
  constexpr int TX = NB / V;
  constexpr int CPT = NB / Q;  // columns per thread
  static_assert(TX * Q >= NB, "one thread per row of a tile is needed (Q >= vector width)");
  static_assert(Q >= V, "a thread's vector crosses the diagonal tile's diagonal in one column");
  // The diagonal tile: through shared memory (below) for dsymv and csymv, in registers
  // like the other tiles for the rest (load_tile_diag). Measured per routine (docs/blas2.md,
  // v10): in registers, s and z gained 2-5 points of bandwidth in both reduction modes,
  // while dsymv and csymv lost 2-3 in the deterministic mode (the atomics mode within 0.5),
  // and chemv gained 1 in the atomics mode and lost 2 in the deterministic one. The staged
  // dsymv kernel, with it in registers, ran 2-3 points slower than through shared memory at
  // n = 6784-10112 in both modes (v12).
  constexpr bool kStaged = STAGES > 0 && VEC;
  constexpr bool kDiagInSmem = symv_diag_in_smem<T, HERM>();
  static_assert(!kStaged || sizeof(Vec<T, V>) == 16, "the stages hold 16-byte vectors");
  // Staged: STAGES x CPT x (TX Q threads) vectors, a warp's vectors adjacent (no bank
  // conflict), then room for col_sums where it outgrows the last stage
  // (SymvFamily::kStageBytes). col_sums lives in the last stage: the first tiles' copies
  // fill the others while the diagonal tile uses it, and the column sums come after the
  // last tile. This keeps four float blocks or two 8-byte blocks per SM.
  extern __shared__ __align__(16) unsigned char symv_stages[];
  // The TX threads' sums of each column (with kDiagInSmem, first the diagonal tile).
  __shared__ T col_sums_own[kStaged ? 1 : (kDiagInSmem ? NB : TX)][NB + 1];
  T(*const col_sums)[NB + 1] =
      kStaged ? reinterpret_cast<T(*)[NB + 1]>(
                    symv_stages + (STAGES > 0 ? STAGES - 1 : 0) * NB * NB * sizeof(T))
              : col_sums_own;
  __shared__ T row_sums[2][Q][NB];  // (Q, NB) per tile, two buffers: one barrier per tile
  __shared__ T x_cols[NB];

  const int tx = threadIdx.x, ty = threadIdx.y, tid = tx + ty * TX;
  // TAGGED: the reduction grid, a programmatic dependent of this one, may launch once every
  // block of this grid has started; it waits for each part's tag, not for this grid's end.
  if constexpr (TAGGED) allow_dependent_launch();
  const int64_t np = p.n + p.row_shift;
  const int64_t nt = (np + NB - 1) / NB;
  // Register plan, by element size (measured, docs/blas2.md v10). The 8-byte instances (d,
  // c; at their 128-register cap) form their column pointers at each load, which frees
  // 2 CPT registers; the others keep them, which measured faster for s and z.
  constexpr bool kFormColPtrs = sizeof(T) == 8;
  // Tile indices: 32-bit in that plan (64-bit ones spilled in its tile loop), 64-bit in the
  // other (its measured code).
  using Idx = std::conditional_t<kFormColPtrs, int, int64_t>;
  // Chunk-major grid: chunk k in x, block column in y, so consecutive blocks are the
  // chunks of one block column and the blocks resident at one time read a band of
  // neighbouring block columns moving through A, not the first tiles of every block
  // column at once (the GEMV T kernel's measured lesson, docs/blas2.md, v5). Half the
  // blocks are empty (a short block column's row of the grid is as long as the longest).
  // The plan that forms its pointers walks the block columns from the shortest (upper:
  // the first, lower: the last): the lower triangle's grid otherwise ends on rows that
  // are nearly all empty blocks, and its last chunks wait for the block scheduler's walk
  // through them. The other plan keeps blockIdx.y, which the compiler rematerializes for
  // free: a computed block column spills in their tile loops.
  const Idx c = kFormColPtrs && !p.upper ? Idx(nt) - 1 - Idx(blockIdx.y) : Idx(blockIdx.y);
  const Idx count = Idx(symv_tile_count(nt, c, p.upper));
  const Idx t_begin = Idx(blockIdx.x) * p.tiles_per_block;
  if (t_begin >= count) return;
  const Idx t_end = min(count, Idx(t_begin + p.tiles_per_block));
  const T alpha = p.scalars.get_alpha();

  const int64_t cl0 = int64_t(c) * NB - p.row_shift;  // logical first column of the block column
  const bool full_cols = cl0 >= 0 && cl0 + NB <= p.n;
  // This thread's columns of the block column: column k is cl0 + ty + k Q. Columns outside
  // [0, n) (only in the first or last block column) read a valid column of the block
  // instead and are masked in the arithmetic: the loads stay branch-free.
  // Kept plan: the CPT pointers and masks, formed once.
  const T* kept_ptr[kFormColPtrs ? 1 : CPT];
  bool kept_ok[kFormColPtrs ? 1 : CPT];
#pragma unroll
  for (int k = 0; k < (kFormColPtrs ? 0 : CPT); ++k) {
    const int64_t cj = cl0 + ty + k * Q;
    kept_ok[k] = cj >= 0 && cj < p.n;
    const int64_t cjc = min(max(cj, int64_t(0)), p.n - 1);
    kept_ptr[k] = p.B + (cjc + p.row_shift) * p.lda + tx * V;
  }
  // Formed plan: col_base + kk Q lda, kk = k clamped to the thread's columns inside
  // [0, n) (the kept plan compiles these away).
  const int64_t cj0 = cl0 + ty;
  int k_lo = int(min(max((Q - 1 - cj0) / Q, int64_t(0)), int64_t(CPT)));  // first cj >= 0
  int k_hi = int(min(max((p.n - 1 - cj0) / Q + (p.n - 1 >= cj0 ? 0 : -1), int64_t(-1)),
                     int64_t(CPT - 1)));  // last cj < n
  int64_t col0 = cj0;
  if (k_lo > k_hi) {  // no column of this thread is inside: any valid one
    col0 = min(max(cj0, int64_t(0)), p.n - 1);
    k_lo = k_hi = 0;
  }
  const T* const col_base = p.B + (col0 + p.row_shift) * p.lda + tx * V;
  const int64_t ldq_bytes = p.lda * Q * int64_t(sizeof(T));
  auto col_ptr = [&](int k) -> const T* {
    if constexpr (kFormColPtrs) {
      // An opaque copy of the column stride per use, so that the CPT pointers are not
      // hoisted out of the tile loop into registers.
      int64_t ldq;
      asm volatile("mov.b64 %0, %1;" : "=l"(ldq) : "l"(ldq_bytes));
      const int kk = min(max(k, k_lo), k_hi);
      return reinterpret_cast<const T*>(reinterpret_cast<const char*>(col_base) + kk * ldq);
    } else {
      return kept_ptr[k];
    }
  };
  auto col_ok = [&](int k) -> bool {
    if constexpr (kFormColPtrs) {
      return cj0 + k * Q >= 0 && cj0 + k * Q < p.n;
    } else {
      return kept_ok[k];
    }
  };
  // x of the block column in shared memory (read per tile, a broadcast per warp: x in
  // registers would cost CPT more registers per thread, and occupancy). The staged kernel
  // loads it after its first copies are out (below).
  auto load_x_cols = [&] {
    if (tid < NB) {
      const int64_t cj = cl0 + tid;
      x_cols[tid] = (cj >= 0 && cj < p.n) ? __ldg(p.x + cj * p.incx) : zero<T>();
    }
    __syncthreads();
  };
  if constexpr (!kStaged) load_x_cols();

  T col_acc[CPT];
#pragma unroll
  for (int k = 0; k < CPT; ++k) col_acc[k] = zero<T>();
  T diag_sum = zero<T>();

  // Off-diagonal tiles t in [t_first, t_end), tile row r = c -+ t. The last tile of a block
  // column (lower: tile row nt - 1, upper: tile row 0) may have rows outside [0, n): it is
  // loaded element by element, after the pipelined loop over the full tiles.
  const Idx t_first = t_begin > 0 ? t_begin : 1;
  const bool last_partial = p.upper ? p.row_shift > 0 : np % NB != 0;
  Idx t_full_end = t_end;
  if (last_partial && t_end == count) t_full_end = t_end - 1;
  if (t_full_end < t_first) t_full_end = t_first;

  auto tile_row = [&](Idx tt) { return p.upper ? c - tt : c + tt; };
  // Staged: this thread's vector k of stage st.
  auto stage_vec = [&](int st, int k) {
    return reinterpret_cast<Vec<T, V>*>(symv_stages) + (st * CPT + k) * (TX * Q) + tid;
  };
  // Staged: V elements of x for the rows of full tile tt (load_tile_full keeps its own copy
  // of these loads: calling this from there changed the measured register-path SASS).
  auto load_x_full = [&](Idx tt, T(&xr)[V]) {
    const T* xp = p.x + (int64_t(tile_row(tt)) * NB + tx * V - p.row_shift) * p.incx;
#pragma unroll
    for (int v = 0; v < V; ++v) xr[v] = __ldg(xp + v * p.incx);
  };
  // Staged: full tile tt into stage st, one commit group per call (empty past the full
  // tiles, so that the groups count tiles).
  auto copy_tile = [&](Idx tt, int st) {
    if (tt < t_full_end) {
      const int64_t rp = int64_t(tile_row(tt)) * NB;
#pragma unroll
      for (int k = 0; k < CPT; ++k) cp_async_16_evict_first(stage_vec(st, k), col_ptr(k) + rp);
    }
    cp_async_commit();
  };
  // Staged: the first tiles' copies go out before x of the block column is loaded and
  // waited for (they need no registers, unlike the register path's first loads).
  if constexpr (kStaged) {
#pragma unroll
    for (int j = 0; j < STAGES - 1; ++j) copy_tile(t_first + j, j);
    load_x_cols();
  }
  // Full tile: CPT 16-byte loads (or element loads) and V elements of x, no branch.
  auto load_tile_full = [&](Idx tt, Vec<T, V>(&a)[CPT], T(&xr)[V]) {
    const int64_t rp = int64_t(tile_row(tt)) * NB;  // physical first row of the tile
#pragma unroll
    for (int k = 0; k < CPT; ++k) a[k] = load_full<T, V, VEC>(col_ptr(k) + rp);
    const T* xp = p.x + (rp + tx * V - p.row_shift) * p.incx;
#pragma unroll
    for (int v = 0; v < V; ++v) xr[v] = __ldg(xp + v * p.incx);
  };
  auto load_tile_edge = [&](Idx tt, Vec<T, V>(&a)[CPT], T(&xr)[V]) {
    const int64_t rp = int64_t(tile_row(tt)) * NB;
    const int64_t first = rp + tx * V - p.row_shift;
#pragma unroll
    for (int k = 0; k < CPT; ++k) a[k] = load_rows<T, V, false>(col_ptr(k) + rp, first, p.n);
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const int64_t i = first + v;
      xr[v] = (i >= 0 && i < p.n) ? __ldg(p.x + i * p.incx) : zero<T>();
    }
  };
  // A_rc x_c to y_r (through row_sums[t & 1]), A_rc^T x_r (^H for HEMV) into col_acc.
  auto process = [&](Idx tt, const Vec<T, V>(&a)[CPT], const T(&xr)[V]) {
    const int buf = int(tt & 1);
    T row_acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) row_acc[v] = zero<T>();
    if (full_cols) {
#pragma unroll
      for (int k = 0; k < CPT; ++k) {
        const T xc = x_cols[ty + k * Q];
#pragma unroll
        for (int v = 0; v < V; ++v) {
          row_acc[v] = mad(a[k].v[v], xc, row_acc[v]);
          col_acc[k] = mad(conj_if(a[k].v[v], HERM), xr[v], col_acc[k]);
        }
      }
    } else {
#pragma unroll
      for (int k = 0; k < CPT; ++k) {
        const T xc = x_cols[ty + k * Q];  // 0 for columns outside [0, n)
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const T av = col_ok(k) ? a[k].v[v] : zero<T>();
          row_acc[v] = mad(av, xc, row_acc[v]);
          col_acc[k] = mad(conj_if(av, HERM), xr[v], col_acc[k]);
        }
      }
    }
#pragma unroll
    for (int v = 0; v < V; ++v) row_sums[buf][ty][tx * V + v] = row_acc[v];
    __syncthreads();
    if (tid < NB) {
      T s = zero<T>();
#pragma unroll
      for (int q = 0; q < Q; ++q) s = add(s, row_sums[buf][q][tid]);
      const int64_t r = tile_row(tt);
      const int64_t li = r * NB + tid - p.row_shift;
      if (li >= 0 && li < p.n) {
        if (p.atomic) {
          if (!is_zero(alpha)) atomic_add(p.y + li * p.incy, mul(alpha, s));
        } else {
          const int64_t hi = r > c ? r : c, lo = r > c ? c : r;
          if constexpr (TAGGED)
            put_tagged_part(p.row_parts, (hi * (hi - 1) / 2 + lo) * NB + tid, s, p.part_tag);
          else
            store_partial(p.row_parts + (hi * (hi - 1) / 2 + lo) * NB + tid, s);
        }
      }
    }
  };

  // Diagonal tile (c, c) in the registers and layout of the other tiles, only its stored
  // half read and the rest zero. All its loads are issued at once: a block that holds one
  // was the slowest of the grid when the tile went element by element through shared
  // memory (two to three times a two-tile block's time, at the end of the lower
  // triangle's grid). A thread's vector of column j is wholly stored, wholly not, or
  // crosses the diagonal; at most one of its columns crosses, and only the stored elements
  // of that vector are loaded, one by one.
  auto load_tile_diag = [&](Vec<T, V>(&a)[CPT]) {
    const int i0 = tx * V;
    const T* dp = p.B + int64_t(c) * NB * (1 + p.lda) + i0;  // physical (c NB + i0, c NB)
    auto stored = [&](int i, int j) { return p.upper ? i <= j : i >= j; };
    if (VEC && full_cols) {
      int kx = -1;  // the column whose vector crosses the diagonal
#pragma unroll
      for (int k = 0; k < CPT; ++k) {
        const int j = ty + k * Q;
        const bool whole = p.upper ? i0 + V - 1 <= j : i0 >= j;
        a[k] = whole ? load_full<T, V, true>(dp + j * p.lda) : Vec<T, V>{};
        if (!whole && stored(i0 + V - 1, j) != stored(i0, j)) kx = k;
      }
      T e[V];
      const int jx = ty + kx * Q;
#pragma unroll
      for (int v = 0; v < V; ++v)
        e[v] = kx >= 0 && stored(i0 + v, jx) ? dp[v + jx * p.lda] : zero<T>();
#pragma unroll
      for (int k = 0; k < CPT; ++k)
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (k == kx) a[k].v[v] = e[v];
    } else {
#pragma unroll
      for (int k = 0; k < CPT; ++k) {
        const int j = ty + k * Q;
        const int64_t lj = cl0 + j;
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const int64_t li = cl0 + i0 + v;
          const bool need = stored(i0 + v, j) && li >= 0 && li < p.n && lj >= 0 && lj < p.n;
          a[k].v[v] = need ? dp[v + j * p.lda] : zero<T>();
        }
      }
    }
  };
  // Its stored half times x_c goes to the tile's rows (diag_sum, through row_sums[0]), the
  // mirrored strict half (conjugated for HEMV) to its columns (col_acc); HEMV takes the
  // diagonal as real.
  auto process_diag = [&](const Vec<T, V>(&a)[CPT]) {
    T row_acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) row_acc[v] = zero<T>();
#pragma unroll
    for (int k = 0; k < CPT; ++k) {
      const int j = ty + k * Q;
      const T xc = x_cols[j];
#pragma unroll
      for (int v = 0; v < V; ++v) {
        const bool on_diag = tx * V + v == j;
        const T av = a[k].v[v];
        row_acc[v] = mad(HERM && on_diag ? real_part(av) : av, xc, row_acc[v]);
        const T am = on_diag ? zero<T>() : conj_if(av, HERM);
        col_acc[k] = mad(am, x_cols[tx * V + v], col_acc[k]);
      }
    }
#pragma unroll
    for (int v = 0; v < V; ++v) row_sums[0][ty][tx * V + v] = row_acc[v];
    __syncthreads();
    if (tid < NB) {
#pragma unroll
      for (int q = 0; q < Q; ++q) diag_sum = add(diag_sum, row_sums[0][q][tid]);
    }
  };

  // Two register buffers used in turn (no copies: a copy would wait for the loads); the
  // first full tile's loads are issued before the diagonal tile so they overlap it.
  Vec<T, V> a0[CPT], a1[CPT];
  T x0[V], x1[V];
  if constexpr (kStaged) {
    if (t_first < t_full_end) load_x_full(t_first, x0);
  } else {
    if (t_first < t_full_end) load_tile_full(t_first, a0, x0);
  }

  if (t_begin == 0) {
    if constexpr (kDiagInSmem) {
      // The stored half into shared memory, element by element; row i of the mirrored
      // tile times x_c, kParts threads per row, then summed in order.
      constexpr int kThreads = TX * Q, kParts = kThreads / NB;
      static_assert(kThreads % NB == 0 && kParts <= Q, "diagonal parts fit the row sum buffer");
#pragma unroll 4
      for (int e = tid; e < NB * NB; e += kThreads) {
        const int i = e % NB, j = e / NB;
        const int64_t li = cl0 + i, lj = cl0 + j;
        const bool stored = p.upper ? i <= j : i >= j;
        T v = zero<T>();
        if (stored && li >= 0 && li < p.n && lj >= 0 && lj < p.n)
          v = p.B[(int64_t(c) * NB + i) + (int64_t(c) * NB + j) * p.lda];
        col_sums[j][i] = v;
      }
      __syncthreads();
      {
        const int i = tid % NB, part = tid / NB;
        T s = zero<T>();
#pragma unroll 4
        for (int j = part; j < NB; j += kParts) {
          const bool stored = p.upper ? i <= j : i >= j;
          T a = stored ? col_sums[j][i] : conj_if(col_sums[i][j], HERM);
          if (HERM && i == j) a = real_part(a);
          s = mad(a, x_cols[j], s);
        }
        row_sums[0][part][i] = s;
      }
      __syncthreads();
      if (tid < NB) {
#pragma unroll
        for (int q = 0; q < kParts; ++q) diag_sum = add(diag_sum, row_sums[0][q][tid]);
      }
    } else {
      load_tile_diag(a1);
      process_diag(a1);
    }
    // row_sums[0] is next written for tile 2, after the barrier of tile 1.
  }

  // Atomics mode: this grid may start while the beta pre-pass still scales y (a programmatic
  // dependent launch); the first tile's loads are in flight by now, the adds wait for y.
  if (p.atomic) wait_for_preceding_kernel();
  Idx t = t_first;
  if (kStaged && t < t_full_end) {
    // Tile i of the block is in stage i mod STAGES; step i refills the stage read in step
    // i - 1 (this thread's multiply-adds have consumed its vectors) with tile
    // i + STAGES - 1. x of the tile rows alternates between two register sets, as in the
    // register path.
    int st_read = 0, st_write = STAGES - 1;
    auto step = [&](T(&xc)[V], T(&xn)[V]) {
      copy_tile(t + STAGES - 1, st_write);
      if (t + 1 < t_full_end) load_x_full(t + 1, xn);
      cp_async_wait<STAGES - 1>();
      Vec<T, V> a[CPT];
#pragma unroll
      for (int k = 0; k < CPT; ++k) a[k] = *stage_vec(st_read, k);
      process(t, a, xc);
      st_read = st_read + 1 == STAGES ? 0 : st_read + 1;
      st_write = st_write + 1 == STAGES ? 0 : st_write + 1;
    };
    for (;;) {
      step(x0, x1);
      if (++t >= t_full_end) break;
      step(x1, x0);
      if (++t >= t_full_end) break;
    }
  } else if (t < t_full_end) {
    for (;;) {
      if (t + 1 < t_full_end) load_tile_full(t + 1, a1, x1);
      process(t, a0, x0);
      if (++t >= t_full_end) break;
      if (t + 1 < t_full_end) load_tile_full(t + 1, a0, x0);
      process(t, a1, x1);
      if (++t >= t_full_end) break;
    }
  }
  for (; t < t_end; ++t) {
    Vec<T, V> ae[CPT];
    T xe[V];
    load_tile_edge(t, ae, xe);
    process(t, ae, xe);
  }

  // Column sums: over the TX threads of each column, plus the diagonal tile's rows.
  if constexpr (kDiagInSmem) __syncthreads();  // the diagonal tile's reads are done
  if constexpr (kStaged) {
    cp_async_wait<0>();  // only empty groups remain, but the last stage becomes col_sums
    __syncthreads();     // every thread has read its last stage
  }
#pragma unroll
  for (int k = 0; k < CPT; ++k) col_sums[tx][ty + k * Q] = col_acc[k];
  __syncthreads();
  if (tid < NB) {
    T s = diag_sum;
    for (int q = 0; q < TX; ++q) s = add(s, col_sums[q][tid]);
    // The float instances take the block column, the chunk and alpha afresh here (the block
    // index read again through opaque moves, alpha reloaded) rather than keeping them live
    // from the kernel's start: their allocation then spills 32 / 32 bytes around the
    // diagonal tile instead of 52 / 44, and ssymv ran 1-2.5 points of bandwidth faster in
    // the atomics mode and ~1 in the deterministic one at n = 8192-32768. The same change cost
    // the 16-byte (z) instances ~1 point and csymv ~0.4 (docs/blas2.md, v18).
    constexpr bool kFreshIndices = sizeof(T) == 4;
    static_assert(!(kFreshIndices && kFormColPtrs), "fresh indices assume c = blockIdx.y");
    int64_t col = c, chunk = blockIdx.x;
    T a = alpha;
    if constexpr (kFreshIndices) {
      unsigned bx, by;
      asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(bx));
      asm volatile("mov.u32 %0, %%ctaid.y;" : "=r"(by));
      col = by;
      chunk = bx;
      a = p.scalars.get_alpha();
    }
    const int64_t lj = col * NB + tid - p.row_shift;
    if (lj >= 0 && lj < p.n) {
      if (p.atomic) {
        if (!is_zero(a)) atomic_add(p.y + lj * p.incy, mul(a, s));
      } else {
        if constexpr (TAGGED)
          put_tagged_part(p.col_parts, (col * p.chunks_max + chunk) * NB + tid, s, p.part_tag);
        else
          store_partial(p.col_parts + (col * p.chunks_max + chunk) * NB + tid, s);
      }
    }
  }
}

// Deterministic mode: y_i = alpha (column parts of block row i in chunk order, then row
// parts in tile order) + beta y_i. A thread block takes symv_reduce_rows rows of one block
// row; the kSymvReduceParts threads of a row each add one contiguous range of the row's
// parts (8 loads in flight) and the ranges meet in shared memory in range order, so the sum
// is a fixed function of (n, NB, S). The kernel runs after the main kernel, with nothing
// else left to overlap it, so its length is the chain of loads of one range: 16 threads
// per row (a row of n = 8192, NB = 64 has up to ~190 parts: 12 loads each) keep it to a
// few latencies. Launched as a programmatic dependent of symv_kernel: its blocks may be
// resident before the main grid ends and wait for its partial sums here.
//
// TAGGED (float parts in tagged words): the main grid lets this one launch once all its
// blocks have started, and each load waits for its word to carry the call's tag, so rows
// whose parts are in are summed while the main grid's last blocks still run.
//
// A block's rows are whole 128-byte lines of every part (at least 16 rows), so that once it
// has read them it can drop those lines from L2: nothing reads them again, and their
// write-back to DRAM would take bandwidth from the next call. The drops cost instructions
// and pay only for partials of a quarter of L2 or more (measured, docs/blas2.md v11); tagged
// parts are never dropped (SymvFamily::tagged_workspace_bytes).
constexpr int kSymvReduceParts = 16;
template <typename T, int NB>
constexpr int symv_reduce_rows() {
  constexpr int kLineRows = int(128 / sizeof(T)) > 16 ? int(128 / sizeof(T)) : 16;
  return NB < kLineRows ? NB : kLineRows;
}
template <typename T, int NB>
constexpr int symv_reduce_threads() {
  return symv_reduce_rows<T, NB>() * kSymvReduceParts;
}

// Blocks of 512 threads (float) are held to two per SM, so that the reduction of n = 8192
// is one wave of them.
template <typename T, int NB, bool TAGGED = false>
__global__ void __launch_bounds__(symv_reduce_threads<T, NB>(),
                                  symv_reduce_threads<T, NB>() >= 512 ? 2 : 1)
    symv_reduce_kernel(SymvKernelParams<T, TAGGED> p, bool discard_parts) {
  using Part = SymvPart<T, TAGGED>;
  constexpr int R = symv_reduce_rows<T, NB>();  // rows per block
  constexpr int P = kSymvReduceParts;           // threads per row
  static_assert(NB % R == 0, "whole rows per reduction block");
  // Lines whose rows all belong to this block (in every part) may be dropped by it.
  constexpr int kRowsPerLine = int(128 / sizeof(T));
  constexpr bool kOwnsLines = !TAGGED && NB * sizeof(T) % 128 == 0 && R % kRowsPerLine == 0;
  __shared__ T sums[P][R];
  const int r = threadIdx.x % R, part = threadIdx.x / R;
  const int64_t np = p.n + p.row_shift;
  const int64_t nt = (np + NB - 1) / NB;
  const int64_t rb = blockIdx.x / (NB / R);            // block row
  const int loc = int(blockIdx.x % (NB / R)) * R + r;  // row within the block row
  // Column parts: count cc, at col_base + k NB (k < cc).
  const int64_t S = p.tiles_per_block;
  const int64_t col_base = rb * p.chunks_max * NB;
  const int64_t cc = (symv_tile_count(nt, rb, p.upper) + S - 1) / S;
  // Row parts (tiles (rb, c), c != rb, in tile order): lower c < rb, upper c > rb.
  const int64_t rc = p.upper ? nt - 1 - rb : rb;
  const Part* const col_parts = reinterpret_cast<const Part*>(p.col_parts);
  const Part* const row_parts = reinterpret_cast<const Part*>(p.row_parts);
  constexpr int W = TAGGED ? kTaggedWords<T> : 1;  // array elements per part
  auto part_ptr = [&](int64_t k) -> const Part* {
    if (k < cc) return col_parts + (col_base + k * NB + loc) * W;
    k -= cc;
    if (!p.upper) return row_parts + ((rb * (rb - 1) / 2 + k) * NB + loc) * W;
    const int64_t c = rb + 1 + k;
    return row_parts + ((c * (c - 1) / 2 + rb) * NB + loc) * W;
  };
  const int64_t items = cc + rc;
  const int64_t k0 = items * part / P;
  int64_t k1 = items * (part + 1) / P;
  if constexpr (TAGGED) {
    // The main kernel stores parts only for rows inside [0, n): the rows of the last block
    // row past n (and, with an offset, before 0) have none to wait for.
    const int64_t i = rb * NB + loc - p.row_shift;
    if (i < 0 || i >= p.n) k1 = k0;
  } else {
    wait_for_preceding_kernel();
  }
  T s = zero<T>();
  constexpr int kBatch = 8;
  for (int64_t k = k0; k < k1; k += kBatch) {
    if constexpr (TAGGED) {
      TaggedWords<T> w[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (k + u < k1) w[u] = load_tagged<T>(part_ptr(k + u));
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (k + u < k1) s = add(s, await_tagged<T>(part_ptr(k + u), w[u], p.part_tag));
    } else {
      T v[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) v[u] = k + u < k1 ? __ldcg(part_ptr(k + u)) : zero<T>();
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (k + u < k1) s = add(s, v[u]);
    }
  }
  sums[part][r] = s;
  __syncthreads();
  if (part == 0) {
    T sum = sums[0][r];
#pragma unroll
    for (int q = 1; q < P; ++q) sum = add(sum, sums[q][r]);
    const int64_t i = rb * NB + loc - p.row_shift;
    if (i >= 0 && i < p.n)
      store_result(p.y + i * p.incy, p.scalars.get_alpha(), p.scalars.get_beta(), sum);
  }
  // Every load of this block has been used (the barrier above): the first row of each line
  // drops the lines of its range, after y is stored.
  if (kOwnsLines && discard_parts && r % kRowsPerLine == 0)
    for (int64_t k = k0; k < k1; ++k) discard_l2_line(part_ptr(k));
}

template <typename T, int NB, int Q, bool HERM, int STAGES = 0>
struct SymvFamily {
  // Dynamic shared memory of the staged kernel: its stages, the last one large enough for
  // col_sums (the diagonal tile's NB rows with kDiagInSmem, else TX rows).
  static constexpr int kColSumRows = symv_diag_in_smem<T, HERM>() ? NB : NB / kVecWidth<T>;
  static constexpr int kStageBytes =
      STAGES == 0 ? 0
                  : (STAGES - 1) * NB * NB * int(sizeof(T)) +
                        std::max(NB * NB, kColSumRows * (NB + 1)) * int(sizeof(T));
  // Per device and kernel (untagged, tagged): the staged kernel's shared-memory limit set.
  static inline DeviceFlags stage_limit_raised_[2];
  // The float instances' deterministic mode can tag its parts (symv_reduce_kernel).
  static constexpr bool kTaggable = std::is_same_v<T, float>;
  static int64_t tiles(const Blas2Call& c) { return (c.n + c.row_shift + NB - 1) / NB; }
  static int64_t panels(const Blas2Call& c) { return tiles(c); }
  static int64_t split_units(const Blas2Call& c) { return tiles(c); }
  static int64_t chunks_max(const Blas2Call& c, int s) { return (tiles(c) + s - 1) / s; }
  static int64_t part_count(const Blas2Call& c, int s) {
    if (s < 1) s = 1;
    const int64_t nt = tiles(c);
    return (nt * chunks_max(c, s) + nt * (nt - 1) / 2) * NB;
  }
  static size_t workspace_bytes(const Blas2Call& c, int s) {
    return size_t(part_count(c, s)) * sizeof(T);
  }
  // Bytes of tagged parts for this call, or 0 where the parts are not to be tagged: other
  // element types, and parts of a quarter of L2 or more, which the untagged reduction drops
  // from L2 once read (a tagged word is never dropped: its line's older copy in DRAM could
  // carry a tag again after the tags wrap).
  static size_t tagged_workspace_bytes(const Blas2Call& c, int s, size_t l2_bytes) {
    if (!kTaggable) return 0;
    const size_t bytes = size_t(part_count(c, s)) * kTaggedWords<T> * sizeof(uint64_t);
    return bytes * 4 < l2_bytes ? bytes : 0;
  }
  static cudaError_t launch(const Blas2Call& call, const Blas2Plan& plan) {
    if constexpr (kTaggable) {
      if (!plan.atomics && plan.part_tag != 0) return launch_with<true>(call, plan);
    }
    return launch_with<false>(call, plan);
  }

 private:
  template <bool TAGGED>
  static cudaError_t launch_with(const Blas2Call& call, const Blas2Plan& plan) {
    using Part = SymvPart<T, TAGGED>;
    const int s = plan.y_split < 1 ? 1 : plan.y_split;
    const int64_t nt = tiles(call);
    SymvKernelParams<T, TAGGED> p;
    p.row_shift = call.row_shift;
    p.lda = call.lda;
    p.B = static_cast<const T*>(call.A) - call.row_shift * (1 + call.lda);
    p.n = call.n;
    p.upper = call.upper;
    p.tiles_per_block = s;
    p.chunks_max = int(chunks_max(call, s));
    p.x = static_cast<const T*>(call.x);
    p.incx = call.incx;
    p.y = static_cast<T*>(call.y);
    p.incy = call.incy;
    p.scalars = scalars_of<T>(call);
    p.atomic = plan.atomics;
    Part* const parts = static_cast<Part*>(plan.workspace);
    p.col_parts = reinterpret_cast<T*>(parts);
    p.row_parts = reinterpret_cast<T*>(parts + nt * p.chunks_max * NB * (TAGGED ? kTaggedWords<T> : 1));
    if constexpr (TAGGED) p.part_tag = plan.part_tag;
    // Checked before anything is launched, so that a refused call leaves y as it was.
    if (nt > kMaxGridDimY) return cudaErrorInvalidConfiguration;  // n > 2M: A would not fit in memory
    if (p.atomic) {
      const cudaError_t e = launch_scale_vector(call.n, p.y, p.incy, p.scalars, plan.stream);
      if (e != cudaSuccess) return e;
    }
    const dim3 grid(unsigned(p.chunks_max), unsigned(nt));
    const dim3 block(NB / kVecWidth<T>, Q);
    void (*kernel)(SymvKernelParams<T, TAGGED>) = call.vector_loads
                                        ? symv_kernel<T, NB, Q, true, HERM, STAGES, TAGGED>
                                        : symv_kernel<T, NB, Q, false, HERM, 0, TAGGED>;
    // Only the 16-byte aligned kernel is staged (the other takes the register path).
    size_t smem = 0;
    if (STAGES > 0 && call.vector_loads) {
      const cudaError_t attr =
          allow_dynamic_shared_memory(symv_kernel<T, NB, Q, true, HERM, STAGES, TAGGED>,
                                      kStageBytes, stage_limit_raised_[TAGGED ? 1 : 0]);
      if (attr != cudaSuccess) return attr;
      smem = size_t(kStageBytes);
    }
    // Atomics mode: a programmatic dependent of the beta pre-pass, whose launch gap and run
    // it then overlaps with its loads of A.
    cudaError_t e;
    if (p.atomic) {
      e = launch_dependent_shared(kernel, grid, block, smem, plan.stream, p);
    } else {
      kernel<<<grid, block, smem, plan.stream>>>(p);
      e = cudaGetLastError();
    }
    if (e != cudaSuccess || p.atomic) return e;
    const unsigned reduce_blocks = unsigned(nt * (NB / symv_reduce_rows<T, NB>()));
    // The parts' lines can be dropped where they start on a 128-byte boundary (a part is a
    // whole number of lines): not so in a workspace the caller gave with less alignment.
    // Only partials of a quarter of L2 or more are dropped (see symv_reduce_kernel).
    const bool discard_parts = !TAGGED && reinterpret_cast<uintptr_t>(p.col_parts) % 128 == 0 &&
                               workspace_bytes(call, s) * 4 >= plan.l2_bytes;
    return launch_dependent(symv_reduce_kernel<T, NB, TAGGED>, dim3(reduce_blocks),
                            dim3(symv_reduce_threads<T, NB>()), plan.stream, p, discard_parts);
  }
};

}  // namespace aegis::blas2
