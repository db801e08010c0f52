// The reference GEMMs of the fused FT-SGEMM (step 2 of ft_checksums.h) on tensor cores, for
// compute capability 8.0 and up: FP32 accuracy from TF32 inputs by splitting each operand
// into a high and a low TF32 part (hi*hi + hi*lo + lo*hi, "3xTF32").
//
// Why: the references are narrow GEMMs (m x groups, groups = n / 128 at block level) with
// 16-64 FLOPs per byte of the operand they read. The SIMT instances ran them at ~29 TFLOP/s
// (43 % of the FFMA peak), 2.7 % of the plain GEMM's time at 4096^3 (docs/fault-tolerance.md,
// Cost); these run 1.1-1.4 times faster, and the one that reads op(A) also forms the operand
// sums of op(A), which saves the operand pass a read of A.
//
// Accuracy (the bound that abft::checksum_bound grants them, docs/fault-tolerance.md): with
// u = 2^-24 and S = sum |x||s| over the k summed,
//   - the split: hi is x with its low 13 bits cleared, lo the exact remainder x - hi with its
//     low 13 bits cleared (the tensor core ignores those bits); the dropped terms (lo*lo and
//     the two remainders) cost at most 48 u |x||s| per product;
//   - the tensor core adds its (exact) products to the accumulator after aligning them to the
//     largest, truncating. Allowing a window of 23 bits, one mma is off by at most
//     36 u (|accumulator| + its products); each 32-deep slice is a chain of 12 mma from zero
//     (at most ~470 u of the slice's magnitude), then added to an FP32 total with one FADD;
//   - the FADD chain over a piece's k / 32 slices, and the later sum of the pieces.
// In all, at most (520 + k / 32 + pieces) u S: below the k u S an FP32 FMA chain is allowed
// once k exceeds ~600, and within abft::kReferenceSlack below that.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {

// Rows of op(X) per thread block.
constexpr int kFtReferenceTf32Rows = 128;
// Columns of the result per thread block: 32, or 64 once the result is wider than 32.
inline int ft_reference_tf32_cols(int64_t width) { return width > 32 ? 64 : 32; }
// Thread blocks (of 4 warps) per SM: their registers and shared memory.
inline int ft_reference_tf32_blocks_per_sm(int64_t width) { return width > 32 ? 2 : 3; }

// out[s * rows * width + i + j * rows] = sum over k in piece s of op(X)(i, k) sums[j * ld + k]
// for i < rows, j < width and every piece s < pieces: piece s is [s kpp, min(k, (s + 1) kpp)),
// empty pieces write zeros. op(X)(i, k) is X[i + k ldx], or X[k + i ldx] when trans_x. x_vec:
// X and ldx allow 16-byte loads. sums and sums_ld are 16-byte aligned; kpp is a multiple of 4.
// gate: a scalar that, when 0, means nothing may be read (partials are zeros); otherwise
// unused (the partials are unscaled).
// x_sums (may be null): also x_sums[b * sums_ld + k] = sum of op(X)(i, k) over the rows i of
// block b of kFtReferenceTf32Rows (i < rows) for k < K, and 0 for K <= k < sums_ld (the layout
// of ft_operand_sums.h): the operand sums of op(X) as a by-product of reading it, where the
// check groups are those blocks. Its pieces must together cover K.
// dependent: a programmatic dependent launch (compute capability 9 and up). Its blocks wait
// for the kernel before them in the stream, then let the next kernel's blocks launch
// (common/dependent_launch.cuh); they do both without the launch attribute too, at no cost.
cudaError_t launch_ft_reference_tf32(bool trans_x, const float* X, int64_t ldx, bool x_vec,
                                     int64_t rows, const float* sums, int64_t sums_ld,
                                     int64_t width, int64_t k, Scalar<float> gate, int pieces,
                                     int64_t k_per_piece, float* out, float* x_sums,
                                     bool dependent, cudaStream_t stream);

}  // namespace aegis::gemm::simt
