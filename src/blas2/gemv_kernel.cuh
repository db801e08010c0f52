// GEMV kernel templates: y = alpha op(A) x + beta y for column-major A (m x n).
//
//   gemv_n_kernel<T, NB, Q, VEC, CLUSTER>   op = N. A thread block owns NB rows (one vector of
//       kVecWidth<T> rows per thread, NB / V threads down the rows) and Q thread columns
//       that walk interleaved columns, U columns at a time (U independent 16-byte loads in
//       flight per thread). Y blocks split the columns of one row panel.
//   gemv_t_kernel<T, NB, Q, VEC, CONJ, CLUSTER, INGRID>   op = T or C. A thread block owns NB
//       columns, Q warps of NB / Q columns each; a warp reads its columns down the rows
//       together (every lane one vector per column, so one load of x serves NB / Q columns)
//       and reduces with shuffles. Y blocks split the rows; the grid runs panel by panel.
//
// VEC: 16-byte loads (A - row_shift aligned, lda a multiple of the vector width); otherwise
// the same thread layout with element loads. Vectors that cross the first or last row of
// the matrix are always loaded element by element, so no element outside the m x n window
// (padding rows, rows before an offset block) is ever read.
//
// Partial sums of the Y blocks of one panel meet as Combine says: atomics (into y scaled by
// beta first: by a pre-pass kernel, or by the grid's own first blocks in the N kernel and the
// INGRID T kernels, scale_y_slice), an ordered reduction by the last block to arrive
// (per-panel counter, left at zero again), or, in the CLUSTER kernels (Combine::Cluster,
// nothing else), an ordered sum in the shared memory of the panel's first block, the Y blocks
// being one cluster. The TAGGED kernels (ordered sums outside graphs, where the parts fit a
// quarter of L2) store their partials as tagged words (store_tagged) and exit;
// gemv_tagged_reduce_kernel, launched behind them, adds each output's parts as they land, in
// the same order as the last block would (the same bits). The cluster code is a template
// branch of its own: compiled into every kernel, it moved ptxas's register allocation of the
// others (sgemv T nb64_q8 spilled).
#pragma once

#include <algorithm>
#include <type_traits>

#include "blas2/blas2_common.cuh"
#include "blas2/cluster_sum.cuh"
#include "common/grid_limits.h"

namespace aegis::blas2 {

// Columns per thread per step of the N kernel (loads in flight per thread).
constexpr int kGemvNUnroll = 4;
// Vector loads of A in flight per lane in the T kernel's grouped steps: a warp of C columns
// takes its full steps in groups of kGemvTSteps<C> = kGemvTLoads / C, every load of a group
// issued before its FMAs (ptxas unrolls a plain loop by 4 behind a one-step remainder loop
// and keeps ~3 of the unrolled loads ahead). C < 4: the double complex kernels and the
// nb8_q4 instances of s, d, c (two columns per warp, for small calls).
// Measured (docs/blas2.md, v20): zgemv T 1792 0.95-0.97 -> 0.98-1.00x cuBLAS, 4096 +2 %;
// 8 loads (groups for C = 4 too) raised registers 40 -> 80-126 and cost up to a third
// (zgemv T 6784, dgemv T 1792, cgemv T 1792); 2 loads gained nothing.
constexpr int kGemvTLoads = 4;
template <int C>
constexpr int kGemvTSteps = C >= kGemvTLoads ? 1 : kGemvTLoads / C;
// The N kernel's blocks of 32 thread columns or more sum them in groups of this many first.
constexpr int kGemvNSumGroup = 8;
// Atomics mode without the pre-pass: blocks that scale y by beta (scale_y_slice).
constexpr int kScaleYBlocks = 8;
// Double complex (16-byte elements, one per thread and column): the next group's loads are
// issued unconditionally and the N kernel is compiled for four 256-thread blocks per SM (64
// registers), twice the loads in flight per SM. Measured on the H200 (docs/blas2.md, v6):
// zgemv N 92-94.5 % -> 96-99 % of the bandwidth at n >= 8192 (the unconditional loads alone,
// at the old occupancy, gave 88-92 %). The same pair for double moved dgemv N both ways by up
// to 5 points, so the other precisions keep the conditional loads and free registers.
template <typename T>
constexpr bool kGemvNDeepPrefetch = sizeof(T) == 16;
// The float cluster kernels are held to 64 registers, as they compiled before the N kernel's
// parameters grew (GemvNParams): ptxas then took 66, allocated as 72, one block fewer per SM.
// 0: no minimum, the compiler's choice (the other precisions' SASS is unchanged by it).
// Blocks of more than 256 threads (wide enough to serve a panel alone, without split sums):
// 64 registers, two such blocks per SM, which also keeps their clusters of 16 (the tests'
// forced splits) within 8 SMs.
template <typename T, int THREADS, bool CLUSTER>
constexpr int kGemvNMinBlocks = THREADS > 256                          ? 65536 / (64 * THREADS)
                                : kGemvNDeepPrefetch<T>                 ? 4
                                : CLUSTER && std::is_same_v<T, float> ? 65536 / (64 * THREADS)
                                                                      : 0;

template <typename T>
struct GemvParams {
  const T* A;  // A - row_shift (aligned when VEC)
  int64_t lda;
  int row_shift;
  int64_t m, n;
  const T* x;
  int64_t incx;
  T* y;
  int64_t incy;
  Scalars<T> scalars;
  Combine combine;
  T* partials;  // Ordered: split rows of (m for N, n for T) partial sums
  unsigned* counters;
};

// The N kernel's parameters. (A struct of its own: when the T kernels' parameters merely grew
// by these fields, ptxas moved their register counts by up to 47, e.g. 80 -> 127.)
template <typename T>
struct GemvNParams : GemvParams<T> {
  // Columns per split block, a multiple of Q x kGemvNUnroll where that leaves no block
  // empty (the last block takes the rest), so that only the last block has a tail loop.
  int64_t cols_per;
  // Atomic: null where y was scaled by the pre-pass kernel (this grid is its programmatic
  // dependent); otherwise the grid's first scale_blocks blocks scale it and count themselves
  // in at *y_scaled, and every block waits for y_target there (scale_y_slice).
  unsigned* y_scaled;
  unsigned y_target;
  int scale_blocks;
};

// The T kernel's parameters: GemvParams, or with INGRID (atomics mode scaling y in the grid:
// small double and complex calls, GemvT::kInGrid) the scaled-y count as in GemvNParams. The
// kernels without it keep the plain struct: grown parameters alone moved the T kernels'
// register counts (see GemvNParams).
template <typename T>
struct GemvTInGridParams : GemvParams<T> {
  unsigned* y_scaled;
  unsigned y_target;
  int scale_blocks;
};
// The TAGGED kernels' parameters: the call's tag (a struct of their own, as above).
template <typename T>
struct GemvNTaggedParams : GemvNParams<T> {
  unsigned part_tag;
};
template <typename T>
struct GemvTTaggedParams : GemvParams<T> {
  unsigned part_tag;
};
template <typename T, bool TAGGED>
using GemvNKernelParams = std::conditional_t<TAGGED, GemvNTaggedParams<T>, GemvNParams<T>>;
template <typename T, bool INGRID, bool TAGGED = false>
using GemvTParams =
    std::conditional_t<TAGGED, GemvTTaggedParams<T>,
                       std::conditional_t<INGRID, GemvTInGridParams<T>, GemvParams<T>>>;

// Adds the tagged parts of each output element (TAGGED kernels) in the order ordered_sum
// adds them (so a call gives the same bits on either path). A block of kTaggedReduceThreads
// threads serves kTaggedReduceElements elements with kTaggedReduceLanes threads each: a pass
// takes up to kTaggedReduceLanes x kTaggedReduceBatch parts of every element, each thread
// waits for a batch of them (all its loads in flight, then await_tagged) and puts them in
// shared memory, and the element's first thread adds them in split order. The grid is a
// programmatic dependent of the GEMV grid, which lets it launch once all its blocks have
// started, so the sums overlap that grid's last blocks: each part is waited for by its tag,
// not by the end of the grid.
template <typename T>
struct GemvTaggedReduceParams {
  const uint64_t* words;  // parts [split][count], kTaggedWords<T> words each
  int64_t count;          // output elements (m for N, n for T)
  int split;
  unsigned tag;
  T* y;
  int64_t incy;
  Scalars<T> scalars;
};
constexpr int kTaggedReduceThreads = 256;
constexpr int kTaggedReduceLanes = 8;
constexpr int kTaggedReduceBatch = 8;
constexpr int kTaggedReduceElements = kTaggedReduceThreads / kTaggedReduceLanes;

template <typename T>
__global__ void __launch_bounds__(kTaggedReduceThreads)
    gemv_tagged_reduce_kernel(GemvTaggedReduceParams<T> p) {
  constexpr int R = kTaggedReduceElements;
  constexpr int kPass = kTaggedReduceLanes * kTaggedReduceBatch;  // parts per pass
  constexpr int W = kTaggedWords<T>;
  __shared__ T parts[kPass][R];
  // Consecutive threads take consecutive elements: a warp's loads of one part are contiguous.
  const int r = threadIdx.x % R, lane = threadIdx.x / R;
  const int64_t i = int64_t(blockIdx.x) * R + r;
  const bool mine = i < p.count;
  const int64_t stride = p.count * W;  // words from one split's part to the next
  T s = zero<T>();
  for (int first = 0; first < p.split; first += kPass) {
    const int k0 = first + lane * kTaggedReduceBatch;
    if (mine && k0 < p.split) {
      const int batch = min(kTaggedReduceBatch, p.split - k0);
      const uint64_t* const at = p.words + int64_t(k0) * stride + i * W;
      TaggedWords<T> w[kTaggedReduceBatch];
#pragma unroll
      for (int u = 0; u < kTaggedReduceBatch; ++u)
        if (u < batch) w[u] = load_tagged<T>(at + u * stride);
#pragma unroll
      for (int u = 0; u < kTaggedReduceBatch; ++u)
        if (u < batch)
          parts[lane * kTaggedReduceBatch + u][r] = await_tagged<T>(at + u * stride, w[u], p.tag);
    }
    __syncthreads();
    if (lane == 0 && mine) {
      const int count = min(kPass, p.split - first);
      for (int k = 0; k < count; ++k) s = add(s, parts[k][r]);
    }
    __syncthreads();
  }
  if (lane == 0 && mine)
    store_result(p.y + i * p.incy, p.scalars.get_alpha(), p.scalars.get_beta(), s);
}

// Bytes of tagged parts for `split` parts of `count` elements, or 0 where they are not to be
// tagged: no split, or parts of a quarter of L2 or more (as SYMV's).
template <typename T>
size_t gemv_tagged_bytes(int split, int64_t count, size_t l2_bytes) {
  if (split <= 1) return 0;
  const size_t bytes = size_t(split) * size_t(count) * kTaggedWords<T> * sizeof(uint64_t);
  return bytes * 4 < l2_bytes ? bytes : 0;
}

template <typename T, int NB, int Q, bool VEC, bool CLUSTER, bool TAGGED = false>
__global__ void __launch_bounds__(NB / kVecWidth<T> * Q,
                                  kGemvNMinBlocks<T, NB / kVecWidth<T> * Q, CLUSTER>)
    gemv_n_kernel(GemvNKernelParams<T, TAGGED> p) {
  static_assert(!(CLUSTER && TAGGED), "one way for the split sums");
  constexpr int V = kVecWidth<T>;
  constexpr int TX = NB / V;
  constexpr int U = kGemvNUnroll;
  __shared__ T partial_rows[Q][NB];  // (Q, NB): each thread column's sums of the panel rows

  const int tx = threadIdx.x, ty = threadIdx.y;
  // TAGGED: the reduction grid may launch once every block of this grid has started.
  if constexpr (TAGGED) allow_dependent_launch();
  const int64_t phys0 = int64_t(blockIdx.x) * NB + tx * V;  // first row relative to p.A
  const int64_t first = phys0 - p.row_shift;               // its logical row
  // (The cluster kernels divide as before: reading cols_per moved their allocation past a
  // register-granule boundary, 2 blocks per SM instead of 3 for double.)
  const int64_t cols_per = CLUSTER ? (p.n + gridDim.y - 1) / gridDim.y : p.cols_per;
  const int64_t c0 = int64_t(blockIdx.y) * cols_per;
  const int64_t c1 = min(p.n, c0 + cols_per);
  __shared__ uint64_t cluster_barrier;
  extern __shared__ __align__(16) unsigned char cluster_slots[];
  if constexpr (CLUSTER) {
    const int64_t panel_first = int64_t(blockIdx.x) * NB - p.row_shift;  // logical row
    const int64_t rows = min(p.m, panel_first + NB) - max(int64_t(0), panel_first);
    cluster_sum_begin(&cluster_barrier, uint32_t((gridDim.y - 1) * rows * sizeof(T)));
  } else if (p.combine == Combine::Atomic && p.y_scaled) {
    const int64_t block = blockIdx.x + int64_t(blockIdx.y) * gridDim.x;
    if (block < p.scale_blocks)
      scale_y_slice(p.y, p.m, p.incy, p.scalars.get_beta(), int(block), p.scale_blocks, p.y_scaled);
  }
  // Atomics mode without the pre-pass: thread 0's acquire load of the scaled-y count, issued
  // after the block's first loads (0 if none: the wait then loads it).
  const bool await_y = !CLUSTER && p.combine == Combine::Atomic && p.y_scaled &&
                       threadIdx.x == 0 && threadIdx.y == 0;
  unsigned y_seen = 0;

  T acc[V];
#pragma unroll
  for (int v = 0; v < V; ++v) acc[v] = zero<T>();
  const T* a_rows = p.A + phys0;
  // Whether this thread's V rows all lie in [0, m) does not change along the columns: test
  // it once, so the loop over the columns has no branch between its loads (all U in flight).
  const bool full = first >= 0 && first + V <= p.m;
  int64_t j = c0 + ty;
  if (full) {
    // Groups of U columns (U loads each), two register buffers used in turn: the next
    // group's loads are issued before the current group's multiply-adds (left to itself,
    // ptxas consumes the first load of a group before issuing the third). With
    // kGemvNDeepPrefetch the loads are unconditional: past the last full group they read the
    // group just read again (valid, and in L2). Under the branch, ptxas lands the double
    // complex vectors in temporaries and copies them out right after the loads, so the copies
    // wait for the loads before the previous group's multiply-adds (ncu, docs/blas2.md v6).
    auto load_group = [&](int64_t jj, Vec<T, V>(&a)[U], T(&xj)[U]) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        a[u] = load_full<T, V, VEC>(a_rows + (jj + u * Q) * p.lda);
        xj[u] = __ldg(p.x + (jj + u * Q) * p.incx);
      }
    };
    auto fma_group = [&](const Vec<T, V>(&a)[U], const T(&xj)[U]) {
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[v] = mad(a[u].v[v], xj[u], acc[v]);
    };
    if (j + (U - 1) * Q < c1) {
      Vec<T, V> a0[U], a1[U];
      T x0[U], x1[U];
      load_group(j, a0, x0);
      if (await_y) y_seen = load_acquire(p.y_scaled);
      for (;;) {
        j += U * Q;
        const bool more = j + (U - 1) * Q < c1;
        if (kGemvNDeepPrefetch<T> || more)
          load_group(!more && kGemvNDeepPrefetch<T> ? j - U * Q : j, a1, x1);
        fma_group(a0, x0);
        if (!more) break;
        j += U * Q;
        const bool more2 = j + (U - 1) * Q < c1;
        if (kGemvNDeepPrefetch<T> || more2)
          load_group(!more2 && kGemvNDeepPrefetch<T> ? j - U * Q : j, a0, x0);
        fma_group(a1, x1);
        if (!more2) break;
      }
    }
    for (; j < c1; j += Q) {
      const Vec<T, V> a = load_full<T, V, VEC>(a_rows + j * p.lda);
      const T xj = __ldg(p.x + j * p.incx);
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = mad(a.v[v], xj, acc[v]);
    }
  } else {
    // Rows at the first or last row of the matrix: element by element, masked.
    for (; j < c1; j += Q) {
      const Vec<T, V> a = load_rows<T, V, false>(a_rows + j * p.lda, first, p.m);
      const T xj = __ldg(p.x + j * p.incx);
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = mad(a.v[v], xj, acc[v]);
    }
  }
#pragma unroll
  for (int v = 0; v < V; ++v) partial_rows[ty][tx * V + v] = acc[v];
  __syncthreads();

  // Each thread sums the Q thread columns of RPT rows of the panel. With many thread columns
  // (the wide blocks made to serve a panel alone, no split), groups of kGemvNSumGroup columns
  // are summed first by more threads, then the groups in order: the same order every call.
  constexpr int kThreads = TX * Q;
  constexpr int RPT = (NB + kThreads - 1) / kThreads;
  const int tid = tx + ty * TX;
  constexpr int kGroups = Q >= 4 * kGemvNSumGroup ? Q / kGemvNSumGroup : 1;
  static_assert(kGroups == 1 || (Q % kGemvNSumGroup == 0 && NB * kGroups <= kThreads),
                "grouped column sums: one thread per (row, group)");
  __shared__ T group_rows[kGroups][NB];
  if constexpr (kGroups > 1) {
    if (tid < NB * kGroups) {
      const int r = tid % NB, g = tid / NB;
      T s = zero<T>();
#pragma unroll
      for (int q = 0; q < kGemvNSumGroup; ++q) s = add(s, partial_rows[g * kGemvNSumGroup + q][r]);
      group_rows[g][r] = s;
    }
    __syncthreads();
  }
  const T alpha = p.scalars.get_alpha();
  T sum[RPT];
  int64_t row[RPT];
#pragma unroll
  for (int k = 0; k < RPT; ++k) {
    const int r = tid + k * kThreads;
    sum[k] = zero<T>();
    row[k] = -1;
    if (r < NB) {
      if constexpr (kGroups > 1) {
#pragma unroll
        for (int g = 0; g < kGroups; ++g) sum[k] = add(sum[k], group_rows[g][r]);
      } else {
#pragma unroll
        for (int q = 0; q < Q; ++q) sum[k] = add(sum[k], partial_rows[q][r]);
      }
      const int64_t i = int64_t(blockIdx.x) * NB + r - p.row_shift;
      if (i >= 0 && i < p.m) row[k] = i;
    }
  }
  if constexpr (CLUSTER) {
    cluster_sum_ready();
    const ClusterSum cs{&cluster_barrier, cluster_slots};
    const T beta = p.scalars.get_beta();
#pragma unroll
    for (int k = 0; k < RPT; ++k) {
      if (row[k] < 0) continue;
      const int r = tid + k * kThreads;
      if (blockIdx.y != 0)
        cluster_sum_push(cs, NB, r, sum[k]);
      else
        store_result(p.y + row[k] * p.incy, alpha, beta,
                     cluster_sum_collect(cs, NB, r, int(gridDim.y), sum[k]));
    }
  } else if constexpr (TAGGED) {
    uint64_t* const words = reinterpret_cast<uint64_t*>(p.partials);
#pragma unroll
    for (int k = 0; k < RPT; ++k)
      if (row[k] >= 0)
        store_tagged(words + (int64_t(blockIdx.y) * p.m + row[k]) * kTaggedWords<T>, sum[k],
                     p.part_tag);
  } else if (p.combine == Combine::Direct || gridDim.y == 1) {
    const T beta = p.scalars.get_beta();
#pragma unroll
    for (int k = 0; k < RPT; ++k)
      if (row[k] >= 0) store_result(p.y + row[k] * p.incy, alpha, beta, sum[k]);
  } else if (p.combine == Combine::Atomic) {
    if (p.y_scaled) {  // y scaled by this grid's first blocks
      if (await_y) wait_for_scaled_y(p.y_scaled, p.y_target, y_seen);
      __syncthreads();
    } else {
      wait_for_preceding_kernel();  // y scaled by the pre-pass (this grid may have started before)
    }
#pragma unroll
    for (int k = 0; k < RPT; ++k)
      if (row[k] >= 0 && !is_zero(alpha)) atomic_add(p.y + row[k] * p.incy, mul(alpha, sum[k]));
  } else {
#pragma unroll
    for (int k = 0; k < RPT; ++k)
      if (row[k] >= 0) p.partials[int64_t(blockIdx.y) * p.m + row[k]] = sum[k];
    if (arrive_last(p.counters + blockIdx.x, gridDim.y)) {
      const T beta = p.scalars.get_beta();
#pragma unroll
      for (int k = 0; k < RPT; ++k)
        if (row[k] >= 0)
          store_result(p.y + row[k] * p.incy, alpha, beta,
                       ordered_sum(p.partials + row[k], p.m, int(gridDim.y)));
    }
  }
}

template <typename T, int NB, int Q, bool VEC, bool CONJ, bool CLUSTER, bool INGRID,
          bool TAGGED = false>
__global__ void __launch_bounds__(Q * 32) gemv_t_kernel(GemvTParams<T, INGRID, TAGGED> p) {
  static_assert(!(CLUSTER && INGRID), "a cluster's sums need no atomics");
  static_assert(!(TAGGED && (CLUSTER || INGRID)), "tagged sums are the deterministic mode's");
  constexpr int V = kVecWidth<T>;
  constexpr int C = NB / Q;  // columns per warp
  const int lane = threadIdx.x, warp = threadIdx.y;
  // Panel-major grid: the split chunks of one panel are consecutive blocks (blockIdx.x), the
  // panels follow (blockIdx.y, then blockIdx.z past 65535 panels). The blocks resident at one
  // time then read a band of neighbouring columns that moves through A. With the panels in
  // x, every wave read a few rows of every column at once (all of A's pages together):
  // dgemv T at n = 16384 ran at 91 % of the read bandwidth against 98 % now.
  // (Read from the grid registers where used, not held across the loop: registers.)
  auto panel = [] { return int64_t(blockIdx.y) + int64_t(blockIdx.z) * gridDim.y; };
  const int split = int(gridDim.x);
  if (panel() * NB >= p.n) return;  // the last z slice of panels may be partial (whole clusters)
  // TAGGED: the reduction grid may launch once every block of this grid has started.
  if constexpr (TAGGED) allow_dependent_launch();
  __shared__ uint64_t cluster_barrier;
  extern __shared__ __align__(16) unsigned char cluster_slots[];
  if constexpr (CLUSTER) {
    const int64_t cols = min(int64_t(NB), p.n - panel() * NB);
    cluster_sum_begin(&cluster_barrier, uint32_t((split - 1) * cols * sizeof(T)));
  }
  // In-grid scaling of y (as in the N kernel): thread 0's acquire load of the count is issued
  // after the first full step's loads.
  [[maybe_unused]] unsigned y_seen = 0;
  if constexpr (INGRID) {
    const int64_t block = blockIdx.x + int64_t(split) * panel();
    if (block < p.scale_blocks)
      scale_y_slice(p.y, p.n, p.incy, p.scalars.get_beta(), int(block), p.scale_blocks, p.y_scaled);
  }
  const int64_t col0 = panel() * NB + warp * C;
  // Rows of this block (relative to p.A, which may start row_shift rows early): a whole
  // number of warp-wide steps of kStep rows.
  const int64_t phys_rows = p.m + p.row_shift;
  constexpr int kStep = 32 * V;
  const int64_t steps = (phys_rows + kStep - 1) / kStep;
  const int64_t steps_per = (steps + split - 1) / split;
  const int64_t chunk = blockIdx.x;
  const int64_t s0 = chunk * steps_per;
  const int64_t s1 = min(steps, s0 + steps_per);
  // Steps whose rows all lie in [0, m): [in0, in1) (the first step is partial when
  // row_shift > 0, the last when m + row_shift is not a multiple of kStep). Their loads
  // are branch-free, so the C loads of a step are in flight together; the at most two
  // partial steps are masked element by element.
  const int64_t in0 = min(s1, max(s0, int64_t(p.row_shift > 0 ? 1 : 0)));
  const int64_t in1 = max(in0, min(s1, phys_rows / kStep));

  // Columns past n repeat the last column (their results are dropped): no branch per load.
  const T* a_col[C];
#pragma unroll
  for (int c = 0; c < C; ++c) a_col[c] = p.A + min(col0 + c, p.n - 1) * p.lda + lane * V;
  const T* x_lane = p.x + (int64_t(lane) * V - p.row_shift) * p.incx;  // logical row lane V - shift
  T acc[C];
#pragma unroll
  for (int c = 0; c < C; ++c) acc[c] = zero<T>();

  auto edge_step = [&](int64_t s) {
    const int64_t r = s * kStep;  // physical row of lane 0
    const int64_t first = r + lane * V - p.row_shift;
    Vec<T, V> a[C];
#pragma unroll
    for (int c = 0; c < C; ++c) a[c] = load_rows<T, V, false>(a_col[c] + r, first, p.m);
    T xr[V];
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const int64_t i = first + v;
      xr[v] = (i >= 0 && i < p.m) ? __ldg(p.x + i * p.incx) : zero<T>();
    }
#pragma unroll
    for (int c = 0; c < C; ++c)
#pragma unroll
      for (int v = 0; v < V; ++v) acc[c] = mad(conj_if(a[c].v[v], CONJ), xr[v], acc[c]);
  };

  for (int64_t s = s0; s < in0; ++s) edge_step(s);
  // The full steps. Kernels of fewer than kGemvTLoads columns per warp take them in groups
  // of U, every load of a group issued before its FMAs (same order of additions, same bits);
  // the others keep the plain loop, exactly as before (with INGRID its first step peeled,
  // its loads followed by the acquire load; any change to that loop moved their SASS).
  constexpr int U = kGemvTSteps<C>;
  if constexpr (U > 1) {
    // count (<= U) steps from s; first: the block's first group (INGRID's acquire load).
    auto group = [&](int64_t s, int count, bool first) {
      Vec<T, V> a[U][C];
      T xr[U][V];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (u < count) {
          const int64_t r = (s + u) * kStep;
#pragma unroll
          for (int c = 0; c < C; ++c) a[u][c] = load_full<T, V, VEC>(a_col[c] + r);
          const T* xp = x_lane + r * p.incx;
#pragma unroll
          for (int v = 0; v < V; ++v) xr[u][v] = __ldg(xp + v * p.incx);
        }
      }
      if constexpr (INGRID) {
        if (first && lane == 0 && warp == 0) y_seen = load_acquire(p.y_scaled);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (u < count) {
#pragma unroll
          for (int c = 0; c < C; ++c)
#pragma unroll
            for (int v = 0; v < V; ++v) acc[c] = mad(conj_if(a[u][c].v[v], CONJ), xr[u][v], acc[c]);
        }
      }
    };
    // The odd steps first, so that a block of fewer than U steps has them all in flight at once.
    int64_t s = in0;
    const int odd = int((in1 - in0) % U);
    if (odd > 0) group(s, odd, true);
    s += odd;
    for (; s < in1; s += U) group(s, U, s == in0);
  } else if constexpr (INGRID) {
    auto full_step = [&](int64_t s, bool first) {
      const int64_t r = s * kStep;
      Vec<T, V> a[C];
#pragma unroll
      for (int c = 0; c < C; ++c) a[c] = load_full<T, V, VEC>(a_col[c] + r);
      T xr[V];
      const T* xp = x_lane + r * p.incx;
#pragma unroll
      for (int v = 0; v < V; ++v) xr[v] = __ldg(xp + v * p.incx);
      if (first && lane == 0 && warp == 0) y_seen = load_acquire(p.y_scaled);
#pragma unroll
      for (int c = 0; c < C; ++c)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[c] = mad(conj_if(a[c].v[v], CONJ), xr[v], acc[c]);
    };
    int64_t s = in0;
    if (s < in1) full_step(s++, true);
    for (; s < in1; ++s) full_step(s, false);
  } else {
    for (int64_t s = in0; s < in1; ++s) {
      const int64_t r = s * kStep;
      Vec<T, V> a[C];
#pragma unroll
      for (int c = 0; c < C; ++c) a[c] = load_full<T, V, VEC>(a_col[c] + r);
      T xr[V];
      const T* xp = x_lane + r * p.incx;
#pragma unroll
      for (int v = 0; v < V; ++v) xr[v] = __ldg(xp + v * p.incx);
#pragma unroll
      for (int c = 0; c < C; ++c)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[c] = mad(conj_if(a[c].v[v], CONJ), xr[v], acc[c]);
    }
  }
  for (int64_t s = in1; s < s1; ++s) edge_step(s);
#pragma unroll
  for (int c = 0; c < C; ++c)
#pragma unroll
    for (int o = 16; o > 0; o /= 2) acc[c] = add(acc[c], shfl_xor(acc[c], o));

  // Lane c of each warp takes column c.
  T sum = zero<T>();
#pragma unroll
  for (int c = 0; c < C; ++c)
    if (lane == c) sum = acc[c];
  const int64_t col = col0 + lane;
  const bool owner = lane < C && col < p.n;
  const T alpha = p.scalars.get_alpha();
  if constexpr (CLUSTER) {
    cluster_sum_ready();
    const ClusterSum cs{&cluster_barrier, cluster_slots};
    if (chunk != 0) {
      if (owner) cluster_sum_push(cs, NB, warp * C + lane, sum);
    } else if (owner) {
      store_result(p.y + col * p.incy, alpha, p.scalars.get_beta(),
                   cluster_sum_collect(cs, NB, warp * C + lane, split, sum));
    }
  } else if constexpr (TAGGED) {
    if (owner)
      store_tagged(reinterpret_cast<uint64_t*>(p.partials) + (chunk * p.n + col) * kTaggedWords<T>,
                   sum, p.part_tag);
  } else if (p.combine == Combine::Direct || split == 1) {
    if (owner) store_result(p.y + col * p.incy, alpha, p.scalars.get_beta(), sum);
  } else if (p.combine == Combine::Atomic) {
    if constexpr (INGRID) {  // y scaled by this grid's first blocks
      if (lane == 0 && warp == 0) wait_for_scaled_y(p.y_scaled, p.y_target, y_seen);
      __syncthreads();
    } else {
      wait_for_preceding_kernel();  // y scaled by the pre-pass (this grid may have started before)
    }
    if (owner && !is_zero(alpha)) atomic_add(p.y + col * p.incy, mul(alpha, sum));
  } else {
    if (owner) p.partials[chunk * p.n + col] = sum;
    if (arrive_last(p.counters + panel(), unsigned(split)) && owner)
      store_result(p.y + col * p.incy, alpha, p.scalars.get_beta(),
                   ordered_sum(p.partials + col, p.n, int(split)));
  }
}

// ---- launchers --------------------------------------------------------------------------

// Launches a GEMV kernel: in atomics mode with the pre-pass as a programmatic dependent of it,
// so its loads of A overlap that kernel; with Combine::Cluster the blocks of one panel as a
// cluster of `cluster` blocks, with (cluster size - 1) x NB parts of shared memory.
// large_clusters: this kernel's flags for the non-portable cluster sizes (above 8).
template <typename T, typename P>
cudaError_t launch_gemv(void (*kernel)(P), dim3 grid, dim3 block, dim3 cluster, int nb,
                        cudaStream_t stream, const P& p, bool after_prepass,
                        DeviceFlags& large_clusters) {
  static_assert(std::is_base_of_v<GemvParams<T>, P>, "GEMV kernel parameters");
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  config.attrs = attribute;
  if (p.combine == Combine::Atomic && after_prepass) {
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    config.numAttrs = 1;
  } else if (p.combine == Combine::Cluster) {
    const unsigned size = cluster.x * cluster.y * cluster.z;
    if (size > 8) {
      const cudaError_t e = set_attribute_once(
          kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1, large_clusters);
      if (e != cudaSuccess) return e;
    }
    config.dynamicSmemBytes = size_t(size - 1) * size_t(nb) * sizeof(T);
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = cluster.x;
    attribute[0].val.clusterDim.y = cluster.y;
    attribute[0].val.clusterDim.z = cluster.z;
    config.numAttrs = 1;
  }
  return cudaLaunchKernelEx(&config, kernel, p);
}

template <typename T>
GemvParams<T> gemv_params(const Blas2Call& call, const Blas2Plan& plan, int64_t split) {
  GemvParams<T> p;
  p.A = static_cast<const T*>(call.A) - call.row_shift;
  p.lda = call.lda;
  p.row_shift = call.row_shift;
  p.m = call.m;
  p.n = call.n;
  p.x = static_cast<const T*>(call.x);
  p.incx = call.incx;
  p.y = static_cast<T*>(call.y);
  p.incy = call.incy;
  p.scalars = scalars_of<T>(call);
  p.combine = split <= 1           ? Combine::Direct
              : plan.atomics       ? Combine::Atomic
              : plan.cluster_sum   ? Combine::Cluster
                                   : Combine::Ordered;
  p.partials = static_cast<T*>(plan.workspace);
  p.counters = plan.counters;
  return p;
}

// Atomics mode: y scaled by the pre-pass kernel, or (plan.y_scaled) by the first blocks of a
// grid of `blocks` blocks (scale_y_slice); `count` elements of y.
template <typename T, typename P>
cudaError_t prepare_atomic_y(P& p, const Blas2Plan& plan, int64_t count, int64_t blocks) {
  if (!plan.y_scaled) return launch_scale_vector(count, p.y, p.incy, p.scalars, plan.stream);
  p.y_scaled = plan.y_scaled;
  p.scale_blocks = int(std::min<int64_t>(kScaleYBlocks, blocks));
  p.y_target = *plan.y_scaled_issued + unsigned(p.scale_blocks);
  return cudaSuccess;
}

// Launches gemv_tagged_reduce_kernel behind a TAGGED GEMV grid of parameters p: `split`
// parts of `count` elements.
template <typename T>
cudaError_t launch_tagged_reduce(const GemvParams<T>& p, unsigned tag, int64_t count, int split,
                                 cudaStream_t stream) {
  GemvTaggedReduceParams<T> r;
  r.words = reinterpret_cast<const uint64_t*>(p.partials);
  r.count = count;
  r.split = split;
  r.tag = tag;
  r.y = p.y;
  r.incy = p.incy;
  r.scalars = p.scalars;
  return launch_dependent(gemv_tagged_reduce_kernel<T>,
                          dim3(unsigned((count + kTaggedReduceElements - 1) / kTaggedReduceElements)),
                          dim3(kTaggedReduceThreads), stream, r);
}

// After the launch: the count the next call waits for starts from this call's target.
template <typename P>
void count_atomic_y(const P& p, const Blas2Plan& plan, cudaError_t launched) {
  if (p.y_scaled && launched == cudaSuccess) *plan.y_scaled_issued = p.y_target;
}

template <typename T, int NB, int Q>
struct GemvN {
  static int64_t panels(const Blas2Call& c) { return (c.m + c.row_shift + NB - 1) / NB; }
  static int64_t split_units(const Blas2Call& c) {
    return c.n < 1 ? 1 : (c.n + Q * kGemvNUnroll - 1) / (Q * kGemvNUnroll);
  }
  static size_t workspace_bytes(const Blas2Call& c, int y) {
    return y <= 1 ? 0 : size_t(y) * size_t(c.m) * sizeof(T);
  }
  static size_t tagged_workspace_bytes(const Blas2Call& c, int y, size_t l2_bytes) {
    return gemv_tagged_bytes<T>(y, c.m, l2_bytes);
  }
  // Columns per split block: a whole number of groups of Q x kGemvNUnroll columns, so that
  // only the last block runs the one-column tail loop (a split of 64 at n = 10112 gave 158
  // columns a block, 30 of them in the tail loop: 79 % of the bandwidth against 97 %).
  static int64_t cols_per_block(const Blas2Call& c, int64_t split) {
    const int64_t group = int64_t(Q) * kGemvNUnroll;
    const int64_t cols = (c.n + split - 1) / split;
    return std::max<int64_t>(1, (cols + group - 1) / group * group);
  }
  static cudaError_t launch(const Blas2Call& call, const Blas2Plan& plan) {
    int64_t split = plan.y_split < 1 ? 1 : plan.y_split;
    const int64_t cols_per = cols_per_block(call, split);
    split = std::max<int64_t>(1, (call.n + cols_per - 1) / cols_per);  // no empty blocks
    GemvNParams<T> p;
    static_cast<GemvParams<T>&>(p) = gemv_params<T>(call, plan, split);
    p.cols_per = cols_per;
    p.y_scaled = nullptr;
    p.y_target = 0;
    p.scale_blocks = 0;
    const dim3 grid(unsigned(panels(call)), unsigned(split));
    if (p.combine == Combine::Atomic) {
      const cudaError_t e = prepare_atomic_y<T>(p, plan, call.m, int64_t(grid.x) * grid.y);
      if (e != cudaSuccess) return e;
    }
    const dim3 block(NB / kVecWidth<T>, Q);
    if (p.combine == Combine::Ordered && plan.part_tag != 0) {  // tagged parts (dispatch)
      GemvNTaggedParams<T> t;
      static_cast<GemvNParams<T>&>(t) = p;
      t.part_tag = plan.part_tag;
      const cudaError_t e =
          launch_gemv<T>(pick_kernel<false, true>(call.vector_loads), grid, block,
                         dim3(1, unsigned(split)), NB, plan.stream, t, false, large_clusters_[0]);
      if (e != cudaSuccess) return e;
      return launch_tagged_reduce<T>(t, t.part_tag, call.m, int(split), plan.stream);
    }
    auto kernel = p.combine == Combine::Cluster ? pick_kernel<true>(call.vector_loads)
                                                : pick_kernel<false>(call.vector_loads);
    const cudaError_t e =
        launch_gemv<T>(kernel, grid, block, dim3(1, unsigned(split)), NB, plan.stream, p,
                       !p.y_scaled, large_clusters_[call.vector_loads ? 1 : 0]);
    count_atomic_y(p, plan, e);
    return e;
  }

 private:
  template <bool CLUSTER, bool TAGGED = false>
  static auto pick_kernel(bool vector_loads) {
    return vector_loads ? gemv_n_kernel<T, NB, Q, true, CLUSTER, TAGGED>
                        : gemv_n_kernel<T, NB, Q, false, CLUSTER, TAGGED>;
  }
  static inline DeviceFlags large_clusters_[2];  // per cluster kernel (element or vector loads)
};

template <typename T, int NB, int Q>
struct GemvT {
  // Atomics mode: double and complex calls whose matrix takes at most this many bytes scale y
  // in the grid (INGRID kernels) instead of in a pre-pass kernel, whose launch is a large part
  // of a short call; larger calls keep the pre-pass and the kernels without the in-grid code.
  // Measured (docs/blas2.md, v19): dgemv T 2048 0.98 -> 1.05x cuBLAS, cgemv T 1024 0.98 ->
  // 1.07x, zgemv T 2048 0.98 -> 1.00x; sgemv T lost 1-4 % at 1024-4096, so float keeps the
  // pre-pass.
  static constexpr bool kInGrid = sizeof(T) >= 8;
  static constexpr int64_t kInGridMaxBytes = int64_t(64) << 20;
  static int64_t panels(const Blas2Call& c) { return (c.n + NB - 1) / NB; }
  static int64_t split_units(const Blas2Call& c) {
    const int64_t step = 32 * kVecWidth<T>;
    return (c.m + c.row_shift + step - 1) / step;
  }
  static size_t workspace_bytes(const Blas2Call& c, int y) {
    return y <= 1 ? 0 : size_t(y) * size_t(c.n) * sizeof(T);
  }
  static size_t tagged_workspace_bytes(const Blas2Call& c, int y, size_t l2_bytes) {
    return gemv_tagged_bytes<T>(y, c.n, l2_bytes);
  }
  static cudaError_t launch(const Blas2Call& call, const Blas2Plan& plan) {
    const int64_t split = plan.y_split < 1 ? 1 : plan.y_split;
    const GemvParams<T> base = gemv_params<T>(call, plan, split);
    // Panel-major (see the kernel): split chunks in x, panels in y and z.
    const int64_t panel_count = panels(call);
    const int64_t gy = std::min<int64_t>(panel_count, kMaxGridDimY);
    const dim3 grid(unsigned(split), unsigned(gy), unsigned((panel_count + gy - 1) / gy));
    const dim3 block(32, Q);
    const bool conj = ScalarTraits<T>::kComplex && call.conj;
    DeviceFlags& flags = large_clusters_[(call.vector_loads ? 2 : 0) + (conj ? 1 : 0)];
    if constexpr (kInGrid) {
      if (base.combine == Combine::Atomic && plan.y_scaled &&
          call.m * call.n * int64_t(sizeof(T)) <= kInGridMaxBytes) {
        GemvTInGridParams<T> p;
        static_cast<GemvParams<T>&>(p) = base;
        p.y_scaled = nullptr;
        const cudaError_t prepared =
            prepare_atomic_y<T>(p, plan, call.n, int64_t(grid.x) * grid.y);
        if (prepared != cudaSuccess) return prepared;
        const cudaError_t e =
            launch_gemv<T>(pick_kernel<false, true>(call.vector_loads, conj), grid, block,
                           dim3(unsigned(split)), NB, plan.stream, p, false, flags);
        count_atomic_y(p, plan, e);
        return e;
      }
    }
    if (base.combine == Combine::Ordered && plan.part_tag != 0) {  // tagged parts (dispatch)
      GemvTTaggedParams<T> t;
      static_cast<GemvParams<T>&>(t) = base;
      t.part_tag = plan.part_tag;
      const cudaError_t e =
          launch_gemv<T>(pick_kernel<false, false, true>(call.vector_loads, conj), grid, block,
                         dim3(unsigned(split)), NB, plan.stream, t, false, flags);
      if (e != cudaSuccess) return e;
      return launch_tagged_reduce<T>(t, t.part_tag, call.n, int(split), plan.stream);
    }
    if (base.combine == Combine::Atomic) {
      const cudaError_t e =
          launch_scale_vector(call.n, base.y, base.incy, base.scalars, plan.stream);
      if (e != cudaSuccess) return e;
    }
    auto kernel = base.combine == Combine::Cluster
                      ? pick_kernel<true, false>(call.vector_loads, conj)
                      : pick_kernel<false, false>(call.vector_loads, conj);
    return launch_gemv<T>(kernel, grid, block, dim3(unsigned(split)), NB, plan.stream, base,
                          true, flags);
  }

 private:
  template <bool CLUSTER, bool INGRID, bool TAGGED = false>
  static auto pick_kernel(bool vector_loads, bool conj) {
    constexpr bool kComplex = ScalarTraits<T>::kComplex;
    return vector_loads
               ? (conj ? gemv_t_kernel<T, NB, Q, true, kComplex, CLUSTER, INGRID, TAGGED>
                       : gemv_t_kernel<T, NB, Q, true, false, CLUSTER, INGRID, TAGGED>)
               : (conj ? gemv_t_kernel<T, NB, Q, false, kComplex, CLUSTER, INGRID, TAGGED>
                       : gemv_t_kernel<T, NB, Q, false, false, CLUSTER, INGRID, TAGGED>);
  }
  static inline DeviceFlags large_clusters_[4];  // per cluster kernel (loads, conjugation)
};

}  // namespace aegis::blas2
