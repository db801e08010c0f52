// The non-fused FT-SGEMM baseline: checksums encoded by one kernel, a plain SIMT GEMM, and
// a verify/correct kernel, for comparison with the fused levels (aegisSetFtLevel).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "abft/ft_params.h"
#include "gemm/simt/gemm_params.h"

namespace aegis::abft {

// C = alpha op(A) op(B) + beta C as `gemm` computes it (a plain instance with tiles of
// tile_m x tile_n, p.split_k == 1), checked against checksums of the same tiles: p.ft says
// the mode, the faults to inject and where to count. `workspace` holds the checksum vectors
// and, in CORRECT mode with beta != 0, copies of C's column panels taken before the GEMM
// overwrites them; returns cudaErrorMemoryAllocation when workspace_bytes cannot hold them.
// Everything is queued on `stream` (no synchronization, graph-capturable).
cudaError_t run_nonfused_sgemm(const gemm::simt::GemmParams<float>& p, bool trans_a,
                               bool trans_b, gemm::simt::SgemmLaunchFn gemm, int tile_m,
                               int tile_n, void* workspace, size_t workspace_bytes,
                               cudaStream_t stream);

// Bytes of workspace run_nonfused_sgemm needs for an m x n product with these tiles (at
// least; more lets it encode K in fewer chunks and run the GEMM in fewer column panels):
// 4 bytes x (2 ceil(m / tile_m) n + 2 ceil(n / tile_n) m   checksums and magnitudes
//            + max(m min(tile_n, n), 64 (ceil(m / tile_m) + ceil(n / tile_n))))
// (one tile column of the C the call started with, or one K step of operand block sums),
// each array rounded up to 256 bytes. Independent of k.
size_t nonfused_workspace_bytes(int64_t m, int64_t n, int tile_m, int tile_n);

}  // namespace aegis::abft
