#include "dispatch/gemm_ex_dispatch.h"

#include "common/context.h"
#include "common/errors.h"
#include "dispatch/gemm_dispatch.h"
#include "dispatch/tuning_table.h"
#include "gemm/tc/scale_c.h"
#include "gemm/tc/splitk_reduce.h"

namespace aegis::dispatch {

namespace {

// The most slices dispatch makes of K (each a multiple of the kernel's stage_k).
constexpr int kTcMaxSplit = 16;

bool runs_here(const aegisContext& h, const gemm::tc::TcInstance& inst,
               const gemm::tc::TcGemmParams& p) {
  return h.cc_major >= inst.needs.min_cc_major && gemm::tc::tc_can_run(inst, p);
}

// All of p's tiles under inst run at once: no more than the SMs' CTA slots.
bool fits_one_wave(const aegisContext& h, const gemm::tc::TcInstance& inst,
                   const gemm::tc::TcGemmParams& p) {
  const int64_t tiles = ((p.m + inst.tile_m - 1) / inst.tile_m) *
                        ((p.n + inst.tile_n - 1) / inst.tile_n);
  return tiles <= static_cast<int64_t>(h.sm_count) * inst.blocks_per_sm;
}

// choose_split_k for one kernel, one slot per SM: the CTAs that share an SM
// (blocks_per_sm > 1) share its tensor cores, so filling the second CTA slot by splitting K
// buys no throughput and adds the reduction (measured on the H200: 64x64x64_s6_x2 on
// 128x4096x4096 took 24.0 us split 2 against 21.2 us unsplit; docs/perf-notes.md TC-2).
int split_for(const aegisContext& h, const gemm::tc::TcInstance& inst,
              const gemm::tc::TcGemmParams& p) {
  if (!inst.needs.split_k) return 1;
  return choose_split_k(p.m, p.n, p.k, inst.tile_m, inst.tile_n, inst.stage_k, kTcMaxSplit,
                        h.sm_count, h.workspace_bytes());
}

}  // namespace

const char* few_tiles_config(const TuningTable& table, aegisShapeClass_t shape_class) {
  for (aegisShapeClass_t c : {shape_class, AEGIS_SHAPE_MEDIUM}) {
    const GemmExTuningRow* row = gemm_ex_row(table, c);
    if (row && row->few_tiles_config) return row->few_tiles_config;
  }
  const GemmExTuningRow* small_row = gemm_ex_row(table, AEGIS_SHAPE_SMALL);
  return small_row ? small_row->config : nullptr;
}

const gemm::tc::TcInstance* plan_gemm_ex(const aegisContext& h,
                                         const gemm::tc::TcGemmParams& p) {
  const gemm::tc::TcInstance* fallback = gemm::tc::tc_fallback_instance();
  if (h.cc_major < fallback->needs.min_cc_major) return nullptr;
  if (!h.gemm_ex_override_config.empty()) {
    const auto* inst = gemm::tc::find_tc_instance(h.gemm_ex_override_config.c_str());
    if (inst && runs_here(h, *inst, p)) return inst;
  }
  if (h.tuning) {
    const GemmExTuningRow* row = gemm_ex_row(*h.tuning, gemm_shape_class(p.m, p.n, p.k));
    if (row) {
      const auto* one_wave = gemm::tc::find_tc_instance(row->one_wave_config);
      if (one_wave && runs_here(h, *one_wave, p) && fits_one_wave(h, *one_wave, p))
        return one_wave;
      const auto* inst = gemm::tc::find_tc_instance(row->config);
      if (inst && runs_here(h, *inst, p)) return inst;
    }
  }
  return fallback;
}

GemmExPlan plan_gemm_ex_call(const aegisContext& h, const gemm::tc::TcGemmParams& p) {
  GemmExPlan plan{plan_gemm_ex(h, p), 1};
  if (!plan.instance) return plan;
  plan.split_k = split_for(h, *plan.instance, p);
  const bool overridden = !h.gemm_ex_override_config.empty() &&
                          h.gemm_ex_override_config == plan.instance->name;
  if (plan.split_k == 1 || overridden || !h.tuning) return plan;
  const gemm::tc::TcInstance* few = gemm::tc::find_tc_instance(
      few_tiles_config(*h.tuning, gemm_shape_class(p.m, p.n, p.k)));
  if (!few || few == plan.instance || !runs_here(h, *few, p)) return plan;
  if (p.k > kFewTilesMaxK) return plan;
  if (split_for(h, *few, p) == 1) plan = {few, 1};
  return plan;
}

aegisStatus_t run_gemm_ex(aegisContext* h, const gemm::tc::TcGemmParams& p,
                          const char* routine) {
  h->last_gemm_ex_kernel.clear();
  h->last_gemm_ex_split = 0;
  // A handle made for host-only tests has no device to launch on.
  if (h->device < 0)
    return detail::fail(h, AEGIS_STATUS_EXECUTION_FAILED, routine, "the handle has no device");
  const bool alpha_zero = !p.alpha.device_ptr && p.alpha.value == 0.0f;
  if (p.k == 0 || alpha_zero) {
    return detail::from_cuda(h, routine, gemm::tc::launch_scale_c(p, h->stream));
  }
  const GemmExPlan plan = plan_gemm_ex_call(*h, p);
  const gemm::tc::TcInstance* inst = plan.instance;
  if (!inst)
    return detail::fail(h, AEGIS_STATUS_ARCH_MISMATCH, routine,
                        "tensor-core GEMM needs compute capability 8.0 or newer (device has %d.%d)",
                        h->cc_major, h->cc_minor);
  gemm::tc::TcGemmParams run = p;
  // As for SGEMM, K is split only while the tiles leave most SMs idle.
  run.split_k = plan.split_k;
  if (run.split_k > 1) {
    run.k_per_split = k_per_split(p.k, run.split_k, inst->stage_k);
    run.partial = static_cast<float*>(h->workspace());
  }
  cudaError_t err = inst->launch(run, h->stream);
  if (err == cudaSuccess && run.split_k > 1) err = gemm::tc::launch_splitk_reduce(run, h->stream);
  const aegisStatus_t status = detail::from_cuda(h, routine, err);
  if (status != AEGIS_STATUS_SUCCESS) return status;
  h->last_gemm_ex_kernel = inst->name;
  h->last_gemm_ex_split = run.split_k;
  return AEGIS_STATUS_SUCCESS;
}

}  // namespace aegis::dispatch
