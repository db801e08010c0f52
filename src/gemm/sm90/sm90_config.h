// Compile-time configuration of the Hopper tensor-core GEMM kernel.
#pragma once

namespace aegis::gemm::sm90 {

// Thread block tile BM x BN x (64 KTilesPerStage). Warpgroup 0 produces (one thread issues
// the TMA copies); BM / 64 consumer warpgroups (one or two) each compute 64 rows x BN columns
// with wgmma m64nBNk16. Narrow tiles (BN 16 or 32, BM 64) spread a small product over more
// SMs, as cuBLAS's small kernels do (docs/perf-notes.md, TC-15).
template <int BM, int BN, int Stages, int Stagger, bool EagerRefill, bool StagedEpilogue,
          int ClusterM, int ClusterN, int CtasPerSm, bool SplitKAcrossConsumers = false,
          int ClusterK = 1, int KTilesPerStage = 1>
struct Sm90Config {
  static constexpr int kBM = BM;
  static constexpr int kBN = BN;
  static constexpr int kBK = 64;  // one k-tile: a 128-byte swizzle row of 16-bit elements
  // k-tiles per stage (1 or 2). With two, a stage is filled by half as many, twice as large
  // TMA copies (an M/N-major operand as one 64 x 128 box, an operand shared by a cluster pair
  // as one whole k-tile from each CTA): on the H200 the medium few-tiles calls (1024^2 x K,
  // 64 x 128 tiles in pairs) ran 3-10 % faster, the wide shape's 64 x 64 pairs as fast
  // (docs/perf-notes.md, TC-17).
  static constexpr int kKTiles = KTilesPerStage;
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
  // CTAs per cluster along N: the ClusterN CTAs compute horizontally adjacent tiles of the
  // same rows, each loads 1/ClusterN of the shared A tile and multicasts it (the tall shapes:
  // a few tile columns over many rows).
  static constexpr int kClusterN = ClusterN;
  // CTAs per cluster along K: the ClusterK CTAs of a cluster compute the same tile over
  // consecutive K slices, then each sums one BN / ClusterK column chunk of the tile from all
  // of them (the others' partial sums arrive in its shared memory) and stores it. A tile
  // whose K is long and whose count leaves SMs idle (tall and wide shapes) then runs on
  // ClusterK SMs without a workspace or a second kernel.
  static constexpr int kClusterK = ClusterK;
  static constexpr int kClusterSize = ClusterM * ClusterN * ClusterK;
  // CTAs resident on one SM. Two CTAs of one consumer give the SM two independent wgmma
  // chains, and one CTA's epilogue overlaps the other's main loop: for 64 x 64 tiles that
  // measured 1.4-1.5x faster than one CTA on some shapes, slower on others
  // (docs/perf-notes.md, TC-2).
  static constexpr int kCtasPerSm = CtasPerSm;
  // Two consumer warpgroups on one 64-row tile, taking alternate k-steps (each with its own
  // accumulators, summed once per tile through shared memory): two wgmma chains on a small
  // tile instead of one.
  static constexpr bool kSplitKAcrossConsumers = SplitKAcrossConsumers;
  static constexpr int kConsumers = SplitKAcrossConsumers ? 2 : BM / 64;
  // Consumers whose rows differ (each runs its own epilogue) and the rows each owns.
  static constexpr int kRowGroups = BM / 64;
  // Two consumers of 64 x 256 accumulators need more than an even share of the registers:
  // setmaxnreg moves them from the producer. A single consumer never does.
  static constexpr bool kReallocRegisters = kConsumers > 1;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  // A narrow tile's columns lie in one 64-column box of B: for an N-major B (op T) that
  // whole box lands in each stage, for a K-major one only the tile's BN rows.
  static constexpr bool kNarrow = BN < 64;
  // One k-tile of each operand, and a stage: kKTiles k-tiles of A, then of B.
  static constexpr int kKTileBytesA = kBM * kBK * 2;
  static constexpr int kKTileBytesB = (kNarrow ? 64 : kBN) * kBK * 2;
  static constexpr int kStageBytesA = kKTiles * kKTileBytesA;
  static constexpr int kStageBytesB = kKTiles * kKTileBytesB;
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;

  // Split K across consumers: the second consumer's 64 x BN accumulators, handed to the first.
  static constexpr int kExchangeBytes = SplitKAcrossConsumers ? 64 * BN * 4 : 0;
  // Columns of a tile that each CTA stores: all BN, or one chunk of BN / ClusterK with K
  // split across a cluster. There, each consumer thread's accumulators of its chunk are
  // received from each of the other ClusterK - 1 CTAs.
  static constexpr int kChunkCols = BN / ClusterK;
  static constexpr int kReceiveBytes =
      ClusterK > 1 ? (ClusterK - 1) * kRowGroups * 128 * (kChunkCols / 2) * 4 : 0;
  // Per consumer, a barrier for the chunks received and one for the chunks sent being
  // free to overwrite.
  static constexpr int kClusterKBarriers = ClusterK > 1 ? 2 * kRowGroups : 0;
  // Everything but the epilogue staging: stages, the exchange, the chunks received, the
  // mbarriers, and 1024 bytes to align the stages to the 128-byte swizzle's pattern.
  static constexpr int kSmemBytesBesidesEpilogue = kStages * kStageBytes + kExchangeBytes +
                                                   kReceiveBytes +
                                                   (2 * kStages + kClusterKBarriers) * 8 + 1024;
  // Epilogue staging per consumer warpgroup, 1024-byte aligned: 32 columns x 68 (padded)
  // floats, or two 128-byte-swizzled buffers of 16-bit C for the TMA store, each one box of
  // 64 rows x kTmaStoreBoxCols columns. 64-column boxes where the SM's shared memory has room
  // for them (and they divide the columns a consumer stores), else 32: calls with a short K
  // spend most of their time storing C, and half as many stores of twice the size took
  // 4096 x 4096 x 128 from 18.7 to 17.2 us (docs/perf-notes.md, TC-6).
  // Two buffers of one 64-column box each (128 bytes per column); the 32-column boxes share
  // a 9 KB slot with the staged path's 32 x 68 floats.
  static constexpr int kWideStoreBytesPerConsumer = 2 * 64 * 128;
  static constexpr bool kRoomForWideStoreBoxes =
      CtasPerSm * (kSmemBytesBesidesEpilogue + kRowGroups * kWideStoreBytesPerConsumer + 1024) <=
      228 * 1024;
  static constexpr int kTmaStoreBoxCols =
      kChunkCols < 32 ? kChunkCols : kRoomForWideStoreBoxes && kChunkCols % 64 == 0 ? 64 : 32;
  static constexpr int kEpilogueBytesPerConsumer =
      kTmaStoreBoxCols == 64 ? kWideStoreBytesPerConsumer : 9 * 1024;
  // TMA store boxes of a tile held back, packed in registers, and stored one per k-step
  // while the next tile's first wgmmas run (the rest are stored at once): a shorter idle gap
  // for the tensor pipe at every tile boundary. Two 64-column boxes are 32 registers per
  // thread, which the two consumers of a 128 x 256 tile have to spare; three spill. Measured
  // against none: 8192^2 x 1024 +3-8 %, 4096^3 +0.5 % (power-limited, where an idle gap
  // costs little; docs/perf-notes.md TC-8).
  static constexpr int kDeferredStoreBoxes = BM == 128 && BN == 256 ? 2 : 0;
  static constexpr int kEpilogueBytes = StagedEpilogue ? kRowGroups * kEpilogueBytesPerConsumer : 0;
  // Stages, epilogue staging, the exchange, the chunks received, then the mbarriers.
  static constexpr int kSmemBytes = kSmemBytesBesidesEpilogue + kEpilogueBytes;
  static_assert(kSmemBytes <= 227 * 1024, "more shared memory than an H100/H200 SM has");
  // 228 KB per SM, 1 KB of it reserved per resident CTA.
  static_assert(CtasPerSm * (kSmemBytes + 1024) <= 228 * 1024,
                "CtasPerSm CTAs of this configuration do not fit in one SM's shared memory");
  static_assert(CtasPerSm == 1 || !kReallocRegisters,
                "register reallocation assumes one CTA owns the SM's registers");
  static_assert(BM == 64 || BM == 128, "one or two consumer warpgroups of 64 rows");
  static_assert(BN == 16 || BN == 32 || BN == 64 || BN == 128 || BN == 256,
                "wgmma tiles of 16, 32, 64, 128 or 256 columns");
  // Narrow tiles in clusters that shared A (and the box of B) measured slower than alone
  // (docs/perf-notes.md, TC-15).
  static_assert(!kNarrow || (BM == 64 && kClusterSize == 1),
                "narrow tiles: 64 rows, no cluster");
  static_assert((ClusterM == 1 || ClusterM == 2) && (ClusterN == 1 || ClusterN == 2) &&
                    ClusterM * ClusterN <= 2,
                "clusters of one or two CTAs, along M or along N");
  static_assert(ClusterK == 1 || ((ClusterK == 2 || ClusterK == 4) && ClusterM * ClusterN == 1 &&
                                  !SplitKAcrossConsumers && kChunkCols % 32 == 0),
                "K split over a cluster of 2 or 4 CTAs, alone, in chunks of whole 32 columns");
  static_assert(EagerRefill || Stages % 2 == 0, "lazy refill releases halves of the pipeline");
  static_assert(KTilesPerStage == 1 ||
                    (KTilesPerStage == 2 && !kNarrow && Stagger == 0 && EagerRefill),
                "two k-tiles per stage: tiles of 64 columns or more, no stagger, eager refill");
  static_assert(!SplitKAcrossConsumers || (BM == 64 && EagerRefill && CtasPerSm == 1),
                "K split across consumers: one 64-row tile per CTA, stages handed back eagerly");
};

}  // namespace aegis::gemm::sm90
