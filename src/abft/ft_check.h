// The arithmetic of a checksum check, shared by the fused kernels, the non-fused baseline
// and the CPU tests: the rounding-error bound that separates rounding from faults, and
// the verdict a pattern of bad rows and columns leads to. Host and device callable.
//
// A tile check compares, for each column j of an MTB-row tile after kk products,
//   ck_j  = sum_k fl(sum_i a_ik) b_kj        (the checksum, from the operands), with
//   sum_j = sum_i acc_ij                     (the accumulators, from the GEMM),
// and likewise for rows. Both are FP32 sums of the same exact quantity; with
// S_j = sum_i sum_k |a_ik| |b_kj| and u = 2^-24, standard FMA/summation bounds give
//   |ck_j - sum_j| <= (2 gamma_kk + 2 gamma_MTB) S_j (+ an underflow floor per operation),
// gamma_n = n u / (1 - n u). docs/fault-tolerance.md derives it.
#pragma once

#include <math.h>  // isfinite/fabsf in host and device code alike

#include <cmath>
#include <cstdint>

#include "common/host_device.h"

namespace aegis::abft {

constexpr float kUnitRoundoff = 5.9604644775390625e-08f;  // 2^-24
// Absolute error an operation can add near underflow. 2^-126, not the subnormal spacing
// 2^-149, because float atomics flush subnormals to zero.
constexpr float kUnderflowFloor = 1.17549435e-38f;

// Extra operations granted to the fused checks' reference checksums: on tensor cores (3xTF32,
// gemm/simt/ft_reference_tf32.h) they carry at most (520 + k/32 + pieces) u S, which is within
// gamma_k S plus this for every k.
constexpr int kReferenceSlack = 576;

// Bound on |checksum - sum of accumulators| for a line (column or row) of a tile whose
// checksum sums `tile_len` accumulators over k_done products, given mag = a computed
// S (sum of |a||b| over the line, itself rounded: hence the (1 + gamma_N) factor), with
// extra_ops more operations allowed to the checksum's chain.
// Infinity when FP32 cannot bound it (k_done around 2^22 and beyond).
AEGIS_HOST_DEVICE inline float rounding_bound(float mag, int64_t k_done, int tile_len,
                                              int extra_ops = 0) {
  const double lines = static_cast<double>(k_done) + static_cast<double>(tile_len);
  // Both sums' chains, the residual's own rounding, the extra operations.
  const double n = 2.0 * lines + 8.0 + extra_ops;
  const double nu = n * static_cast<double>(kUnitRoundoff);
  if (nu >= 0.5) return INFINITY;
  // gamma = x / (1 - x) <= x (1 + 2x) for x <= 1/2: no division (slow on the device).
  const double gamma_n = nu * (1.0 + 2.0 * nu);
  const double lu = lines * static_cast<double>(kUnitRoundoff);
  const double gamma_lines = lu * (1.0 + 2.0 * lu);
  return static_cast<float>(gamma_n * (1.0 + gamma_lines) * static_cast<double>(mag) +
                            n * static_cast<double>(kUnderflowFloor));
}

// The bound of a fused check's line against its reference checksum (ft_block.cuh,
// ft_group_check.cuh): rounding_bound with the reference's slack.
AEGIS_HOST_DEVICE inline float checksum_bound(float mag, int64_t k_done, int tile_len) {
  return rounding_bound(mag, k_done, tile_len, kReferenceSlack);
}

// A lower estimate of checksum_bound from the checksum alone: |ck| <= S (1 + gamma_N)^2 with
// N = k_done + tile_len + kReferenceSlack (a tensor-core reference is off by less than
// gamma_N S), so a residual within this is surely rounding and the line needs no magnitude
// pass.
AEGIS_HOST_DEVICE inline float cheap_bound(float checksum, int64_t k_done, int tile_len) {
  const double lu = (static_cast<double>(k_done) + tile_len + kReferenceSlack) *
                    static_cast<double>(kUnitRoundoff);
  const double g = lu * (1.0 + 2.0 * lu);  // >= gamma_N while the bound is finite
  const float b = checksum_bound(fabsf(checksum), k_done, tile_len);
  // (1 - 2^-20): room for the float roundings of the checksum and of this quotient.
  return static_cast<float>(static_cast<double>(b) / ((1.0 + g) * (1.0 + g)) * (1.0 - 0x1p-20));
}

// Whether a residual r exceeds bound b. NaN residuals count as bad (a fault made the
// accumulators non-finite while the checksums, from finite inputs, are finite).
AEGIS_HOST_DEVICE inline bool exceeds(float r, float b) { return !(fabsf(r) <= b); }

enum class Verdict : int {
  kClean = 0,       // no line beyond its bound
  kNonFinite = 1,   // the inputs are not finite (Inf/NaN, or overflow: the checksums and
                    // the line's magnitude or accumulators alike); IEEE propagation decides
                    // the result, nothing is checked. A checksum alone that is not finite
                    // is a fault (a non-finite residual: kRecompute)
  kCorrectOne = 2,  // one bad row and one bad column with matching finite residuals:
                    // one element is wrong by the residual and is repaired in place
  kRecompute = 3    // anything else (several lines, one line alone, non-finite residual)
};

// bad_rows/bad_cols: lines beyond their bound. row_residual/col_residual: the residuals of
// the single bad row and column (used only when there is one of each); tolerance: the sum
// of their two bounds. inputs_finite: no line of the tile has non-finite inputs.
AEGIS_HOST_DEVICE inline Verdict classify(int bad_rows, int bad_cols, float row_residual,
                                          float col_residual, float tolerance,
                                          bool inputs_finite) {
  if (!inputs_finite) return Verdict::kNonFinite;
  if (bad_rows == 0 && bad_cols == 0) return Verdict::kClean;
  if (bad_rows == 1 && bad_cols == 1 && isfinite(row_residual) && isfinite(col_residual) &&
      fabsf(row_residual - col_residual) <= tolerance)
    return Verdict::kCorrectOne;
  return Verdict::kRecompute;
}

}  // namespace aegis::abft
