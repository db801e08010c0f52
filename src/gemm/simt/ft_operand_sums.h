// Per-tile operand sums for the fused block-level ABFT (ft_block.cuh), formed by one
// memory-bound pass before the GEMM:
//   a_sums[t * ld + k] = sum of op(A)(i, k) over the rows i of tile row t   (i < m),
//   b_sums[u * ld + k] = sum of op(B)(k, j) over the columns j of tile column u (j < n),
// for k < K, and 0 for K <= k < ld (ld = ft_sums_ld(K), a multiple of 16, so that a slice
// of any KTB may read its sums past K without a bounds check). Every thread block of a GEMM tile row needs
// the same A sums: forming them once here instead of in each block that loads the tile
// saves tiles_n - 1 of every tiles_n encodes, and the K loop is left with the update alone.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {

inline int64_t ft_sums_ld(int64_t k) { return (k + 15) / 16 * 16; }

// Bytes of both arrays, each rounded up to 256 bytes.
size_t ft_operand_sums_bytes(int64_t m, int64_t n, int64_t k, int tile_m, int tile_n);

// Writes both arrays into `sums` (ft_operand_sums_bytes of 16-byte aligned memory) and sets
// p.ft.a_sums, p.ft.b_sums, p.ft.sums_ld. With alpha = 0 (device pointer mode) nothing is
// read or written: the GEMM then reads neither operand nor sum.
cudaError_t launch_ft_operand_sums(GemmParams<float>& p, bool trans_a, bool trans_b,
                                   int tile_m, int tile_n, void* sums, cudaStream_t stream);

}  // namespace aegis::gemm::simt
