// The arithmetic of a checksum check, shared by the fused kernels, the non-fused baseline
// and the CPU tests: the rounding-error bound that separates rounding from faults, and
// the verdict a pattern of bad rows and columns leads to. Host and device callable.
//
// A tile check compares, for each column j of an MTB-row tile after kk products,
//   ck_j  = sum_k fl(sum_i a_ik) b_kj        (the checksum, from the operands), with
//   sum_j = sum_i acc_ij                     (the accumulators, from the GEMM),
// and likewise for rows. Both are FP32 sums of the same exact quantity; with
// S_j = sum_i sum_k |a_ik| |b_kj| and u = 2^-24, standard FMA/summation bounds give
//   |ck_j - sum_j| <= (2 gamma_kk + 2 gamma_MTB) S_j (+ subnormal spacing per operation),
// gamma_n = n u / (1 - n u). docs/fault-tolerance.md derives it.
#pragma once

#include <cmath>
#include <cstdint>

namespace aegis::abft {

#ifdef __CUDACC__
#define AEGIS_HD __host__ __device__
#else
#define AEGIS_HD
#endif

constexpr float kUnitRoundoff = 5.9604644775390625e-08f;  // 2^-24
constexpr float kSubnormalSpacing = 1.40129846e-45f;     // 2^-149

// Bound on |checksum - sum of accumulators| for a line (column or row) of a tile whose
// checksum sums `tile_len` accumulators over k_done products, given mag = a computed
// S (sum of |a||b| over the line). Infinity when FP32 cannot bound it (k_done ~ 2^23).
AEGIS_HD inline float rounding_bound(float mag, int64_t k_done, int tile_len) {
  // Operation count of the two chains, plus slack for the computed mag's own rounding.
  const double n = 2.0 * static_cast<double>(k_done) + 4.0 * tile_len + 8.0;
  const double nu = n * static_cast<double>(kUnitRoundoff);
  if (nu >= 0.5) return INFINITY;
  const float gamma = static_cast<float>(nu / (1.0 - nu));
  return gamma * mag + static_cast<float>(n) * kSubnormalSpacing;
}

// A lower estimate of rounding_bound from the checksum alone: |ck| <= S (1 + gamma)^2, so
// a residual within this is surely rounding and the line needs no magnitude pass.
AEGIS_HD inline float cheap_bound(float checksum, int64_t k_done, int tile_len) {
  const float b = rounding_bound(fabsf(checksum), k_done, tile_len);
  return b * 0.5f;  // (1 + gamma)^2 <= 2 whenever the bound is finite (gamma < 1)
}

// Whether a residual r exceeds bound b. NaN residuals count as bad (a fault made the
// accumulators non-finite while the checksums, from finite inputs, are finite).
AEGIS_HD inline bool exceeds(float r, float b) { return !(fabsf(r) <= b); }

enum class Verdict : int {
  kClean = 0,       // no line beyond its bound
  kNonFinite = 1,   // the checksums themselves are not finite: inputs with Inf/NaN (or
                    // overflow); IEEE propagation decides the result, nothing is checked
  kCorrectOne = 2,  // one bad row and one bad column with matching finite residuals:
                    // one element is wrong by the residual and is repaired in place
  kRecompute = 3    // anything else (several lines, one line alone, non-finite residual)
};

// bad_rows/bad_cols: lines beyond their bound. row_residual/col_residual: the residuals of
// the single bad row and column (used only when there is one of each); tolerance: the sum
// of their two bounds. checksums_finite: every checksum of the tile is finite.
AEGIS_HD inline Verdict classify(int bad_rows, int bad_cols, float row_residual,
                                 float col_residual, float tolerance, bool checksums_finite) {
  if (!checksums_finite) return Verdict::kNonFinite;
  if (bad_rows == 0 && bad_cols == 0) return Verdict::kClean;
  if (bad_rows == 1 && bad_cols == 1 && isfinite(row_residual) && isfinite(col_residual) &&
      fabsf(row_residual - col_residual) <= tolerance)
    return Verdict::kCorrectOne;
  return Verdict::kRecompute;
}

#undef AEGIS_HD

}  // namespace aegis::abft
