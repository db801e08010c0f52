#include "gemm_check.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "cuda_check.h"
#include "device_kernels.h"
#include "gemm_types.h"

namespace aegis::bench {
namespace {

// Rows and columns of C checked element by element. Each costs one pass over an operand.
constexpr int64_t kSampledLines = 8;

int64_t sampled_count(int64_t extent) { return std::min(extent, kSampledLines); }

// The first and last line (where tile-edge mistakes show) and random others, sorted.
std::vector<int64_t> sample_lines(int64_t extent, std::mt19937_64& random) {
  std::set<int64_t> lines = {0, extent - 1};
  std::uniform_int_distribution<int64_t> pick(0, extent - 1);
  while (int64_t(lines.size()) < sampled_count(extent)) lines.insert(pick(random));
  return {lines.begin(), lines.end()};
}

int64_t scratch_count(int64_t m, int64_t n, int64_t k) { return std::max({m, n, k}); }

}  // namespace

size_t GemmCheck::device_bytes(int64_t m, int64_t n, int64_t k) {
  int64_t rows = sampled_count(m), columns = sampled_count(n);
  return DeviceArena::footprint_of<double>(n) +                // x
         2 * DeviceArena::footprint_of<double>(k) +            // op(B) x and its bound
         2 * DeviceArena::footprint_of<double>(m) +            // projection and bound
         2 * DeviceArena::footprint_of<double>(rows * n) +     // sampled rows
         2 * DeviceArena::footprint_of<double>(columns * m) +  // sampled columns
         DeviceArena::footprint_of<double>(scratch_count(m, n, k)) +
         DeviceArena::footprint_of<double>(m) +                // |C| |x|
         DeviceArena::footprint_of<double>(m + rows * n + columns * m);  // errors
}

GemmCheck::GemmCheck(DeviceArena& arena, const GemmOperands& operands, uint64_t seed,
                     uint64_t stream_id, cudaStream_t stream)
    : operands_(operands) {
  const int64_t m = operands.m, n = operands.n, k = operands.k;
  const int64_t lda = operands.lda, ldb = operands.ldb;
  std::mt19937_64 random(seed ^ (stream_id * 0x9E3779B97F4A7C15ull));
  rows_ = sample_lines(m, random);
  columns_ = sample_lines(n, random);
  x_ = arena.take<double>(n);
  double* bx = arena.take<double>(k);
  double* bx_bound = arena.take<double>(k);
  projection_ = arena.take<double>(m);
  projection_bound_ = arena.take<double>(m);
  row_reference_ = arena.take<double>(int64_t(rows_.size()) * n);
  row_bound_ = arena.take<double>(int64_t(rows_.size()) * n);
  column_reference_ = arena.take<double>(int64_t(columns_.size()) * m);
  column_bound_ = arena.take<double>(int64_t(columns_.size()) * m);
  scratch_ = arena.take<double>(scratch_count(m, n, k));
  c_magnitude_ = arena.take<double>(m);
  error_count_ = m + int64_t(rows_.size()) * n + int64_t(columns_.size()) * m;
  errors_ = arena.take<double>(error_count_);

  const bool a_transposed = operands.transa != AEGIS_OP_N;
  const bool b_transposed = operands.transb != AEGIS_OP_N;
  AEGIS_BENCH_CHECK_CUDA(fill_uniform(x_, n, seed, stream_id, stream));
  // A and B have the same element type: one typed pass over each, with pointer arithmetic in
  // elements of that type.
  with_element_pointer(operands.type, operands.a, [&](auto* a) {
    const auto* b = static_cast<decltype(a)>(operands.b);
    AEGIS_BENCH_CHECK_CUDA(
        gemv_fp64(b_transposed, k, n, b, ldb, x_, nullptr, bx, bx_bound, stream));
    AEGIS_BENCH_CHECK_CUDA(gemv_fp64(a_transposed, m, k, a, lda, bx, bx_bound, projection_,
                                     projection_bound_, stream));
    // Row i of C is op(B)^T times row i of op(A); op(B)^T is B itself when B is stored
    // transposed, hence the flipped flag.
    for (size_t s = 0; s < rows_.size(); ++s) {
      int64_t i = rows_[s];
      AEGIS_BENCH_CHECK_CUDA(a_transposed ? gather_fp64(k, a + i * lda, 1, scratch_, stream)
                                          : gather_fp64(k, a + i, lda, scratch_, stream));
      AEGIS_BENCH_CHECK_CUDA(gemv_fp64(!b_transposed, n, k, b, ldb, scratch_, nullptr,
                                       row_reference_ + s * n, row_bound_ + s * n, stream));
    }
    // Column j of C is op(A) times column j of op(B).
    for (size_t s = 0; s < columns_.size(); ++s) {
      int64_t j = columns_[s];
      AEGIS_BENCH_CHECK_CUDA(b_transposed ? gather_fp64(k, b + j, ldb, scratch_, stream)
                                          : gather_fp64(k, b + j * ldb, 1, scratch_, stream));
      AEGIS_BENCH_CHECK_CUDA(gemv_fp64(a_transposed, m, k, a, lda, scratch_, nullptr,
                                       column_reference_ + s * m, column_bound_ + s * m,
                                       stream));
    }
    return 0;
  });
}

CheckResult GemmCheck::check(const void* c_data, aegisDataType_t c_type, int64_t ldc,
                             double alpha, cudaStream_t stream) const {
  const int64_t m = operands_.m, n = operands_.n, k = operands_.k;
  const double u = std::ldexp(1.0, -24);
  const double unit = std::fabs(alpha) * double(k) * u / (1.0 - double(k) * u);  // |alpha| gamma_k
  // SGEMM's gamma_k already holds its last rounding; 16-bit operands add the one rounding
  // of the FP32 sum to C's type (see gemm_check.h).
  const bool rounded_to_c = operands_.type != AEGIS_R_32F;
  const double u_c = unit_roundoff(c_type);
  const double rounding = rounded_to_c ? u_c / (1.0 - u_c) : 0.0;
  const double underflow = rounded_to_c ? underflow_error(c_type) : 0.0;
  double* errors = errors_;
  with_element_pointer(c_type, c_data, [&](auto* c) {
    // The projection: sum_j |x_j| <= n copies of the underflow term.
    AEGIS_BENCH_CHECK_CUDA(gemv_fp64(false, m, n, c, ldc, x_, nullptr, scratch_,
                                     rounded_to_c ? c_magnitude_ : nullptr, stream));
    AEGIS_BENCH_CHECK_CUDA(normalized_difference(
        m, scratch_, rounded_to_c ? c_magnitude_ : nullptr, projection_, alpha,
        projection_bound_, unit, rounding, underflow * double(n), errors, stream));
    errors += m;
    for (size_t s = 0; s < rows_.size(); ++s, errors += n) {
      AEGIS_BENCH_CHECK_CUDA(gather_fp64(n, c + rows_[s], ldc, scratch_, stream));
      AEGIS_BENCH_CHECK_CUDA(normalized_difference(n, scratch_, nullptr, row_reference_ + s * n,
                                                   alpha, row_bound_ + s * n, unit, rounding,
                                                   underflow, errors, stream));
    }
    for (size_t s = 0; s < columns_.size(); ++s, errors += m) {
      AEGIS_BENCH_CHECK_CUDA(gather_fp64(m, c + columns_[s] * ldc, 1, scratch_, stream));
      AEGIS_BENCH_CHECK_CUDA(normalized_difference(
          m, scratch_, nullptr, column_reference_ + s * m, alpha, column_bound_ + s * m, unit,
          rounding, underflow, errors, stream));
    }
    return 0;
  });
  std::vector<double> host_errors(static_cast<size_t>(error_count_));
  AEGIS_BENCH_CHECK_CUDA(cudaMemcpyAsync(host_errors.data(), errors_,
                                         host_errors.size() * sizeof(double),
                                         cudaMemcpyDeviceToHost, stream));
  AEGIS_BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  CheckResult result;
  for (double e : host_errors)
    result.max_error = std::isnan(e) ? INFINITY : std::max(result.max_error, e);
  result.passed = result.max_error <= kErrorLimit;
  return result;
}

}  // namespace aegis::bench
