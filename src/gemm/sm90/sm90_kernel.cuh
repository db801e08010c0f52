// Hopper tensor-core GEMM: D = alpha * op(A) * op(B) + beta * C over C, FP16/BF16 operands,
// FP32 accumulation.
//
// Persistent and warp-specialized. Each CTA walks the output tiles t = blockIdx.x,
// blockIdx.x + gridDim.x, ... in a grouped order (group_m tile rows at a time, so the CTAs
// running together share A and B panels in L2). Warpgroup 0 is the producer: one thread
// issues TMA copies of the A and B tiles of every k-step into a ring of kStages
// shared-memory stages, each guarded by a "full" mbarrier (TMA bytes landed) and an "empty"
// mbarrier (consumers done with it). Warpgroups 1 (and 2) are consumers: each multiplies 64
// rows of the tile by all kBN columns with wgmma m64nBNk16 straight from shared memory,
// hands each stage back as soon as its wgmmas retire (or in halves of the ring,
// kEagerRefill = false), then scales and stores its accumulators (sm90_epilogue.cuh; for
// 16-bit C through asynchronous TMA stores) while the producer already fills the ring for
// the next tile. A 128 x 256 tile keeps its last two store boxes in registers and stores them
// during the next tile's first k-steps (Sm90Config::kDeferredStoreBoxes). setmaxnreg moves
// registers from the producer to the consumers.
//
// With K split across consumers (Sm90Config::kSplitKAcrossConsumers, 64-row tiles) both
// consumers cover the same 64 rows and take alternate k-tiles, each with its own
// accumulators; at the end of a tile consumer 1 hands its sums to consumer 0 through shared
// memory (two named barriers: buffer full / free) and consumer 0 runs the epilogue. A small
// tile then has two wgmma chains in flight instead of one.
//
// With clusters of two CTAs the unit of work is two adjacent tiles. Along M (ClusterM = 2)
// they share their B tile: each CTA loads half of it and multicasts it to both, so B
// crosses from L2 once per pair. Along N (ClusterN = 2) they share their A tile the same
// way. Split-K adds the K slice to the unit of work.
//
// With K split across a cluster (ClusterK = 2 or 4) the unit of work is one tile: CTA r of
// the cluster runs the r-th K slice, then each consumer sends column chunk q of its sums
// straight into CTA q's shared memory (st.async, completing bytes on q's barrier), adds the
// chunks it received for its own columns in slice order, and stores them. No workspace and no
// second kernel; the same bits every run.
//
// Operand layouts: column-major A (op N) is M-major in shared memory, A^T (op T) is K-major;
// column-major B (op N) is K-major, B^T (op T) is N-major. K-major tiles arrive as one TMA
// box of 64 k x rows (128-byte rows); M/N-major tiles as boxes of 64 m|n x 64 k, one per 64
// rows|columns. Either way the wgmma descriptor's transpose immediate says which it is.
// A narrow tile (BN 16 or 32) of an N-major B reads its columns out of the 64-column box
// they lie in, which lands whole in its stage.
// With two k-tiles a stage (Sm90Config::kKTiles) a stage is filled by half as many copies of
// twice the size (load_two_ktiles), and with K split across consumers each takes one k-tile
// of every stage.
// TMA fills everything past the matrix edges with zeros, so partial tiles in M, N and K
// need no special case in the main loop; the epilogue guards the stores.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemm/sm90/sm90_config.h"
#include "gemm/sm90/sm90_epilogue.cuh"
#include "gemm/sm90/sm90_launch.h"
#include "gemm/sm90/sm90_primitives.cuh"
#include "gemm/sm90/unit_order.h"
#include "gemm/sm90/wgmma_ops.cuh"
#include "gemm/tc/tc_params.h"
#include "gemm/tc/tc_scalar.cuh"

namespace aegis::gemm::sm90 {

struct Sm90KernelArgs {
  int64_t m, n, k;
  void* C;
  int64_t ldc;
  tc::DType c_type;
  tc::TcScalar alpha, beta;
  int tiles_m, tiles_n, k_tiles;
  bool c_vec;  // C 16-byte aligned and ldc a multiple of 16 bytes: vector epilogue access
  // Split-K: split_k slices of k_tiles_per_split k-tiles; with split_k > 1 every slice
  // writes its unscaled FP32 sums to partial[slice * m * n + i + j * m].
  int split_k, k_tiles_per_split;
  float* partial;
  bool partial_vec;
  // map_c describes C (16-bit, aligned): with beta = 0 the epilogue stores through TMA.
  bool c_tma;
  // The persistent tile order (make_unit_order).
  UnitOrder order;
};
// Named barriers of the two consumers of a K split across consumers (the epilogue uses
// 1 + consumer): the exchange buffer holds consumer 1's sums / is free again.
constexpr int kExchangeFullBarrier = 3;
constexpr int kExchangeFreeBarrier = 4;

// Registers per thread after reallocation: 128 producer threads at kProducerRegs and 256
// consumer threads at kConsumerRegs fit the SM's 64K registers.
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;

using tc::read_scalar;

// wgmma m64nBNk16 for the operand type AB (wgmma_ops.cuh).
template <typename AB, int BN>
struct WgmmaOp {
  template <int TA, int TB>
  static __device__ __forceinline__ void run(float (&d)[BN / 2], uint64_t a, uint64_t b, int s) {
    constexpr bool kF16 = std::is_same_v<AB, F16>;
    if constexpr (BN == 16) {
      if constexpr (kF16) wgmma_m64n16k16_f16<TA, TB>(d, a, b, s);
      else wgmma_m64n16k16_bf16<TA, TB>(d, a, b, s);
    } else if constexpr (BN == 32) {
      if constexpr (kF16) wgmma_m64n32k16_f16<TA, TB>(d, a, b, s);
      else wgmma_m64n32k16_bf16<TA, TB>(d, a, b, s);
    } else if constexpr (BN == 64) {
      if constexpr (kF16) wgmma_m64n64k16_f16<TA, TB>(d, a, b, s);
      else wgmma_m64n64k16_bf16<TA, TB>(d, a, b, s);
    } else if constexpr (BN == 128) {
      if constexpr (kF16) wgmma_m64n128k16_f16<TA, TB>(d, a, b, s);
      else wgmma_m64n128k16_bf16<TA, TB>(d, a, b, s);
    } else {
      if constexpr (kF16) wgmma_m64n256k16_f16<TA, TB>(d, a, b, s);
      else wgmma_m64n256k16_bf16<TA, TB>(d, a, b, s);
    }
  }
};

// One consumer's epilogue in the configured style (see sm90_epilogue.cuh) for Cols columns
// of accumulators (the whole tile, or one chunk of it with K split across a cluster) starting
// at tile_col. tma_first: the TMA store buffer of the first chunk (see store_tile_tma).
template <typename Cfg, typename Out, int Cols>
__device__ __forceinline__ void epilogue(const float (&acc)[Cols / 2], uint8_t* stage_base,
                                         int consumer, int thread, Out* C, int64_t ldc,
                                         bool c_vec, int64_t m, int64_t n, int64_t tile_row,
                                         int64_t tile_col, float alpha, float beta,
                                         const CUtensorMap* map_c, int tma_first) {
  if constexpr (Cfg::kStagedEpilogue) {
    uint8_t* stage = stage_base + consumer * Cfg::kEpilogueBytesPerConsumer;
    if constexpr (sizeof(Out) == 2) {
      if (map_c && beta == 0.0f) {
        store_tile_tma<Out, Cols, Cfg::kTmaStoreBoxCols>(
            acc, stage, thread, 1 + consumer, map_c, static_cast<int>(tile_row),
            static_cast<int>(tile_col), alpha, tma_first);
        return;
      }
    }
    store_tile_staged<Out, Cols>(acc, reinterpret_cast<float*>(stage), thread, 1 + consumer, C,
                                 ldc, m, n, tile_row, tile_col, c_vec, alpha, beta);
  } else {
    const int warp = thread / 32, lane = thread % 32;
    store_tile_direct<Out, Cols>(acc, C, ldc, m, n, tile_row + warp * 16 + lane / 4,
                                 tile_col + (lane % 4) * 2, alpha, beta);
  }
}

// The epilogue for C's type (args.c_type).
template <typename Cfg, int Cols>
__device__ __forceinline__ void epilogue_for_type(const float (&acc)[Cols / 2],
                                                  uint8_t* stage_base, int consumer, int thread,
                                                  const Sm90KernelArgs& args, int64_t tile_row,
                                                  int64_t tile_col, float alpha, float beta,
                                                  const CUtensorMap* map_c, int tma_first) {
  switch (args.c_type) {
    case tc::DType::F32:
      epilogue<Cfg, float, Cols>(acc, stage_base, consumer, thread, static_cast<float*>(args.C),
                                 args.ldc, args.c_vec, args.m, args.n, tile_row, tile_col, alpha,
                                 beta, nullptr, tma_first);
      break;
    case tc::DType::BF16:
      epilogue<Cfg, __nv_bfloat16, Cols>(acc, stage_base, consumer, thread,
                                         static_cast<__nv_bfloat16*>(args.C), args.ldc,
                                         args.c_vec, args.m, args.n, tile_row, tile_col, alpha,
                                         beta, args.c_tma ? map_c : nullptr, tma_first);
      break;
    default:
      epilogue<Cfg, __half, Cols>(acc, stage_base, consumer, thread,
                                  static_cast<__half*>(args.C), args.ldc, args.c_vec, args.m,
                                  args.n, tile_row, tile_col, alpha, beta,
                                  args.c_tma ? map_c : nullptr, tma_first);
      break;
  }
}

// A stage's A tile when no other CTA shares it: kKTiles k-tiles from k0. A K-major A comes as
// one box per k-tile (kKTileBytesA apart); an M-major one as one box per 64 rows, each box
// holding all the stage's k rows (kKTiles * 8192 bytes apart).
template <typename Cfg, bool TA>
__device__ __forceinline__ void load_own_a(uint8_t* sa, const CUtensorMap* map_a, uint64_t* full,
                                           int k0, int m0) {
  if constexpr (TA) {
#pragma unroll
    for (int t = 0; t < Cfg::kKTiles; ++t)
      tma_load_2d(sa + t * Cfg::kKTileBytesA, map_a, full, k0 + 64 * t, m0);
  } else {
#pragma unroll
    for (int j = 0; j < Cfg::kBM / 64; ++j)
      tma_load_2d(sa + j * Cfg::kKTiles * 8192, map_a, full, m0 + 64 * j, k0);
  }
}

// The same for B: one box per k-tile (K-major), one per 64 columns (N-major), or for a narrow
// tile of an N-major B the 64-column box of B^T that holds its columns.
template <typename Cfg, bool TB>
__device__ __forceinline__ void load_own_b(uint8_t* sb, const CUtensorMap* map_b, uint64_t* full,
                                           int k0, int n0) {
  if constexpr (!TB) {
#pragma unroll
    for (int t = 0; t < Cfg::kKTiles; ++t)
      tma_load_2d(sb + t * Cfg::kKTileBytesB, map_b, full, k0 + 64 * t, n0);
  } else if constexpr (Cfg::kNarrow) {
    tma_load_2d(sb, map_b, full, n0 & ~63, k0);
  } else {
#pragma unroll
    for (int j = 0; j < Cfg::kBN / 64; ++j)
      tma_load_2d(sb + j * Cfg::kKTiles * 8192, map_b, full, n0 + 64 * j, k0);
  }
}

// The producer's copies of one stage of one k-tile (k0): this CTA's A and B tiles, the one
// shared by a cluster pair in parts, one from each CTA, multicast to both.
template <typename Cfg, bool TA, bool TB>
__device__ __forceinline__ void load_one_ktile(uint8_t* sa, uint8_t* sb, const CUtensorMap* map_a,
                                               const CUtensorMap* map_b, uint64_t* full, int k0,
                                               int m0, int n0, int rank_m, int rank_n) {
  constexpr int kClusterM = Cfg::kClusterM, kClusterN = Cfg::kClusterN, kBN = Cfg::kBN;
  constexpr uint16_t kAll = (1u << Cfg::kClusterSize) - 1;
  if constexpr (kClusterN == 1) {
    load_own_a<Cfg, TA>(sa, map_a, full, k0, m0);
  } else {
    // This CTA's share of A: 1/kClusterN of the K-major rows (tile rows), or of the k rows of
    // each M-major box. Either share is a whole number of 1024-byte swizzle patterns.
    if constexpr (TA) {
      constexpr int kRows = Cfg::kBM / kClusterN;
      tma_load_2d_multicast(sa + rank_n * kRows * 128, map_a, full, k0, m0 + rank_n * kRows,
                            kAll);
    } else {
      constexpr int kKRows = Cfg::kBK / kClusterN;
#pragma unroll
      for (int j = 0; j < Cfg::kBM / 64; ++j)
        tma_load_2d_multicast(sa + j * 8192 + rank_n * kKRows * 128, map_a, full, m0 + 64 * j,
                              k0 + rank_n * kKRows, kAll);
    }
  }
  if constexpr (kClusterM == 1) {
    load_own_b<Cfg, TB>(sb, map_b, full, k0, n0);
  } else {
    // This CTA's share of B.
    if constexpr (!TB) {
      constexpr int kRows = kBN / kClusterM;  // K-major rows (columns of B) per share
      tma_load_2d_multicast(sb + rank_m * kRows * 128, map_b, full, k0, n0 + rank_m * kRows,
                            kAll);
    } else {
#pragma unroll
      for (int j = 0; j < kBN / 64; ++j)
        if (j % kClusterM == rank_m)
          tma_load_2d_multicast(sb + j * 8192, map_b, full, n0 + 64 * j, k0, kAll);
    }
  }
}

// The same for a stage of two k-tiles (k0, k0 + 64). Layouts: a K-major operand as k-tile 0's
// rows then k-tile 1's (two boxes of 64 k x rows); an M/N-major one per 64-wide box as 128
// k rows (one 64 x 128 box), k-tile 1 being the box's second half. An operand shared by a
// cluster pair is split by k-tile: CTA r loads k-tile r, whole, and multicasts it.
template <typename Cfg, bool TA, bool TB>
__device__ __forceinline__ void load_two_ktiles(uint8_t* sa, uint8_t* sb, const CUtensorMap* map_a,
                                                const CUtensorMap* map_b, uint64_t* full, int k0,
                                                int m0, int n0, int rank_m, int rank_n) {
  constexpr int kBN = Cfg::kBN;
  constexpr uint16_t kAll = (1u << Cfg::kClusterSize) - 1;
  if constexpr (Cfg::kClusterN == 1) {
    load_own_a<Cfg, TA>(sa, map_a, full, k0, m0);
  } else {
    if constexpr (TA) {
      tma_load_2d_multicast(sa + rank_n * Cfg::kKTileBytesA, map_a, full, k0 + 64 * rank_n, m0,
                            kAll);
    } else {
#pragma unroll
      for (int j = 0; j < Cfg::kBM / 64; ++j)
        tma_load_2d_multicast(sa + j * 16384 + rank_n * 8192, map_a, full, m0 + 64 * j,
                              k0 + 64 * rank_n, kAll);
    }
  }
  if constexpr (Cfg::kClusterM == 1) {
    load_own_b<Cfg, TB>(sb, map_b, full, k0, n0);
  } else {
    if constexpr (!TB) {
      tma_load_2d_multicast(sb + rank_m * Cfg::kKTileBytesB, map_b, full, k0 + 64 * rank_m, n0,
                            kAll);
    } else {
#pragma unroll
      for (int j = 0; j < kBN / 64; ++j)
        tma_load_2d_multicast(sb + j * 16384 + rank_m * 8192, map_b, full, n0 + 64 * j,
                              k0 + 64 * rank_m, kAll);
    }
  }
}

template <typename Cfg, typename AB, bool TA, bool TB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kCtasPerSm)
    gemm_sm90_kernel(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b,
                     const __grid_constant__ CUtensorMap map_c, const Sm90KernelArgs args) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int kStages = Cfg::kStages;
  constexpr int kBN = Cfg::kBN;
  constexpr int kCluster = Cfg::kClusterSize;
  constexpr int kClusterM = Cfg::kClusterM, kClusterN = Cfg::kClusterN;
  constexpr int kClusterK = Cfg::kClusterK;
  // Bytes that land in each stage: the A tile and the B tile, for a narrow tile with an
  // N-major B the whole 64-column box its columns lie in (Sm90Config::kNarrow).
  constexpr int kKTiles = Cfg::kKTiles;
  constexpr uint32_t kStageBytesLanded =
      Cfg::kStageBytesA + (TB ? Cfg::kStageBytesB : kKTiles * kBN * Cfg::kBK * 2);
  // CTAs that share (multicast) each other's stages: their consumers release them together.
  constexpr int kShare = kClusterM * kClusterN;
  static_assert(kEpilogueSmemFloats * 4 <= Cfg::kEpilogueBytesPerConsumer &&
                    2 * Cfg::kTmaStoreBoxCols * 128 <= Cfg::kEpilogueBytesPerConsumer,
                "epilogue staging does not fit its shared-memory slot");
  extern __shared__ uint8_t smem_raw[];
  // The 128-byte swizzle pattern repeats every 1024 bytes; tiles must start on it.
  uint8_t* smem = reinterpret_cast<uint8_t*>(
      (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~static_cast<uintptr_t>(1023));
  uint8_t* epilogue_stage = smem + kStages * Cfg::kStageBytes;
  float* exchange =
      reinterpret_cast<float*>(smem + kStages * Cfg::kStageBytes + Cfg::kEpilogueBytes);
  float* received = exchange + Cfg::kExchangeBytes / 4;
  uint64_t* full = reinterpret_cast<uint64_t*>(received + Cfg::kReceiveBytes / 4);
  uint64_t* empty = full + kStages;
  // K split across a cluster, per consumer: the other CTAs' chunks have all arrived here /
  // every other CTA has read this CTA's chunk for it.
  uint64_t* chunks_received = empty + kStages;
  uint64_t* chunks_read = chunks_received + Cfg::kRowGroups;
  constexpr bool kSplitK = Cfg::kSplitKAcrossConsumers;
  // Consumers whose k-steps and accumulators one stage serves: each stage is read by all
  // row groups; with K split across consumers by one consumer only, or with two k-tiles per
  // stage by both (one k-tile each).
  constexpr int kReadersPerStage = kSplitK ? kKTiles : Cfg::kConsumers;
  // K split across a cluster: a consumer thread's accumulators of one column chunk, and the
  // bytes a consumer receives per tile from the other CTAs.
  constexpr int kChunkFloats = Cfg::kChunkCols / 2;
  constexpr uint32_t kChunkBytesReceived = (kClusterK - 1) * kChunkFloats * 4 * 128;
  // TMA store boxes per tile of a consumer's epilogue: the two staging buffers alternate
  // across tiles too.
  constexpr int kBoxCols = Cfg::kTmaStoreBoxCols;
  constexpr int kStoreBoxesPerTile = Cfg::kChunkCols / kBoxCols;
  // Boxes of a tile stored during the next tile's first k-steps (see defer_stores).
  constexpr int kDeferredBoxes =
      !kSplitK && kClusterK == 1 && Cfg::kStagedEpilogue ? Cfg::kDeferredStoreBoxes : 0;
  static_assert(kDeferredBoxes <= kStoreBoxesPerTile, "more held boxes than a tile stores");

  const int warpgroup = threadIdx.x / 128;
  const int thread_in_wg = threadIdx.x % 128;
  const uint32_t rank = kCluster > 1 ? cluster_cta_rank() : 0;
  if (threadIdx.x == 0) {
    tma_prefetch_descriptor(&map_a);
    tma_prefetch_descriptor(&map_b);
    if (args.c_tma) tma_prefetch_descriptor(&map_c);
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      // One arrival per consumer warp of every CTA whose stage s this CTA's copies fill.
      mbar_init(&empty[s], kReadersPerStage * 4 * kShare);
    }
    if constexpr (kClusterK > 1) {
      for (int c = 0; c < Cfg::kRowGroups; ++c) {
        // Armed for the first tile's chunks (see exchange_chunks).
        mbar_init(&chunks_received[c], 1);
        mbar_arrive_expect_tx(&chunks_received[c], kChunkBytesReceived);
        mbar_init(&chunks_read[c], kClusterK - 1);
      }
    }
    fence_barrier_init();
  }
  // The peer's multicast copies and arrivals may target this CTA's barriers as soon as it
  // passes this point.
  if constexpr (kCluster > 1) {
    cluster_sync_after_barrier_init();
  } else {
    __syncthreads();
  }

  // Work units: kClusterM x kClusterN adjacent tiles, one per CTA of a cluster (a single
  // tile without clusters), times the K slices. This CTA's tile of unit (um, un):
  const int unit_rows = (args.tiles_m + kClusterM - 1) / kClusterM;
  const int unit_cols = (args.tiles_n + kClusterN - 1) / kClusterN;
  const int units_per_slice = unit_rows * unit_cols;
  const int rank_m = kClusterM > 1 ? static_cast<int>(rank) : 0;
  const int rank_n = kClusterN > 1 ? static_cast<int>(rank) : 0;
  const int rank_k = kClusterK > 1 ? static_cast<int>(rank) : 0;
  const int num_units = units_per_slice * args.split_k;
  const int first_unit = blockIdx.x / kCluster;
  const int unit_stride = gridDim.x / kCluster;
  // Unit u: its K slice (returned), its tile (um, un) and the slice's k-tiles [first, first +
  // count). Split across a cluster, CTA r takes the r-th of kClusterK near-equal slices
  // (maybe empty).
  auto locate = [&](int u, int& um, int& un, int& first, int& count) {
    const int slice = static_cast<int>(args.order.units_per_slice.quotient(u));
    tile_coords(u - slice * units_per_slice, args.order, um, un);
    if constexpr (kClusterK > 1) {
      // Slices of whole stages, so that only the last stage of K can be partial.
      const int stages = (args.k_tiles + kKTiles - 1) / kKTiles;
      const int base = stages / kClusterK, extra = stages % kClusterK;
      const int own = base + (rank_k < extra ? 1 : 0);
      first = (rank_k * base + min(rank_k, extra)) * kKTiles;
      count = own > 0 ? min(own * kKTiles, args.k_tiles - first) : 0;
    } else {
      first = slice * args.k_tiles_per_split;
      count = min(args.k_tiles_per_split, args.k_tiles - first);
    }
    return slice;
  };

  if (warpgroup == 0) {
    // ---- producer ----
    if constexpr (Cfg::kReallocRegisters) regs_decrease<kProducerRegs>();
    if (thread_in_wg != 0) return;
    int s = 0;
    uint32_t phase = 0;
    for (int u = first_unit; u < num_units; u += unit_stride) {
      int um, un, kt_first, k_tiles;
      locate(u, um, un, kt_first, k_tiles);
      const int m0 = (um * kClusterM + rank_m) * Cfg::kBM;
      const int n0 = (un * kClusterN + rank_n) * kBN;
      int kt = Cfg::kStagger > 0 && k_tiles > 0 ? (u % Cfg::kStagger) % k_tiles : 0;
      const int unit_stages = (k_tiles + kKTiles - 1) / kKTiles;
      for (int i = 0; i < unit_stages; ++i) {
        mbar_wait(&empty[s], phase ^ 1);
        uint8_t* sa = smem + s * Cfg::kStageBytes;
        uint8_t* sb = sa + Cfg::kStageBytesA;
        // This CTA's A and B tiles land here, the shared one in parts from every CTA of
        // the cluster.
        mbar_arrive_expect_tx(&full[s], kStageBytesLanded);
        const int k0 = (kt_first + kt) * Cfg::kBK;
        if constexpr (kKTiles == 1) {
          load_one_ktile<Cfg, TA, TB>(sa, sb, &map_a, &map_b, &full[s], k0, m0, n0, rank_m,
                                      rank_n);
        } else {
          load_two_ktiles<Cfg, TA, TB>(sa, sb, &map_a, &map_b, &full[s], k0, m0, n0, rank_m,
                                       rank_n);
        }
        if (++s == kStages) {
          s = 0;
          phase ^= 1;
        }
        if constexpr (kKTiles == 1) {
          if (++kt == k_tiles) kt = 0;  // StaggerU wraps around
        } else {
          kt += kKTiles;
        }
      }
    }
    if constexpr (kShare > 1) {
      // Stay until every consumer of the cluster has released every stage: their arrivals
      // target this CTA's barriers, which must outlive them.
      for (int i = 0; i < kStages; ++i) {
        mbar_wait(&empty[s], phase ^ 1);
        if (++s == kStages) {
          s = 0;
          phase ^= 1;
        }
      }
    }
  } else {
    // ---- consumers ----
    if constexpr (Cfg::kReallocRegisters) regs_increase<kConsumerRegs>();
    const int consumer = warpgroup - 1;
    const int lane = thread_in_wg % 32;
    const float alpha = read_scalar(args.alpha);
    const float beta = read_scalar(args.beta);

    float acc[kBN / 2];
#pragma unroll
    for (int i = 0; i < kBN / 2; ++i) acc[i] = 0.0f;

    // wgmma descriptors of stage 0: this consumer's 64 rows of A (64 K-major rows of 128
    // bytes, or the 64-row M-major box) and the B tile. SBO = 1024 bytes between 8-row
    // groups; for M/N-major operands the LBO is the 8192-byte step between 64-wide boxes.
    // Other stages and k16 steps only move the start address, whose field (bits 0-13, in
    // 16-byte units) holds any shared-memory address without carrying into the next field,
    // so they are reached by adding to the descriptor rather than encoding it again.
    // With two k-tiles a stage, an M/N-major operand's 64-wide boxes are 16384 bytes apart
    // (see load_two_ktiles), and k-tile t starts t k-tiles' bytes (K-major) or 64 k rows
    // (M/N-major) further.
    constexpr uint32_t kBoxStride = kKTiles * 8192;
    constexpr uint32_t kKTileUnitsA = (TA ? Cfg::kKTileBytesA : 8192) >> 4;
    constexpr uint32_t kKTileUnitsB = (TB ? 8192 : Cfg::kKTileBytesB) >> 4;
    const uint32_t a_stage0 =
        shared_address(smem) + (kSplitK ? 0 : consumer * (TA ? 8192 : kBoxStride));
    const uint32_t b_stage0 = shared_address(smem) + Cfg::kStageBytesA;
    const uint64_t desc_a0 = TA ? smem_desc_sw128(a_stage0, 16, 1024)
                                : smem_desc_sw128(a_stage0, kBoxStride, 1024);
    const uint64_t desc_b0 = TB ? smem_desc_sw128(b_stage0, kBoxStride, 1024)
                                : smem_desc_sw128(b_stage0, 16, 1024);

    // TMA store boxes this consumer has issued: the next one goes through staging buffer
    // (boxes_stored % 2).
    int boxes_stored = 0;
    uint8_t* const store_buffers = epilogue_stage + consumer * Cfg::kEpilogueBytesPerConsumer;

    // Deferred stores (16-bit C through TMA, beta = 0): the last kDeferredBoxes boxes of a
    // tile wait in registers, packed, and are stored one per k-step of the next tile, so
    // the tensor pipe is not idle while they go out. c_tma already implies split_k == 1 and
    // 16-bit C; the two tests stay because taking them out re-allocates the registers of the
    // whole 128 x 256 kernel (cuobjdump), whose measured code this is.
    const bool defer_stores = kDeferredBoxes > 0 && args.c_tma && beta == 0.0f &&
                              args.split_k == 1 && args.c_type != tc::DType::F32;
    const bool c_bf16 = args.c_type == tc::DType::BF16;
    PackedBox<kBoxCols> deferred[kDeferredBoxes > 0 ? kDeferredBoxes : 1];
    bool deferred_pending = false;
    int deferred_row = 0, deferred_col = 0;  // the tile's first row and first deferred column
    auto pack = [&](int box, PackedBox<kBoxCols>& out) {
      if (c_bf16) {
        pack_box<__nv_bfloat16, kBN, kBoxCols>(acc, box, alpha, out);
      } else {
        pack_box<__half, kBN, kBoxCols>(acc, box, alpha, out);
      }
    };
    auto store_packed = [&](const PackedBox<kBoxCols>& v, int row, int col) {
      store_box_tma<kBoxCols>(v, store_buffers + (boxes_stored & 1) * (kBoxCols * 128),
                              thread_in_wg, 1 + consumer, &map_c, row, col);
      ++boxes_stored;
    };
    auto store_deferred = [&](int b) {
      store_packed(deferred[b], deferred_row, deferred_col + b * kBoxCols);
    };

    int s = 0;
    uint32_t phase = 0;
    int release = 0;     // oldest stage consumed but not yet handed back
    int unreleased = 0;  // how many stages that is
    auto arrive_empty = [&](int stage) {
      if (lane == 0) {
        if constexpr (kShare == 1) {
          mbar_arrive(&empty[stage]);
        } else {
#pragma unroll
          for (int r = 0; r < kShare; ++r) mbar_arrive_cluster(&empty[stage], r);
        }
      }
    };
    auto hand_back = [&](int keep) {
      while (unreleased > keep) {
        arrive_empty(release);
        if (++release == kStages) release = 0;
        --unreleased;
      }
    };
    // K split across a cluster. This CTA's slice of the tile's sums goes out in chunks: chunk
    // q (columns q * kChunkCols ...) to CTA q, written straight into its shared memory with
    // st.async, which completes bytes on its chunks_received barrier. This CTA's own chunk
    // is then summed over the slices in K order (so the result does not depend on timing),
    // and, once the epilogue is issued, every sender learns through its chunks_read barrier
    // that its slot may be reused (free_received_chunks).
    // Received chunks: slot (sender - receiver - 1) mod kClusterK, then consumer, then
    // [float4 v][thread] (a warp's 16-byte accesses are consecutive).
    uint32_t chunks_phase = 0;
    auto received_chunk = [&](int sender, int receiver) {
      const int slot = (sender - receiver + kClusterK) % kClusterK - 1;
      return received + (slot * Cfg::kRowGroups + consumer) * kChunkFloats * 128 +
             thread_in_wg * 4;
    };
    auto exchange_chunks = [&](const float (&sums)[kBN / 2], float (&chunk)[kChunkFloats]) {
      // The previous tile's chunks sent from here have been read everywhere.
      mbar_wait_cluster(&chunks_read[consumer], chunks_phase ^ 1);
#pragma unroll
      for (int q = 0; q < kClusterK; ++q) {
        if (q == rank_k) continue;
        const uint32_t dst = cluster_peer_addr(received_chunk(rank_k, q), q);
        const uint32_t bar = cluster_peer_addr(&chunks_received[consumer], q);
#pragma unroll
        for (int v = 0; v < kChunkFloats / 4; ++v)
          st_async_v4(dst + v * 128 * 16, sums[q * kChunkFloats + 4 * v],
                      sums[q * kChunkFloats + 4 * v + 1], sums[q * kChunkFloats + 4 * v + 2],
                      sums[q * kChunkFloats + 4 * v + 3], bar);
      }
      // This CTA's own chunk (rank_k is not a compile-time index into the registers).
      float own[kChunkFloats];
#pragma unroll
      for (int i = 0; i < kChunkFloats; ++i) {
        own[i] = sums[i];
#pragma unroll
        for (int q = 1; q < kClusterK; ++q)
          if (q == rank_k) own[i] = sums[q * kChunkFloats + i];
      }
      mbar_wait_cluster(&chunks_received[consumer], chunks_phase);
#pragma unroll
      for (int slice = 0; slice < kClusterK; ++slice) {
        const float* from = received_chunk(slice, rank_k);
#pragma unroll
        for (int v = 0; v < kChunkFloats / 4; ++v) {
          float4 x;
          if (slice == rank_k) {
            x = make_float4(own[4 * v], own[4 * v + 1], own[4 * v + 2], own[4 * v + 3]);
          } else {
            x = *reinterpret_cast<const float4*>(from + v * 128 * 4);
          }
          const float part[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
          for (int e = 0; e < 4; ++e)
            chunk[4 * v + e] = slice == 0 ? part[e] : chunk[4 * v + e] + part[e];
        }
      }
    };
    // After the tile's epilogue is issued (the arrivals below need not delay it): every thread
    // of this consumer has read its received chunks, so arm the barrier for the next tile's
    // (before any sender can learn it may send them), then free the slots. Only a sender
    // that will send again needs this CTA's reads ordered before its writes, a cluster-scope
    // release that costs a fence; after the last unit the arrival only keeps each sender
    // alive until its barrier has taken every arrival, and keeps the default CTA-scope
    // semantics.
    auto free_received_chunks = [&](bool more_units) {
      warpgroup_barrier(1 + consumer);
      if (thread_in_wg == 0) {
        mbar_arrive_expect_tx(&chunks_received[consumer], kChunkBytesReceived);
#pragma unroll
        for (int q = 0; q < kClusterK; ++q) {
          if (q == rank_k) continue;
          if (more_units) {
            mbar_arrive_cluster_release(&chunks_read[consumer], q);
          } else {
            mbar_arrive_cluster(&chunks_read[consumer], q);
          }
        }
      }
      chunks_phase ^= 1;
    };

    // K split across consumers: with one k-tile a stage, consumer c takes the stages whose
    // running index (over all of this CTA's units) has parity c; with two, k-tile c of every
    // stage. `held` is its last stage not yet handed back.
    int step_parity = 0;
    int held = -1;
    // This unit's column offset into the B box in 16-byte units (narrow tiles, N-major B).
    uint32_t b_col_units = 0;
    if constexpr (kSplitK) {
      // The exchange buffer starts free (see the end of a unit).
      if (consumer == 0) named_barrier_arrive(kExchangeFreeBarrier, 256);
    }

    // One stage of this consumer: wait for it, issue its wgmmas, hand back what has retired.
    // first_step: none of this unit's wgmmas issued yet (the first starts from zero). With two
    // k-tiles a stage, both are multiplied even where the second lies past K: K slices are
    // whole stages (the workspace split cuts K at multiples of stage_k), so only the last
    // stage of K can be partial, and TMA fills both operands there with zeros. (A wgmma
    // issued under a condition would be serialized by ptxas, C7520.)
    auto k_step = [&](bool& first_step) {
      if constexpr (kSplitK && kKTiles == 1) {
        const bool mine = step_parity == consumer;
        step_parity ^= 1;
        if (!mine) {
          if (++s == kStages) {
            s = 0;
            phase ^= 1;
          }
          return;
        }
      }
      mbar_wait(&full[s], phase);
      // This stage's descriptors: stage 0's plus the stage's offset in the start-address
      // field (16-byte units, the low word).
      const uint32_t stage_offset = static_cast<uint32_t>(s) * (Cfg::kStageBytes >> 4);
      wgmma_fence();
      // k-tile t of the stage; the unit's first wgmma (first_step, the stage's first k-tile)
      // starts from zero.
      auto mma_ktile = [&](int t, bool later_ktile) {
#pragma unroll
        for (int kk = 0; kk < Cfg::kBK / 16; ++kk) {
          // K-major: the next 16 k are 32 bytes along the swizzled row; M/N-major: 16 rows
          // of 128 bytes further.
          const uint64_t da = smem_desc_moved(
              desc_a0,
              stage_offset + t * kKTileUnitsA + (TA ? kk * (32 >> 4) : kk * (2048 >> 4)));
          const uint64_t db = smem_desc_moved(
              desc_b0, stage_offset + b_col_units + t * kKTileUnitsB +
                           (TB ? kk * (2048 >> 4) : kk * (32 >> 4)));
          WgmmaOp<AB, kBN>::template run<TA ? 0 : 1, TB ? 1 : 0>(
              acc, da, db, (!first_step || later_ktile || kk > 0) ? 1 : 0);
        }
      };
      if constexpr (kKTiles == 1) {
        mma_ktile(0, false);
      } else if constexpr (kSplitK) {
        mma_ktile(consumer, false);  // each consumer takes its own k-tile of every stage
      } else {
        mma_ktile(0, false);
        mma_ktile(1, true);
      }
      wgmma_commit();
      first_step = false;
      if constexpr (kSplitK) {
        // This consumer's previous step has retired: hand its stage back.
        wgmma_wait<1>();
        if (held >= 0) arrive_empty(held);
        held = s;
      } else {
        ++unreleased;
        if constexpr (Cfg::kEagerRefill) {
          // The previous k-step's wgmmas have retired: its stage can be refilled while
          // this one's run.
          wgmma_wait<1>();
          hand_back(1);
        } else if (s % (kStages / 2) == kStages / 2 - 1) {
          wgmma_wait<0>();
          hand_back(0);
        }
      }
      if (++s == kStages) {
        s = 0;
        phase ^= 1;
      }
    };

    for (int u = first_unit; u < num_units; u += unit_stride) {
      int um, un, kt_first, k_tiles;
      const int slice = locate(u, um, un, kt_first, k_tiles);
      const int tm = um * kClusterM + rank_m;
      const int tn = un * kClusterN + rank_n;
      // A narrow tile of an N-major B starts (tn * kBN) % 64 columns into its box: that many
      // 2-byte elements along the swizzled 128-byte rows, the way a k16 step moves along a
      // K-major row.
      b_col_units = TB && Cfg::kNarrow ? static_cast<uint32_t>((tn * kBN) % 64) * 2 / 16 : 0;
      bool first_step = true;  // of this unit, for this consumer
      const int unit_stages = (k_tiles + kKTiles - 1) / kKTiles;
      int i = 0;
      if constexpr (kDeferredBoxes > 0) {
        // The previous tile's last boxes go out one per k-step while this tile's first
        // wgmmas run.
        if (deferred_pending) {
#pragma unroll
          for (int b = 0; b < kDeferredBoxes; ++b) {
            if (i < unit_stages) {
              k_step(first_step);
              ++i;
            }
            store_deferred(b);
          }
          deferred_pending = false;
        }
      }
      for (; i < unit_stages; ++i) k_step(first_step);
      wgmma_wait<0>();
      fence_registers(acc);
      if constexpr (kSplitK) {
        if (held >= 0) arrive_empty(held);
        held = -1;
        // Consumer 1 hands its sums to consumer 0, which adds them and runs the epilogue.
        // The buffer is [element][thread]: a warp's accesses are consecutive words.
        // A consumer that got no k-step of this unit (one k-tile) holds the previous
        // unit's sums: they count as zero.
        if (consumer == 1) {
          named_barrier_sync(kExchangeFreeBarrier, 256);
#pragma unroll
          for (int e = 0; e < kBN / 2; ++e)
            exchange[e * 128 + thread_in_wg] = first_step ? 0.0f : acc[e];
          named_barrier_arrive(kExchangeFullBarrier, 256);
          continue;
        }
        named_barrier_sync(kExchangeFullBarrier, 256);
#pragma unroll
        for (int e = 0; e < kBN / 2; ++e)
          acc[e] = (first_step ? 0.0f : acc[e]) + exchange[e * 128 + thread_in_wg];
        named_barrier_arrive(kExchangeFreeBarrier, 256);
      } else {
        hand_back(0);
      }

      const int64_t tile_row =
          static_cast<int64_t>(tm) * Cfg::kBM + (kSplitK ? 0 : consumer * 64);
      const int64_t tile_col = static_cast<int64_t>(tn) * kBN;
      if constexpr (kClusterK > 1) {
        // Hand every other CTA its chunk of this slice's sums, take this CTA's chunk from
        // every slice, and store it.
        if (first_step) {
          // This CTA's K slice was empty (fewer k-tiles than CTAs): it adds zeros.
#pragma unroll
          for (int i = 0; i < kBN / 2; ++i) acc[i] = 0.0f;
        }
        float chunk[kChunkFloats];
        exchange_chunks(acc, chunk);
        epilogue_for_type<Cfg, Cfg::kChunkCols>(chunk, epilogue_stage, consumer, thread_in_wg,
                                                args, tile_row,
                                                tile_col + rank_k * Cfg::kChunkCols, alpha,
                                                beta, &map_c, boxes_stored & 1);
        boxes_stored += kStoreBoxesPerTile;
        free_received_chunks(u + unit_stride < num_units);
        continue;
      } else if (args.split_k > 1) {
        float* partial = args.partial + static_cast<int64_t>(slice) * args.m * args.n;
        epilogue<Cfg, float, kBN>(acc, epilogue_stage, consumer, thread_in_wg, partial, args.m,
                                  args.partial_vec, args.m, args.n, tile_row, tile_col, 1.0f,
                                  0.0f, nullptr, 0);
        continue;
      }
      if constexpr (kDeferredBoxes > 0) {
        if (defer_stores) {
          constexpr int kNow = kStoreBoxesPerTile - kDeferredBoxes;
#pragma unroll
          for (int box = 0; box < kNow; ++box) {
            PackedBox<kBoxCols> v;
            pack(box, v);
            store_packed(v, static_cast<int>(tile_row),
                         static_cast<int>(tile_col) + box * kBoxCols);
          }
#pragma unroll
          for (int b = 0; b < kDeferredBoxes; ++b) pack(kNow + b, deferred[b]);
          deferred_row = static_cast<int>(tile_row);
          deferred_col = static_cast<int>(tile_col) + kNow * kBoxCols;
          deferred_pending = true;
          continue;
        }
      }
      epilogue_for_type<Cfg, kBN>(acc, epilogue_stage, consumer, thread_in_wg, args, tile_row,
                                  tile_col, alpha, beta, &map_c, boxes_stored & 1);
      boxes_stored += kStoreBoxesPerTile;
    }
    if constexpr (kDeferredBoxes > 0) {
      if (deferred_pending) {
#pragma unroll
        for (int b = 0; b < kDeferredBoxes; ++b) store_deferred(b);
      }
    }
    if constexpr (kSplitK) {
      // Consumer 0 freed the buffer after the last unit (or at the start, with no unit).
      if (consumer == 1) named_barrier_sync(kExchangeFreeBarrier, 256);
    }
    if constexpr (kClusterK > 1) {
      // The other CTAs' arrivals for the last tile target this CTA's barrier: it must
      // outlive them.
      mbar_wait_cluster(&chunks_read[consumer], chunks_phase ^ 1);
    }
    // TMA stores still in flight read this CTA's shared memory; their writes to C complete
    // before the grid does, so only the reads are waited for (as CUTLASS's epilogue does).
    if (thread_in_wg == 0) bulk_wait_read<0>();
  }
#endif
}

}  // namespace aegis::gemm::sm90
