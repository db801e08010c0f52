// Operand sums for the fused ABFT, formed by one memory-bound pass before the GEMM (the
// first step of ft_checksums.h), over the checksum groups of the level (ft_groups.h):
//   a_sums[t * ld + k] = sum of op(A)(i, k) over the rows i of row group t    (i < m),
//   b_sums[u * ld + k] = sum of op(B)(k, j) over the columns j of column group u (j < n),
// where group t is group t % groups() of tile row t / groups() (tile column likewise),
// for k < K, and 0 for K <= k < ld (ld = ft_sums_ld(K), a multiple of 4, so that rows are
// 16-byte aligned for the reference GEMMs' vector loads).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "gemm/simt/ft_groups.h"
#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {

inline int64_t ft_sums_ld(int64_t k) { return (k + 3) / 4 * 4; }

// Writes both arrays (16-byte aligned, rows of ld floats), or b_sums alone when a_sums is null
// (the reference GEMM that reads op(A) forms them then, ft_reference_tf32.h), and zeroes
// *redo_count (the FT kernel's count of tiles to compute again). With alpha = 0 (device
// pointer mode) nothing is read and no sum written: the GEMM then reads neither operand nor
// sum.
cudaError_t launch_ft_operand_sums(const GemmParams<float>& p, bool trans_a, bool trans_b,
                                   const FtGroupShape& rows, const FtGroupShape& cols,
                                   float* a_sums, float* b_sums, int64_t ld, int* redo_count,
                                   cudaStream_t stream);

}  // namespace aegis::gemm::simt
