#include "result_compare.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda_check.h"

namespace aegis::inject {
namespace {

constexpr int kThreads = 256;
constexpr double kUnitRoundoff = 0x1p-24;
// Keeps the units finite where a bound is zero (an all-zero line) and a difference is not.
constexpr float kTinyBound = 1e-38f;

double gamma(double operations) {
  double nu = operations * kUnitRoundoff;
  return nu / (1.0 - nu);
}

__global__ void abs_kernel(float* data, int64_t count) {
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    data[i] = fabsf(data[i]);
}

__device__ void atomic_max_nonnegative(float* address, float value) {
  atomicMax(reinterpret_cast<unsigned*>(address), __float_as_uint(value));
}

__global__ void compare_kernel(const float* c, const float* clean, const float* element_bound,
                               const float* line_bound, const float* column_scale, int64_t m,
                               int64_t count, Difference* result) {
  unsigned long long differing = 0;
  float element = 0, line = 0, relative = 0;
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    float x = c[i], y = clean[i];
    if (__float_as_uint(x) == __float_as_uint(y)) continue;
    ++differing;
    float diff = (isnan(x) || isnan(y)) ? INFINITY : fabsf(x - y);
    element = fmaxf(element, diff / fmaxf(element_bound[i], kTinyBound));
    line = fmaxf(line, diff / fmaxf(line_bound[i], kTinyBound));
    relative = fmaxf(relative, diff / fmaxf(column_scale[i / m], kTinyBound));
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    differing += __shfl_xor_sync(0xffffffffu, differing, offset);
    element = fmaxf(element, __shfl_xor_sync(0xffffffffu, element, offset));
    line = fmaxf(line, __shfl_xor_sync(0xffffffffu, line, offset));
    relative = fmaxf(relative, __shfl_xor_sync(0xffffffffu, relative, offset));
  }
  if (threadIdx.x % 32 != 0 || differing == 0) return;
  atomicAdd(&result->differing, differing);
  atomic_max_nonnegative(&result->max_element_units, element);
  atomic_max_nonnegative(&result->max_line_units, line);
  atomic_max_nonnegative(&result->max_relative, relative);
}

unsigned blocks_for(int64_t count) {
  int64_t blocks = (count + kThreads - 1) / kThreads;
  return unsigned(std::min<int64_t>(std::max<int64_t>(blocks, 1), 4096));
}

}  // namespace

size_t ResultComparer::device_bytes(int64_t m, int64_t n, int64_t k) {
  using bench::DeviceArena;
  return 2 * DeviceArena::footprint_of<float>(m * n) + DeviceArena::footprint_of<float>(n) +
         DeviceArena::footprint_of<float>(m * k) + DeviceArena::footprint_of<float>(k * n) +
         DeviceArena::footprint_of<Difference>(1);
}

ResultComparer::ResultComparer(bench::DeviceArena& arena, int64_t m, int64_t n, int64_t k)
    : m_(m), n_(n), k_(k) {
  element_bound_ = arena.take<float>(m * n);
  line_bound_ = arena.take<float>(m * n);
  column_scale_ = arena.take<float>(n);
  abs_a_ = arena.take<float>(m * k);
  abs_b_ = arena.take<float>(k * n);
  result_ = arena.take<Difference>(1);
}

void ResultComparer::prepare(const ProductLayout& product, const float* clean, int tile_m,
                             int tile_n, cublasHandle_t cublas, cudaStream_t stream) {
  const int64_t m = m_, n = n_, k = k_;
  clean_ = clean;
  // |op(A)| |op(B)| in FP32: only the scale of the bounds, so its own rounding is immaterial.
  AEGIS_BENCH_CHECK_CUDA(
      cudaMemcpyAsync(abs_a_, product.a, size_t(m * k) * sizeof(float), cudaMemcpyDeviceToDevice,
                      stream));
  AEGIS_BENCH_CHECK_CUDA(
      cudaMemcpyAsync(abs_b_, product.b, size_t(k * n) * sizeof(float), cudaMemcpyDeviceToDevice,
                      stream));
  abs_kernel<<<blocks_for(m * k), kThreads, 0, stream>>>(abs_a_, m * k);
  abs_kernel<<<blocks_for(k * n), kThreads, 0, stream>>>(abs_b_, k * n);
  AEGIS_BENCH_CHECK_CUDA(cudaGetLastError());
  auto op = [](aegisOperation_t o) { return o == AEGIS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T; };
  const float one = 1.0f, zero = 0.0f;
  AEGIS_BENCH_CHECK_CUBLAS(cublasSgemm_v2(
      cublas, op(product.transa), op(product.transb), int(m), int(n), int(k), &one, abs_a_,
      int(product.transa == AEGIS_OP_N ? m : k), abs_b_, int(product.transb == AEGIS_OP_N ? k : n),
      &zero, element_bound_, int(m)));

  std::vector<float> magnitude(size_t(m * n)), clean_host(size_t(m * n));
  AEGIS_BENCH_CHECK_CUDA(cudaMemcpyAsync(magnitude.data(), element_bound_,
                                         magnitude.size() * sizeof(float),
                                         cudaMemcpyDeviceToHost, stream));
  AEGIS_BENCH_CHECK_CUDA(cudaMemcpyAsync(clean_host.data(), clean,
                                         clean_host.size() * sizeof(float),
                                         cudaMemcpyDeviceToHost, stream));
  AEGIS_BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));

  // Sums of |A||B| over each tile's column pieces and row pieces, in double.
  const int64_t tiles_m = (m + tile_m - 1) / tile_m, tiles_n = (n + tile_n - 1) / tile_n;
  std::vector<double> column_piece(size_t(tiles_m * n), 0.0), row_piece(size_t(tiles_n * m), 0.0);
  std::vector<float> column_scale(size_t(n), 0.0f);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double value = magnitude[size_t(i + j * m)];
      column_piece[size_t(i / tile_m + j * tiles_m)] += value;
      row_piece[size_t(j / tile_n + i * tiles_n)] += value;
      column_scale[size_t(j)] =
          std::max(column_scale[size_t(j)], std::fabs(clean_host[size_t(i + j * m)]));
    }
  const double gamma_element = gamma(double(k));
  const double gamma_line = gamma(2.0 * double(k) + 4.0 * std::max(tile_m, tile_n) + 8.0);
  std::vector<float> element(size_t(m * n)), line(size_t(m * n));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      size_t e = size_t(i + j * m);
      element[e] = float(gamma_element * magnitude[e]);
      line[e] = float(gamma_line * std::max(column_piece[size_t(i / tile_m + j * tiles_m)],
                                            row_piece[size_t(j / tile_n + i * tiles_n)]));
    }
  AEGIS_BENCH_CHECK_CUDA(cudaMemcpyAsync(element_bound_, element.data(),
                                         element.size() * sizeof(float), cudaMemcpyHostToDevice,
                                         stream));
  AEGIS_BENCH_CHECK_CUDA(cudaMemcpyAsync(line_bound_, line.data(), line.size() * sizeof(float),
                                         cudaMemcpyHostToDevice, stream));
  AEGIS_BENCH_CHECK_CUDA(cudaMemcpyAsync(column_scale_, column_scale.data(),
                                         column_scale.size() * sizeof(float),
                                         cudaMemcpyHostToDevice, stream));
  AEGIS_BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));  // the host vectors die here
}

Difference ResultComparer::compare(const float* c, cudaStream_t stream) const {
  AEGIS_BENCH_CHECK_CUDA(cudaMemsetAsync(result_, 0, sizeof(Difference), stream));
  compare_kernel<<<blocks_for(m_ * n_), kThreads, 0, stream>>>(
      c, clean_, element_bound_, line_bound_, column_scale_, m_, m_ * n_, result_);
  AEGIS_BENCH_CHECK_CUDA(cudaGetLastError());
  Difference difference;
  AEGIS_BENCH_CHECK_CUDA(
      cudaMemcpyAsync(&difference, result_, sizeof(Difference), cudaMemcpyDeviceToHost, stream));
  AEGIS_BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  return difference;
}

}  // namespace aegis::inject
