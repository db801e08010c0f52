#include "dispatch/gemm_dispatch.h"

#include <cstdint>

#include "abft/nonfused.h"
#include "common/context.h"
#include "common/errors.h"
#include "common/scratch.h"
#include "dispatch/tuning_table.h"
#include "gemm/simt/ft_checksums.h"
#include "gemm/simt/gemm_params.h"

namespace aegis::dispatch {

namespace {
constexpr const char* kRoutine = "aegisSgemm";

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

gemm::simt::Scalar<float> scalar(const aegisContext& h, const float* p) {
  if (h.pointer_mode == AEGIS_POINTER_MODE_DEVICE) return {0.0f, p};
  return {*p, nullptr};
}

// The FT part of a launch: mode, interval, and the armed faults of this call (which the
// call consumes). Advances the handle's FT call count.
abft::FtParams take_ft_params(aegisContext* h) {
  abft::FtParams ft{};
  ft.mode = static_cast<abft::FtMode>(h->ft_mode);
  ft.verify_interval = static_cast<int>(h->ft_verify_interval);
  ft.call = h->ft_serial - h->ft_serial_at_reset;
  ft.stats = h->ft_stats;
  auto& armed = h->ft_armed;
  for (size_t i = 0; i < armed.size();) {
    if (armed[i].serial == h->ft_serial && ft.num_faults < abft::kMaxFaultsPerCall) {
      const aegisFault_t& f = armed[i].fault;
      ft.faults[ft.num_faults++] = {f.row, f.col, f.k_step, static_cast<int>(f.kind),
                                    static_cast<int>(f.target), f.bit, f.value};
      armed.erase(armed.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
  ++h->ft_serial;
  return ft;
}
// A side of at most 64 rows or columns: the table's tiles are 128 wide on both sides and
// would compute mostly padding there. Measured on the H200 (docs/dispatch.md, forced
// configurations against cuBLAS): 4096 x 32 x 4096 ran at 0.44x with the class's 128 x 128
// tile and 1.00x with 128 x 32; 32 x 8192 x 8192 at 0.35x and 0.85x with 32 x 32; split 16
// at least as fast as 8 on every such shape. nullptr: no narrow side, or a build without
// the tile. The names are looked up once, not per call.
const gemm::simt::SgemmInstance* narrow_side_instance(int64_t m, int64_t n) {
  using gemm::simt::find_sgemm_instance;
  static const gemm::simt::SgemmInstance* const m32 =
      find_sgemm_instance("sgemm_simt_32x32x8_w32x32_t4x8");
  static const gemm::simt::SgemmInstance* const m64 =
      find_sgemm_instance("sgemm_simt_64x64x8_w32x32_t8x4");
  static const gemm::simt::SgemmInstance* const n32 =
      find_sgemm_instance("sgemm_simt_128x32x16_w32x32_t8x4");
  static const gemm::simt::SgemmInstance* const n64 =
      find_sgemm_instance("sgemm_simt_128x64x8_w64x32_t8x8");
  if (m <= 32) return m32;
  if (m <= 64) return m64;
  if (n <= 32) return n32;
  if (n <= 64) return n64;
  return nullptr;
}
// The named configuration, or the first one built where this build left it out
// (AEGIS_SGEMM_CONFIGS), so that the rules after it see the tile that will run.
const gemm::simt::SgemmInstance* instance_or_first(const char* name) {
  if (const gemm::simt::SgemmInstance* inst = gemm::simt::find_sgemm_instance(name)) return inst;
  int count = 0;
  return gemm::simt::sgemm_instances(&count)[0];
}
}  // namespace

aegisShapeClass_t gemm_shape_class(int64_t m, int64_t n, int64_t k) {
  // Boundaries by work (m n k) and aspect; documented in docs/dispatch.md.
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (work <= 67108864.0 /* 2^26 */) return AEGIS_SHAPE_SMALL;
  if (m >= 8 * n) return AEGIS_SHAPE_TALL;
  if (n >= 8 * m) return AEGIS_SHAPE_WIDE;
  if (work <= 4294967296.0 /* 2^32 */) return AEGIS_SHAPE_MEDIUM;
  if (work <= 137438953472.0 /* 2^37 */) return AEGIS_SHAPE_LARGE;
  return AEGIS_SHAPE_HUGE;
}

int64_t k_per_split(int64_t k, int split, int ktb) {
  return ceil_div(ceil_div(k, split), ktb) * ktb;
}

int choose_split_k(int64_t m, int64_t n, int64_t k, int mtb, int ntb, int ktb, int max_split,
                   int block_slots, size_t workspace_bytes) {
  if (max_split <= 1) return 1;
  const int64_t tiles = ceil_div(m, mtb) * ceil_div(n, ntb);
  // Splitting pays only while the tiles leave most block slots idle: measured on the H200
  // (aegis-tune, docs/perf-notes.md), half-filled slots already beat the reduction's cost.
  if (2 * tiles > block_slots) return 1;
  // As many slices as fit in one wave: one more would start a second, nearly empty wave
  // (measured: 16 tiles x 9 slices on 132 slots ran at 0.6x of 16 x 8).
  int64_t split = block_slots / tiles;
  if (split > max_split) split = max_split;
  const int64_t deepest = k / (static_cast<int64_t>(kMinSplitKTiles) * ktb);
  if (split > deepest) split = deepest;
  const int64_t bytes_per_slice = m * n * static_cast<int64_t>(sizeof(float));
  const int64_t fit = bytes_per_slice > 0 ? static_cast<int64_t>(workspace_bytes) / bytes_per_slice : 0;
  if (split > fit) split = fit;
  if (split <= 1) return 1;
  // Rounding each slice up to whole k-tiles can leave fewer non-empty slices than asked:
  // report the count that actually has work.
  return static_cast<int>(ceil_div(k, k_per_split(k, static_cast<int>(split), ktb)));
}

SgemmPlan plan_sgemm(const aegisContext& h, int64_t m, int64_t n, int64_t k) {
  SgemmPlan plan{};
  plan.shape_class = gemm_shape_class(m, n, k);
  const bool ft_on = h.ft_mode != AEGIS_FT_OFF;
  const SgemmTuningRow& row = ft_on ? sgemm_ft_row(*h.tuning, plan.shape_class)
                                    : sgemm_row(*h.tuning, plan.shape_class);
  int max_split = row.max_split;
  plan.instance = instance_or_first(row.config);
  // Small products keep their class's tile (latency bound, measured per class by the tuner);
  // the others take a narrow tile where one side is narrow and the class's tile is wider.
  if (plan.shape_class != AEGIS_SHAPE_SMALL) {
    const gemm::simt::SgemmInstance* narrow = narrow_side_instance(m, n);
    if (narrow && (narrow->mtb < plan.instance->mtb || narrow->ntb < plan.instance->ntb)) {
      plan.instance = narrow;
      max_split = kNarrowMaxSplit;
    }
  }
  if (!h.sgemm_override_config.empty()) {
    plan.instance = instance_or_first(h.sgemm_override_config.c_str());
    if (h.sgemm_override_max_split > 0) max_split = h.sgemm_override_max_split;
  }
  const auto& inst = *plan.instance;
  // FT checksums cover whole tiles: no split-K.
  if (ft_on) max_split = 1;
  plan.split_k = choose_split_k(m, n, k, inst.mtb, inst.ntb, inst.ktb, max_split,
                                h.sm_count * inst.blocks_per_sm, h.workspace_bytes());
  plan.k_per_split = plan.split_k > 1 ? k_per_split(k, plan.split_k, inst.ktb) : k;
  return plan;
}

aegisStatus_t run_sgemm(aegisContext* h, bool trans_a, bool trans_b, int64_t m, int64_t n,
                        int64_t k, const float* alpha, const float* A, int64_t lda,
                        const float* B, int64_t ldb, const float* beta, float* C, int64_t ldc) {
  if (h->device < 0)
    return detail::fail(h, AEGIS_STATUS_EXECUTION_FAILED, kRoutine, "the handle has no device");
  const bool ft_on = h->ft_mode != AEGIS_FT_OFF;
  const SgemmPlan plan = plan_sgemm(*h, m, n, k);
  const auto& inst = *plan.instance;

  gemm::simt::GemmParams<float> p{};
  p.m = m; p.n = n; p.k = k;
  p.A = A; p.lda = lda;
  p.B = B; p.ldb = ldb;
  p.C = C; p.ldc = ldc;
  p.alpha = scalar(*h, alpha);
  p.beta = scalar(*h, beta);
  p.a_vec = aligned16(A) && lda % 4 == 0;
  p.b_vec = aligned16(B) && ldb % 4 == 0;
  p.c_vec = aligned16(C) && ldc % 4 == 0;
  p.split_k = plan.split_k;
  p.k_per_split = plan.k_per_split;
  p.partial = plan.split_k > 1 ? static_cast<float*>(h->workspace()) : nullptr;
  const int64_t tiles_m = ceil_div(m, inst.mtb), tiles_n = ceil_div(n, inst.ntb);
  if (tiles_m * tiles_n > INT32_MAX)
    return detail::fail(h, AEGIS_STATUS_NOT_SUPPORTED, kRoutine,
                        "m = %lld, n = %lld need more than 2^31 thread blocks",
                        static_cast<long long>(m), static_cast<long long>(n));
  p.tiles_m = static_cast<int>(tiles_m);
  p.tiles_n = static_cast<int>(tiles_n);

  h->last_sgemm_kernel.assign("sgemm_simt_");
  h->last_sgemm_kernel.push_back(trans_a ? 't' : 'n');
  h->last_sgemm_kernel.push_back(trans_b ? 't' : 'n');
  h->last_sgemm_kernel.append(inst.name + sizeof("sgemm_simt") - 1);  // "_128x128x8_..."
  h->last_sgemm_split = plan.split_k;

  if (ft_on) {
    p.ft = take_ft_params(h);
    cudaError_t err;
    if (h->ft_level == AEGIS_FT_LEVEL_NONFUSED) {
      h->last_sgemm_kernel.append("_ftnonfused");
      // A workspace the user set is the budget; the handle's own grows into the call scratch
      // when the checksums do not fit (128 x 128 tiles at n = 16384 need 40 MB).
      const size_t need = abft::nonfused_workspace_bytes(m, n, inst.mtb, inst.ntb);
      void* ws = h->workspace();
      size_t ws_bytes = h->workspace_bytes();
      if (!h->user_workspace && ws_bytes < need) {
        ws = detail::call_scratch(h, need, &ws_bytes);
        if (!ws)
          return detail::fail(h, AEGIS_STATUS_ALLOC_FAILED, kRoutine,
                              "cannot allocate %zu bytes for the non-fused checksums", need);
      }
      err = abft::run_nonfused_sgemm(p, trans_a, trans_b, inst.launch[trans_a][trans_b], inst.mtb,
                                     inst.ntb, ws, ws_bytes, h->stream);
      if (err == cudaErrorMemoryAllocation)
        return detail::fail(h, AEGIS_STATUS_ALLOC_FAILED, kRoutine,
                            "the non-fused checksums need %zu bytes of workspace, the handle has %zu",
                            need, ws_bytes);
    } else {
      const auto level = static_cast<gemm::simt::FtLevel>(h->ft_level);
      h->last_sgemm_kernel.append(h->ft_level == AEGIS_FT_LEVEL_WARP     ? "_ftwarp"
                                  : h->ft_level == AEGIS_FT_LEVEL_THREAD ? "_ftthread"
                                                                         : "_ftblock");
      // The reference checksums the fused checks compare with, then the fused GEMM.
      const gemm::simt::FtChecksumPlan ck =
          gemm::simt::plan_ft_checksums(m, n, k, inst, level,
                                        static_cast<int>(h->ft_verify_interval), h->sm_count,
                                        h->cc_major);
      void* scratch = detail::call_scratch(h, ck.bytes);
      if (!scratch)
        return detail::fail(h, AEGIS_STATUS_ALLOC_FAILED, kRoutine,
                            "cannot allocate %zu bytes for the reference checksums (%d pieces of K)",
                            ck.bytes, ck.pieces);
      err = gemm::simt::launch_ft_checksums(p, trans_a, trans_b, ck, scratch, h->stream);
      if (err == cudaSuccess)
        err = inst.ft[static_cast<int>(level)]->launch[trans_a][trans_b](p, h->stream);
    }
    return detail::from_cuda(h, kRoutine, err);
  }

  cudaError_t err = inst.launch[trans_a][trans_b](p, h->stream);
  if (err == cudaSuccess && plan.split_k > 1)
    err = gemm::simt::launch_splitk_reduce(p, plan.split_k, h->stream);
  return detail::from_cuda(h, kRoutine, err);
}

aegisStatus_t run_sgemm_scale(aegisContext* h, int64_t m, int64_t n, const float* beta,
                              float* C, int64_t ldc) {
  if (h->device < 0)
    return detail::fail(h, AEGIS_STATUS_EXECUTION_FAILED, kRoutine, "the handle has no device");
  gemm::simt::GemmParams<float> p{};
  p.m = m; p.n = n;
  p.C = C; p.ldc = ldc;
  p.alpha = {0.0f, nullptr};
  p.beta = scalar(*h, beta);
  h->last_sgemm_kernel.assign("sgemm_scale");
  h->last_sgemm_split = 0;
  return detail::from_cuda(h, kRoutine, gemm::simt::launch_splitk_reduce(p, 0, h->stream));
}

}  // namespace aegis::dispatch
