// The routine-independent half of the GPU suite's FP64 reference checks of C: which
// columns are checked, one grid-stride pass over the checked elements that counts failures
// (normalized error above 1) and keeps the first failure and the largest error, and the
// reading of those totals into a GemmCheckResult. Each check (SGEMM, tensor-core GEMM)
// supplies its own element check: the reference sum and the error bound.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "gpu_kernels.h"
#include "test_device_support.cuh"

namespace aegis_test {
namespace {

// Columns checked: all n, or every col_step-th column and the last one.
__host__ __device__ __forceinline__ int64_t sampled_column_count(int64_t n, int64_t col_step) {
  return col_step <= 1 ? n : (n + col_step - 1) / col_step + 1;
}
// Column of C that the c-th checked column is.
__host__ __device__ __forceinline__ int64_t sampled_column(int64_t c, int64_t n,
                                                           int64_t col_step) {
  if (col_step <= 1) return c;
  const int64_t j = c * col_step;
  return j < n ? j : n - 1;
}
// Checked elements, column-major over the checked columns.
__host__ __device__ __forceinline__ uint64_t sampled_element_count(int64_t m, int64_t n,
                                                                   int64_t col_step) {
  return static_cast<uint64_t>(m) * static_cast<uint64_t>(sampled_column_count(n, col_step));
}

struct CheckTotals {
  unsigned long long failures;
  unsigned long long first_failure;  // index into the checked elements (column-major)
  unsigned long long max_error_bits;
};
constexpr CheckTotals kNoChecksYet = {0, kNone, 0};

// One grid-stride pass over the checked elements of an m x n C; error_of(i, j) is the
// normalized error of C(i, j) (a failure above 1, NaN a failure). Every thread of the
// launch calls it; blocks of kThreads threads.
template <typename ErrorOf>
__device__ void check_sampled_elements(int64_t m, int64_t n, int64_t col_step,
                                       const ErrorOf& error_of, CheckTotals* totals) {
  const uint64_t total = sampled_element_count(m, n, col_step);
  uint64_t failures = 0, first = kNone;
  double max_error = 0.0;
  for (uint64_t idx = grid_start(); idx < total; idx += grid_stride()) {
    const int64_t i = static_cast<int64_t>(idx % static_cast<uint64_t>(m));
    const int64_t j = sampled_column(static_cast<int64_t>(idx / static_cast<uint64_t>(m)), n,
                                     col_step);
    const double error = error_of(i, j);
    if (!(error <= 1.0)) {
      ++failures;
      first = idx < first ? idx : first;
    }
    if (error == error && error > max_error) max_error = error;
  }
  failures = block_sum(failures);
  first = block_min(first);
  max_error = block_max(max_error);
  if (threadIdx.x == 0) {
    if (failures) atomicAdd(&totals->failures, static_cast<unsigned long long>(failures));
    if (first != kNone) atomicMin(&totals->first_failure, static_cast<unsigned long long>(first));
    // Non-negative doubles order like their bit patterns.
    atomicMax(&totals->max_error_bits,
              static_cast<unsigned long long>(__double_as_longlong(max_error)));
  }
}

// The counts of a finished pass, and where its first failure is (fail_i, fail_j; the
// element's value, reference and bound are the caller's to fill).
GemmCheckResult read_totals(const CheckTotals& t, int64_t m, int64_t n, int64_t col_step) {
  GemmCheckResult r;
  r.checked = sampled_element_count(m, n, col_step);
  r.failures = t.failures;
  const long long bits = static_cast<long long>(t.max_error_bits);
  std::memcpy(&r.max_error, &bits, sizeof(double));
  if (t.failures) {
    r.fail_i = static_cast<int64_t>(t.first_failure % static_cast<uint64_t>(m));
    r.fail_j = sampled_column(static_cast<int64_t>(t.first_failure / static_cast<uint64_t>(m)),
                              n, col_step);
  }
  return r;
}

}  // namespace
}  // namespace aegis_test
