// Compile-time configuration of the Hopper tensor-core GEMM kernel.
#pragma once

namespace aegis::gemm::sm90 {

// Thread block tile 128 x kBN x 64. Three warpgroups: warpgroup 0 produces (one thread
// issues the TMA copies), warpgroups 1 and 2 consume, each computing 64 rows x kBN columns
// with wgmma m64nBNk16.
template <int BN, int Stages, int Stagger, bool EagerRefill, bool StagedEpilogue, int ClusterM>
struct Sm90Config {
  static constexpr int kBM = 128;
  static constexpr int kBN = BN;
  static constexpr int kBK = 64;  // one 128-byte swizzle row of 16-bit elements
  static constexpr int kStages = Stages;
  // StaggerU: the CTA working on tile t starts its K loop at k-tile (t % kStagger) and wraps.
  static constexpr int kStagger = Stagger;
  // true: a stage is released to the producer as soon as the wgmmas reading it retire;
  // false: stages are released in halves of the pipeline.
  static constexpr bool kEagerRefill = EagerRefill;
  // true: the epilogue passes the tile through shared memory and writes C down its columns;
  // false: each thread stores its accumulator fragments directly.
  static constexpr bool kStagedEpilogue = StagedEpilogue;
  // CTAs per cluster along M: the ClusterM CTAs of a cluster compute vertically adjacent
  // tiles of the same columns, each loads 1/ClusterM of the shared B tile and multicasts it.
  static constexpr int kClusterM = ClusterM;
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr int kStageBytesA = kBM * kBK * 2;
  static constexpr int kStageBytesB = kBN * kBK * 2;
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;
  // Epilogue staging per consumer warpgroup, 1024-byte aligned: 32 columns x 68 (padded)
  // floats, or two 128-byte-swizzled 64 x 32 buffers of 16-bit C for the TMA store.
  static constexpr int kEpilogueBytesPerConsumer = 9 * 1024;
  static constexpr int kEpilogueBytes = StagedEpilogue ? kConsumers * kEpilogueBytesPerConsumer : 0;
  // Stages, epilogue staging, then the full/empty mbarriers; +1024 to align the stages to
  // the 128-byte swizzle's 1024-byte pattern.
  static constexpr int kSmemBytes =
      kStages * kStageBytes + kEpilogueBytes + 2 * kStages * 8 + 1024;
  static_assert(kSmemBytes <= 227 * 1024, "more shared memory than an H100/H200 SM has");
  static_assert(BN == 128 || BN == 256, "wgmma tiles of 128 or 256 columns");
  static_assert(ClusterM == 1 || ClusterM == 2, "clusters of one or two CTAs");
  static_assert(EagerRefill || Stages % 2 == 0, "lazy refill releases halves of the pipeline");
};

}  // namespace aegis::gemm::sm90
