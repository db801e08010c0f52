// Tile configuration of the SIMT (CUDA-core) GEMM kernel template.
//
// The seven tile parameters of the paper: a thread block computes an MTB x NTB tile of C,
// stepping through K in slices of KTB; each warp owns an MW x NW sub-tile and each thread
// an MT x NT fragment held in registers (as MT/4 x NT/4 blocks of 4x4, spread over the warp
// tile so that shared-memory fragment reads are 16-byte and conflict free).
#pragma once

namespace aegis::gemm::simt {

// FRAG_BUFS_: register buffers for the fragments read from shared memory (2: the next k
// step's fragments load while this one computes; 1: fewer registers, the compiler
// schedules the loads).
template <int MTB_, int NTB_, int KTB_, int MW_, int NW_, int MT_, int NT_, int FRAG_BUFS_ = 2>
struct TileConfig {
  static constexpr int kMTB = MTB_, kNTB = NTB_, kKTB = KTB_;
  static constexpr int kMW = MW_, kNW = NW_;
  static constexpr int kMT = MT_, kNT = NT_;
  static constexpr int kFragBuffers = FRAG_BUFS_;

  static constexpr int kWarpsM = kMTB / kMW;
  static constexpr int kWarpsN = kNTB / kNW;
  static constexpr int kThreads = kWarpsM * kWarpsN * 32;
  static constexpr int kLanesM = kMW / kMT;  // lanes of a warp along M
  static constexpr int kLanesN = kNW / kNT;  // lanes of a warp along N
  // Up to 64 accumulators: two blocks of 256 threads (or the same thread count in smaller
  // blocks) per SM, which caps registers at 128 per thread, enough for an 8x8 fragment plus
  // operands. Larger fragments (8x16) need ~200 registers: one block per SM, whose FFMAs
  // then rely on the fragment's own independence rather than on other warps.
  static constexpr int kMinBlocksPerSM =
      kMT * kNT > 64 ? 1 : ((512 / kThreads) > 0 ? (512 / kThreads) : 1);
  // One extra float4 per shared-memory row: transposing stores of the two float4s a warp
  // writes per row pair then land in different bank halves (see TileLoader).
  static constexpr int kSmemPad = 4;
  static constexpr int kLdAs = kMTB + kSmemPad;  // floats per k-row of the A stage
  static constexpr int kLdBs = kNTB + kSmemPad;  // floats per k-row of the B stage
  static constexpr int kSmemBytes = 2 /*stages*/ * kKTB * (kLdAs + kLdBs) * 4;

  static_assert(kMTB % kMW == 0 && kNTB % kNW == 0, "warp tile must divide block tile");
  static_assert(kMW % kMT == 0 && kNW % kNT == 0, "thread tile must divide warp tile");
  static_assert(kLanesM * kLanesN == 32, "a warp tile must be covered by exactly 32 lanes");
  static_assert(kMT % 4 == 0 && kNT % 4 == 0, "thread fragments are built of 4x4 blocks");
  static_assert(kKTB % 4 == 0, "k slices are loaded as float4");
  static_assert(kFragBuffers == 1 || kFragBuffers == 2, "one or two fragment buffers");
  static_assert((kMTB * kKTB / 4) % kThreads == 0 && (kMTB * kKTB / 4) >= kThreads,
                "each thread loads a whole number of float4 of the A tile");
  static_assert((kNTB * kKTB / 4) % kThreads == 0 && (kNTB * kKTB / 4) >= kThreads,
                "each thread loads a whole number of float4 of the B tile");
};

}  // namespace aegis::gemm::simt
