// Tensor-core GEMM with mma.sync (sm_80 and newer): the path for GPUs before Hopper and for
// calls whose operands a TMA descriptor cannot describe (unaligned pointers, odd strides).
#pragma once

#include "gemm/tc/tc_params.h"

namespace aegis::gemm::sm80 {

// Any m, n, k >= 1, any lda/ldb/ldc, any pointer alignment, every transpose pair, every
// A/B/C type combination of TcGemmParams; beta = 0 never reads C.
cudaError_t launch_gemm_mma_sync(const tc::TcGemmParams& p, cudaStream_t stream);

}  // namespace aegis::gemm::sm80
