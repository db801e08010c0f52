// Device helpers of the GPU suite: random fills, bitwise comparisons and the FP64 reference
// GEMM with its error bound. Our own simple kernels (one thread per element, 64-bit
// indexing), independent of the library under test.
//
// Every function runs on the legacy default stream; those that return a result synchronize
// the device first. CUDA errors are thrown as std::runtime_error (GoogleTest reports them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace aegis_test {

// Launches a trivial kernel of this binary and waits: "" if it ran, else the CUDA error
// (for example, no kernel image for the device's architecture).
std::string probe_test_kernel();

// p[i] = lo + (hi - lo) * u_i with u_i uniform in [0, 1) on a 2^-24 grid, from a
// counter-based generator: the values depend only on (seed, i).
void fill_uniform(float* p, size_t count, uint64_t seed, float lo, float hi);
void fill_constant(float* p, size_t count, float value);

// Elements of now[0..count) whose bits differ from before[]. Elements of the window
// (rows x cols at `window_offset`, leading dimension window_ld) are not compared.
uint64_t count_changed(const float* now, const float* before, size_t count,
                       size_t window_offset = 0, int64_t window_ld = 1, int64_t window_rows = 0,
                       int64_t window_cols = 0);

// Elements of the m x n matrix C that are not exactly beta * C0 (0 where beta == 0, whatever
// C0 holds), comparing values (so -0 == +0); NaN never matches.
uint64_t count_not_scaled(const float* C, const float* C0, int64_t ldc, int64_t m, int64_t n,
                          float beta);

// Non-finite elements of the m x n matrix C.
uint64_t count_nonfinite(const float* C, int64_t ldc, int64_t m, int64_t n);

// Checks C = alpha op(A) op(B) + beta C0 against an FP64 reference. Per element
//   err = |C - Cref| / (gamma_{k+2} |alpha| (|op(A)| |op(B)|)_ij + gamma_2 |beta C0_ij| + tiny)
// must be <= 1 (NaN fails), gamma_j = j u / (1 - j u), u = 2^-24. gamma_{k+2} and gamma_2
// (not gamma_k and 2u) cover the roundings of alpha * acc, beta * C0 and their sum, which
// exist even for k = 1. Where alpha == 0, A and B are not read; where beta == 0, C0 is not.
struct GemmCheckArgs {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1.0, beta = 0.0;
  const float* A = nullptr;
  int64_t lda = 1;
  const float* B = nullptr;
  int64_t ldb = 1;
  const float* C0 = nullptr;
  const float* C = nullptr;
  int64_t ldc = 1;
  // Checks columns 0, col_step, 2 col_step, ... and n - 1 (1: every column).
  int64_t col_step = 1;
};

struct GemmCheckResult {
  uint64_t checked = 0;
  uint64_t failures = 0;
  double max_error = 0.0;  // largest normalized error, NaN excluded
  // The first failing element in column-major order (-1 if none).
  int64_t fail_i = -1, fail_j = -1;
  float fail_value = 0.0f;
  double fail_ref = 0.0, fail_denominator = 0.0;
};

GemmCheckResult check_gemm(const GemmCheckArgs& args);

}  // namespace aegis_test
