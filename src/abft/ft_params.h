// What an FT GEMM launch needs besides its operands: the mode, the faults to inject into
// this call, and where the kernels count what they found. Shared by the fused kernels, the
// non-fused baseline and dispatch; plain structs, no handle types.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace aegis::abft {

enum class FtMode : int { kOff = 0, kDetect = 1, kCorrect = 2 };

// Mirrors aegisFaultKind_t / aegisFaultTarget_t.
enum FaultKind : int { kFaultBitflip = 0, kFaultAdd = 1 };
enum FaultTarget : int { kTargetAccumulator = 0, kTargetColumnChecksum = 1, kTargetRowChecksum = 2 };
constexpr int64_t kKStepEpilogue = -1;

// One fault to inject into this launch (already filtered to this call by the host).
struct FaultSpec {
  int64_t row, col;  // element of C
  int64_t k_step;    // after this K tile (clamped to the last); kKStepEpilogue: epilogue
  int kind, target, bit;
  float value;
};
constexpr int kMaxFaultsPerCall = 8;

// Mirrors aegisFaultRecord_t / aegisFaultAction_t.
enum FaultAction : int {
  kActionReported = 0,
  kActionCorrected = 1,
  kActionRecomputed = 2,
  kActionUnrecovered = 3
};
struct FtRecord {
  long long call, tile_row, tile_col, row, col, k_step;
  float residual;
  int action;
};
constexpr int kMaxRecords = 16;

// Device-resident statistics of a handle; kernels add to them with atomics.
struct FtDeviceStats {
  unsigned long long checks, detected, corrected, recomputed, unrecovered, nonfinite;
  unsigned long long record_count;  // records[i % kMaxRecords] holds record i
  FtRecord records[kMaxRecords];
};

struct FtParams {
  FtMode mode;          // kOff: the plain kernels run and nothing below is read
  int verify_interval;  // check after every this many K tiles (0: only at the end)
  int num_faults;
  int64_t call;         // index of this FT call on the handle (for the records)
  FtDeviceStats* stats;
  FaultSpec faults[kMaxFaultsPerCall];
  // Fused levels: the reference checksums of every line, formed before the GEMM
  // (gemm/simt/ft_checksums.h) in ck_pieces pieces of K, piece s covering the K elements
  // [s * ck_k_per_piece, (s + 1) * ck_k_per_piece):
  //   row_ck[s * m * groups_n + i + g * m] = sum_k op(A)(i, k) bsum_g[k],
  //   col_ck[s * n * groups_m + j + g * n] = sum_k asum_g[k] op(B)(k, j),
  // bsum_g / asum_g: op(B) summed over column group g, op(A) over row group g; the groups
  // are the tiles at block level (groups_n = tiles_n), finer ones at warp and thread level
  // (gemm/simt/ft_groups.h).
  const float* row_ck;
  const float* col_ck;
  int ck_pieces;
  int64_t ck_k_per_piece;
  // Tiles to compute again: the fast kernel appends the tiles whose check could not locate
  // their fault (CORRECT mode) and leaves them; a second launch (redo_pass) computes them.
  int* redo_count;  // zeroed by the operand-sum pass of the call
  int* redo_tiles;
  int redo_pass;
};

// Flips bit `bit` of x or adds `value`, as a fault spec says.
AEGIS_HOST_DEVICE inline float apply_fault(float x, int kind, int bit, float value) {
  if (kind == kFaultAdd) return x + value;
#ifdef __CUDA_ARCH__
  return __int_as_float(__float_as_int(x) ^ (1 << (bit & 31)));
#else
  union { float f; uint32_t u; } v{x};
  v.u ^= 1u << (bit & 31);
  return v.f;
#endif
}

}  // namespace aegis::abft
