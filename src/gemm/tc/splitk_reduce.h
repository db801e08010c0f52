// Second pass of a split-K tensor-core GEMM: C = alpha * (sum of the FP32 partial sums) +
// beta * C, rounded once to C's type.
#pragma once

#include "gemm/tc/tc_params.h"

namespace aegis::gemm::tc {

// Sums p.split_k slices of p.partial (m x n each, column-major with leading dimension m);
// beta = 0 never reads C.
cudaError_t launch_splitk_reduce(const TcGemmParams& p, cudaStream_t stream);

}  // namespace aegis::gemm::tc
