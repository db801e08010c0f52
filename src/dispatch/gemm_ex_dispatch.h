// Tensor-core GEMM dispatch (aegisGemmEx, aegisHgemm): architecture, operand alignment,
// shape class and tuning table -> kernel instance -> launch.
#pragma once

#include "aegis/aegis.h"
#include "gemm/tc/tc_params.h"
#include "gemm/tc/tc_registry.h"

struct aegisContext;

namespace aegis::dispatch {

// The instance that runs p on this handle: the handle's override if it can run p, else the
// tuning table's choice for p's shape class if it can, else the mma.sync fallback; nullptr
// when the device has no tensor-core path (compute capability below 8.0).
const gemm::tc::TcInstance* plan_gemm_ex(const aegisContext& h, const gemm::tc::TcGemmParams& p);

// Runs p (arguments already checked; m, n > 0). k = 0, or alpha = 0 in host pointer mode,
// scales C by beta; anything else launches the planned kernel and records its name in
// h->last_gemm_ex_kernel. routine names the API entry for error texts.
aegisStatus_t run_gemm_ex(aegisContext* h, const gemm::tc::TcGemmParams& p, const char* routine);

}  // namespace aegis::dispatch
