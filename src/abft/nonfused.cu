// Placeholder until the non-fused baseline lands: reports that it is not built.
#include "abft/nonfused.h"

namespace aegis::abft {

cudaError_t run_nonfused_sgemm(const gemm::simt::GemmParams<float>&, bool, bool,
                               gemm::simt::SgemmLaunchFn, int, int, void*, size_t, cudaStream_t) {
  return cudaErrorNotSupported;
}

size_t nonfused_workspace_bytes(int64_t, int64_t, int, int) { return 0; }

}  // namespace aegis::abft
