// GEMM dispatch: shape class -> tuning row -> kernel instance and split-K -> launch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "aegis/aegis.h"
#include "gemm/simt/sgemm_registry.h"

struct aegisContext;

namespace aegis::dispatch {

// Shape class of an m x n x k product (see docs/dispatch.md for the boundaries).
aegisShapeClass_t gemm_shape_class(int64_t m, int64_t n, int64_t k);

// Split-K factor for a grid of mtb x ntb tiles: 1 when the tiles alone fill more than half
// the block_slots thread blocks the GPU runs at once (SMs x resident blocks per SM); otherwise
// as many slices as fit in one full wave, at most max_split, slices at least
// kMinSplitKTiles k-tiles deep (all but the last, which holds the remainder), and the
// partial sums (split * m * n floats) within
// workspace_bytes. The returned factor is exact: ceil(k / k_per_split(...)) equals it.
constexpr int kMinSplitKTiles = 4;
// The split-K limit of the narrow-side tiles plan_sgemm takes for a side of at most 64.
constexpr int kNarrowMaxSplit = 16;
int choose_split_k(int64_t m, int64_t n, int64_t k, int mtb, int ntb, int ktb, int max_split,
                   int block_slots, size_t workspace_bytes);
// K elements per slice for a split factor: a multiple of ktb.
int64_t k_per_split(int64_t k, int split, int ktb);

struct SgemmPlan {
  const gemm::simt::SgemmInstance* instance;
  aegisShapeClass_t shape_class;
  int split_k;
  int64_t k_per_split;
};

// Chooses the kernel for an SGEMM on this handle: the tuning table's row for the shape class
// (with an FT mode set, the FT rows and no split-K); outside the small class, a narrow tile
// with split-K up to kNarrowMaxSplit where m or n is at most 64 and the row's tile is wider;
// the handle's override before all.
SgemmPlan plan_sgemm(const aegisContext& h, int64_t m, int64_t n, int64_t k);

// Runs C = alpha op(A) op(B) + beta C (arguments already checked, m, n, k > 0).
// alpha/beta point to host or device memory according to the handle's pointer mode.
aegisStatus_t run_sgemm(aegisContext* h, bool trans_a, bool trans_b, int64_t m, int64_t n,
                        int64_t k, const float* alpha, const float* A, int64_t lda,
                        const float* B, int64_t ldb, const float* beta, float* C, int64_t ldc);

// C = beta * C (the alpha = 0 or k = 0 cases), beta in the handle's pointer mode.
aegisStatus_t run_sgemm_scale(aegisContext* h, int64_t m, int64_t n, const float* beta,
                              float* C, int64_t ldc);

}  // namespace aegis::dispatch
