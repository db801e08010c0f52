#include "dispatch/gemm_ex_dispatch.h"

#include "common/context.h"
#include "common/errors.h"
#include "dispatch/gemm_dispatch.h"
#include "dispatch/tuning_table.h"
#include "gemm/tc/scale_c.h"

namespace aegis::dispatch {

namespace {

bool runs_here(const aegisContext& h, const gemm::tc::TcInstance& inst,
               const gemm::tc::TcGemmParams& p) {
  return h.cc_major >= inst.needs.min_cc_major && gemm::tc::tc_can_run(inst, p);
}

}  // namespace

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
      const auto* inst = gemm::tc::find_tc_instance(row->config);
      if (inst && runs_here(h, *inst, p)) return inst;
    }
  }
  return fallback;
}

aegisStatus_t run_gemm_ex(aegisContext* h, const gemm::tc::TcGemmParams& p,
                          const char* routine) {
  h->last_gemm_ex_kernel.clear();
  const bool alpha_zero = !p.alpha.device_ptr && p.alpha.value == 0.0f;
  if (p.k == 0 || alpha_zero) {
    return detail::from_cuda(h, routine, gemm::tc::launch_scale_c(p, h->stream));
  }
  const gemm::tc::TcInstance* inst = plan_gemm_ex(*h, p);
  if (!inst)
    return detail::fail(h, AEGIS_STATUS_ARCH_MISMATCH, routine,
                        "tensor-core GEMM needs compute capability 8.0 or newer (device has %d.%d)",
                        h->cc_major, h->cc_minor);
  const aegisStatus_t status = detail::from_cuda(h, routine, inst->launch(p, h->stream));
  if (status != AEGIS_STATUS_SUCCESS) return status;
  h->last_gemm_ex_kernel = inst->name;
  return AEGIS_STATUS_SUCCESS;
}

}  // namespace aegis::dispatch
