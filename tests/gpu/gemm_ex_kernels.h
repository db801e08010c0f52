// Device helpers of the tensor-core GEMM tests (aegisGemmEx / aegisHgemm): typed random fills
// with NaN outside the matrix, bitwise comparisons of FP16/BF16/FP32 buffers, and the FP64
// reference with the error bound of FP32 accumulation. Our own simple kernels (one thread per
// element, 64-bit indexing), independent of the library under test.
//
// Every function runs on the legacy default stream; those that return a result synchronize
// the device first. CUDA errors are thrown as std::runtime_error (GoogleTest reports them).
#pragma once

#include <cstddef>
#include <cstdint>

#include "aegis/aegis.h"
#include "gpu_kernels.h"

namespace aegis_test {

size_t data_type_bytes(aegisDataType_t t);
const char* data_type_tag(aegisDataType_t t);  // "f16", "bf16", "f32"

enum class TypedFill {
  Uniform,  // u uniform in [-1, 1) rounded to the element type; magnitudes below 2^-12 are
            // raised to 2^-12 (no FP16 subnormals, whose handling is not what is tested)
  Grid,     // j / 32 with j a nonzero integer in [-32, 32]: exact in FP16 and BF16, and every
            // partial sum of up to 2^14 products of such values is exact in FP32
  NaN       // quiet NaN
};

// Fills buf[0, count) (elements of type t): the elements of the window (rows x cols at
// window_offset, leading dimension ld) with `inside`, all others with `outside`. Values depend
// only on (seed, index).
void fill_typed(void* buf, aegisDataType_t t, size_t count, size_t window_offset, int64_t ld,
                int64_t rows, int64_t cols, TypedFill inside, TypedFill outside, uint64_t seed);

// Elements of now[0..count) whose bits differ from before[]. Elements of the window (rows x
// cols at window_offset, leading dimension window_ld) are not compared.
uint64_t count_changed_typed(const void* now, const void* before, aegisDataType_t t, size_t count,
                             size_t window_offset = 0, int64_t window_ld = 1,
                             int64_t window_rows = 0, int64_t window_cols = 0);

// Elements of the m x n matrix C that are neither round_C(fl32(beta * C0)) nor
// round_C(beta * C0) (0 where beta == 0, whatever C0 holds), comparing values (-0 == +0);
// NaN never matches.
uint64_t count_not_scaled_typed(const void* C, const void* C0, aegisDataType_t t, int64_t ldc,
                                int64_t m, int64_t n, float beta);

// Non-finite elements of the m x n matrix C.
uint64_t count_nonfinite_typed(const void* C, aegisDataType_t t, int64_t ldc, int64_t m,
                               int64_t n);

// Checks D = alpha op(A) op(B) + beta C0 (written to C) against an FP64 reference, per element
//   |D - D_ref| <= 2 (u_C |D_ref| + |alpha| (k' 2^-23 + 2^-23) S + 2^-23 |beta C0|) + eta_C
// with S = sum_l |a_il| |b_lj|, k' = k (0 where exact_sums), u_C the unit roundoff of C's type
// and eta_C half its smallest subnormal spacing; gemm_ex_kernels.cu derives it. Where
// alpha == 0, A and B are not read; where beta == 0, C0 is not.
struct GemmExCheckArgs {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1.0, beta = 0.0;
  aegisDataType_t ab_type = AEGIS_R_16F, c_type = AEGIS_R_32F;
  const void* A = nullptr;
  int64_t lda = 1;
  const void* B = nullptr;
  int64_t ldb = 1;
  const void* C0 = nullptr;
  const void* C = nullptr;
  int64_t ldc = 1;
  // A and B hold TypedFill::Grid values and k <= 2^14: every FP32 partial sum is exact, so
  // the bound has no accumulation term (any wrong or missing product shows).
  bool exact_sums = false;
  // Checks columns 0, col_step, 2 col_step, ... and n - 1 (1: every column).
  int64_t col_step = 1;
};

// Largest k for which Grid inputs make every FP32 partial sum exact.
constexpr int64_t kExactSumMaxK = int64_t(1) << 14;

GemmCheckResult check_gemm_ex(const GemmExCheckArgs& args);

}  // namespace aegis_test
