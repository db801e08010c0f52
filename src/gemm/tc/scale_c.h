// C = beta * C for the tensor-core GEMM's alpha = 0 / k = 0 cases (beta = 0 writes zeros and
// never reads C, so NaN/Inf already there do not survive).
#pragma once

#include "gemm/tc/tc_params.h"

namespace aegis::gemm::tc {

// Uses p.m, p.n, p.C, p.ldc, p.c_type and p.beta only.
cudaError_t launch_scale_c(const TcGemmParams& p, cudaStream_t stream);

}  // namespace aegis::gemm::tc
