#include "gemm/simt/ft_checksums.h"

#include "common/grid_limits.h"
#include <algorithm>

#include "gemm/simt/ft_operand_sums.h"
#include "gemm/simt/ft_reference_tf32.h"

namespace aegis::gemm::simt {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
size_t round_up_256(size_t bytes) { return (bytes + 255) / 256 * 256; }

// The plain instance for a reference GEMM `width` columns wide (groups_n or groups_m): the
// narrowest compiled tile that covers it, since a wider one computes zero columns.
const SgemmInstance& reference_instance(int64_t width) {
  const char* name = width <= 32   ? "sgemm_simt_128x32x16_w32x32_t8x4"
                     : width <= 64 ? "sgemm_simt_128x64x8_w64x32_t8x8"
                                   : "sgemm_simt_128x128x16_w64x32_t8x8_f1";
  if (const SgemmInstance* inst = find_sgemm_instance(name)) return *inst;
  int count = 0;
  return *sgemm_instances(&count)[0];  // a build without it (AEGIS_SGEMM_CONFIGS)
}

// Grid y of one launch.
constexpr int64_t kMaxPiecesPerLaunch = kMaxGridDimY;

// out[s * rows * width + i + j * rows] = sum over piece s of K of op(X)(i, k) sums[j * ld + k]:
// op(X)(i, k) is X[i + k ldx], or X[k + i ldx] when trans_x.
cudaError_t launch_reference(const SgemmInstance& inst, bool trans_x, const float* X,
                             int64_t ldx, bool x_vec, int64_t rows, const float* sums,
                             int64_t sums_ld, int64_t width, int64_t k, Scalar<float> gate,
                             int pieces, int64_t k_per_piece, float* out, cudaStream_t stream) {
  for (int64_t s0 = 0; s0 < pieces; s0 += kMaxPiecesPerLaunch) {
    int64_t count = std::min<int64_t>(kMaxPiecesPerLaunch, pieces - s0);
    if (pieces - s0 - count == 1) --count;  // every launch splits K (see plan_ft_checksums)
    const int64_t k0 = s0 * k_per_piece;
    GemmParams<float> q{};
    q.m = rows;
    q.n = width;
    q.k = std::min(k - k0, count * k_per_piece);
    q.A = X + (trans_x ? k0 : k0 * ldx);  // k0 is a multiple of 4: alignment is kept
    q.lda = ldx;
    q.B = sums + k0;
    q.ldb = sums_ld;
    q.ldc = rows;
    q.alpha = gate;  // scales nothing (partials are unscaled): alpha = 0 reads nothing
    q.beta = {0.0f, nullptr};
    q.a_vec = x_vec;
    q.b_vec = true;
    q.split_k = static_cast<int>(count);
    q.k_per_split = k_per_piece;
    q.partial = out + s0 * rows * width;
    q.tiles_m = static_cast<int>(ceil_div(rows, inst.mtb));
    q.tiles_n = static_cast<int>(ceil_div(width, inst.ntb));
    const cudaError_t err = inst.launch[trans_x][false](q, stream);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace

FtChecksumPlan plan_ft_checksums(int64_t m, int64_t n, int64_t k, const SgemmInstance& gemm,
                                 FtLevel level, int verify_interval, int sm_count, int cc_major) {
  FtChecksumPlan plan{};
  plan.rows = ft_group_shape(level, gemm.mtb, gemm.mw, gemm.mt);
  plan.cols = ft_group_shape(level, gemm.ntb, gemm.nw, gemm.nt);
  plan.groups_m = ceil_div(m, gemm.mtb) * plan.rows.groups();
  plan.groups_n = ceil_div(n, gemm.ntb) * plan.cols.groups();
  plan.tf32 = cc_major >= 8;
  plan.a_sums_by_row_gemm = plan.tf32 && plan.rows.contiguous() && plan.rows.groups() == 1 &&
                            gemm.mtb == kFtReferenceTf32Rows;
  plan.dependent = plan.tf32 && cc_major >= 9;
  if (!plan.tf32) {  // a registry lookup by name: only where the SIMT path runs
    plan.row_gemm = &reference_instance(plan.groups_n);
    plan.col_gemm = &reference_instance(plan.groups_m);
  }
  if (verify_interval > 0) {
    plan.k_per_piece = static_cast<int64_t>(verify_interval) * gemm.ktb;
  } else if (plan.tf32) {
    // The pieces (at most 16, each at least 64 deep) that finish the slower of the two
    // grids soonest: waves of blocks times the K of one block; the fewest pieces on a tie.
    auto waves = [&](int64_t rows, int64_t width, int64_t pieces) {
      const int64_t blocks = ceil_div(rows, kFtReferenceTf32Rows) *
                             ceil_div(width, ft_reference_tf32_cols(width)) * pieces;
      return ceil_div(blocks, sm_count * int64_t{ft_reference_tf32_blocks_per_sm(width)});
    };
    const int64_t most = std::clamp<int64_t>(k / 64, 1, 16);
    int64_t best = 1, best_cost = -1;
    for (int64_t pieces = 1; pieces <= most; ++pieces) {
      const int64_t cost =
          std::max(waves(m, plan.groups_n, pieces), waves(n, plan.groups_m, pieces)) *
          ceil_div(k, pieces);
      if (best_cost < 0 || cost < best_cost) best = pieces, best_cost = cost;
    }
    plan.k_per_piece = ceil_div(ceil_div(k, best), 16) * 16;  // a multiple of every KTB
  } else {
    // Pieces to fill the SMs with the smaller of the two grids, each piece at least 64 deep.
    const auto& r = *plan.row_gemm;
    const auto& c = *plan.col_gemm;
    const int64_t grid = std::max<int64_t>(
        1, std::min(ceil_div(m, r.mtb) * ceil_div(plan.groups_n, r.ntb),
                    ceil_div(n, c.mtb) * ceil_div(plan.groups_m, c.ntb)));
    const int64_t slots = static_cast<int64_t>(sm_count) * std::min(r.blocks_per_sm, c.blocks_per_sm);
    const int64_t want = std::clamp<int64_t>(slots / grid, 1, std::max<int64_t>(1, k / 64));
    const int64_t pieces = std::min<int64_t>(want, 16);
    plan.k_per_piece = ceil_div(ceil_div(k, pieces), 16) * 16;  // a multiple of every KTB
  }
  // The SIMT path needs at least two pieces: the plain kernel writes unscaled partial sums only
  // when it splits K (a second piece past K is empty and holds zeros).
  plan.pieces = static_cast<int>(
      std::max<int64_t>(plan.tf32 ? 1 : 2, ceil_div(k, plan.k_per_piece)));
  plan.sums_ld = ft_sums_ld(k);
  size_t at = 0;
  auto take = [&](size_t bytes) {
    const size_t offset = at;
    at += round_up_256(bytes);
    return offset;
  };
  plan.a_sums_offset = take(sizeof(float) * plan.groups_m * plan.sums_ld);
  plan.b_sums_offset = take(sizeof(float) * plan.groups_n * plan.sums_ld);
  plan.row_ck_offset = take(sizeof(float) * plan.pieces * m * plan.groups_n);
  plan.col_ck_offset = take(sizeof(float) * plan.pieces * n * plan.groups_m);
  const int64_t tiles = ceil_div(m, gemm.mtb) * ceil_div(n, gemm.ntb);
  plan.redo_offset = take(sizeof(int) * (1 + tiles));  // count, then tiles
  plan.bytes = at;
  return plan;
}

cudaError_t launch_ft_checksums(GemmParams<float>& p, bool trans_a, bool trans_b,
                                const FtChecksumPlan& plan, void* scratch, cudaStream_t stream) {
  char* base = static_cast<char*>(scratch);
  float* a_sums = reinterpret_cast<float*>(base + plan.a_sums_offset);
  float* b_sums = reinterpret_cast<float*>(base + plan.b_sums_offset);
  float* row_ck = reinterpret_cast<float*>(base + plan.row_ck_offset);
  float* col_ck = reinterpret_cast<float*>(base + plan.col_ck_offset);
  p.ft.row_ck = row_ck;
  p.ft.col_ck = col_ck;
  p.ft.ck_pieces = plan.pieces;
  p.ft.ck_k_per_piece = plan.k_per_piece;
  p.ft.redo_count = reinterpret_cast<int*>(base + plan.redo_offset);
  p.ft.redo_tiles = p.ft.redo_count + 1;
  p.ft.redo_pass = 0;
  cudaError_t err = launch_ft_operand_sums(p, trans_a, trans_b, plan.rows, plan.cols,
                                           plan.a_sums_by_row_gemm ? nullptr : a_sums, b_sums,
                                           plan.sums_ld, p.ft.redo_count, stream);
  // row_ck = op(A) bsum^T: op(A) as is.
  // col_ck = op(B)^T asum^T: op(B)^T(j, k) is B[k + j ldb] (B not transposed) or B[j + k ldb].
  if (plan.tf32) {
    if (err == cudaSuccess)
      err = launch_ft_reference_tf32(trans_a, p.A, p.lda, p.a_vec, p.m, b_sums, plan.sums_ld,
                                     plan.groups_n, p.k, p.alpha, plan.pieces, plan.k_per_piece,
                                     row_ck, plan.a_sums_by_row_gemm ? a_sums : nullptr,
                                     plan.dependent, stream);
    if (err == cudaSuccess)
      err = launch_ft_reference_tf32(!trans_b, p.B, p.ldb, p.b_vec, p.n, a_sums, plan.sums_ld,
                                     plan.groups_m, p.k, p.alpha, plan.pieces, plan.k_per_piece,
                                     col_ck, nullptr, plan.dependent, stream);
    return err;
  }
  if (err == cudaSuccess)
    err = launch_reference(*plan.row_gemm, trans_a, p.A, p.lda, p.a_vec, p.m, b_sums,
                           plan.sums_ld, plan.groups_n, p.k, p.alpha, plan.pieces,
                           plan.k_per_piece, row_ck, stream);
  if (err == cudaSuccess)
    err = launch_reference(*plan.col_gemm, !trans_b, p.B, p.ldb, p.b_vec, p.n, a_sums,
                           plan.sums_ld, plan.groups_m, p.k, p.alpha, plan.pieces,
                           plan.k_per_piece, col_ck, stream);
  return err;
}

}  // namespace aegis::gemm::simt
