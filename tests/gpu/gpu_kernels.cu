#include "gpu_kernels.h"
#include "sampled_check.cuh"
#include "test_device_support.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace aegis_test {
namespace {

__global__ void probe_kernel(int* out) { *out = 42; }

__global__ void fill_uniform_kernel(float* p, uint64_t count, uint64_t seed, float lo,
                                    float scale) {
  for (uint64_t i = grid_start(); i < count; i += grid_stride()) {
    const uint64_t r = splitmix64(seed ^ splitmix64(i));
    const float u = static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
    p[i] = lo + scale * u;
  }
}

__global__ void fill_constant_kernel(float* p, uint64_t count, float value) {
  for (uint64_t i = grid_start(); i < count; i += grid_stride()) p[i] = value;
}

struct Window {
  uint64_t offset;
  int64_t ld, rows, cols;
  __device__ bool contains(uint64_t idx) const {
    if (rows <= 0 || cols <= 0 || idx < offset) return false;
    const uint64_t rel = idx - offset;
    return rel / static_cast<uint64_t>(ld) < static_cast<uint64_t>(cols) &&
           rel % static_cast<uint64_t>(ld) < static_cast<uint64_t>(rows);
  }
};

__global__ void count_changed_kernel(const float* now, const float* before, uint64_t count,
                                     Window window, unsigned long long* result) {
  uint64_t changed = 0;
  for (uint64_t i = grid_start(); i < count; i += grid_stride())
    if (!window.contains(i) && __float_as_uint(now[i]) != __float_as_uint(before[i])) ++changed;
  changed = block_sum(changed);
  if (threadIdx.x == 0 && changed) atomicAdd(result, static_cast<unsigned long long>(changed));
}

__global__ void count_not_scaled_kernel(const float* C, const float* C0, int64_t ldc, int64_t m,
                                        int64_t n, float beta, unsigned long long* result) {
  uint64_t bad = 0;
  const uint64_t total = static_cast<uint64_t>(m) * static_cast<uint64_t>(n);
  for (uint64_t idx = grid_start(); idx < total; idx += grid_stride()) {
    const int64_t i = static_cast<int64_t>(idx % m), j = static_cast<int64_t>(idx / m);
    const float expected = beta == 0.0f ? 0.0f : __fmul_rn(beta, C0[i + j * ldc]);
    if (!(C[i + j * ldc] == expected)) ++bad;
  }
  bad = block_sum(bad);
  if (threadIdx.x == 0 && bad) atomicAdd(result, static_cast<unsigned long long>(bad));
}

__global__ void count_nonfinite_kernel(const float* C, int64_t ldc, int64_t m, int64_t n,
                                       unsigned long long* result) {
  uint64_t bad = 0;
  const uint64_t total = static_cast<uint64_t>(m) * static_cast<uint64_t>(n);
  for (uint64_t idx = grid_start(); idx < total; idx += grid_stride()) {
    const int64_t i = static_cast<int64_t>(idx % m), j = static_cast<int64_t>(idx / m);
    if (!isfinite(C[i + j * ldc])) ++bad;
  }
  bad = block_sum(bad);
  if (threadIdx.x == 0 && bad) atomicAdd(result, static_cast<unsigned long long>(bad));
}

// ---- reference GEMM ---------------------------------------------------------------------

struct CheckParams {
  GemmCheckArgs a;
  double gamma_k2, gamma_2;
};

struct ElementCheck {
  float value;
  double ref, denominator, error;
};

// The FP64 reference and the normalized error of one element of C.
__device__ ElementCheck check_element(const CheckParams& p, int64_t i, int64_t j) {
  const GemmCheckArgs& a = p.a;
  double sum = 0.0, abs_sum = 0.0;
  if (a.alpha != 0.0) {
    for (int64_t l = 0; l < a.k; ++l) {
      const double x = a.trans_a ? a.A[l + i * a.lda] : a.A[i + l * a.lda];
      const double y = a.trans_b ? a.B[j + l * a.ldb] : a.B[l + j * a.ldb];
      const double xy = x * y;  // exact: a product of two floats fits a double
      sum += xy;
      abs_sum += fabs(xy);
    }
  }
  const double c0 = a.beta != 0.0 ? static_cast<double>(a.C0[i + j * a.ldc]) : 0.0;
  ElementCheck e;
  e.value = a.C[i + j * a.ldc];
  e.ref = a.alpha * sum + a.beta * c0;
  e.denominator = p.gamma_k2 * fabs(a.alpha) * abs_sum + p.gamma_2 * fabs(a.beta * c0) + 1e-300;
  e.error = fabs(static_cast<double>(e.value) - e.ref) / e.denominator;
  return e;
}

__global__ void check_kernel(CheckParams p, CheckTotals* totals) {
  check_sampled_elements(
      p.a.m, p.a.n, p.a.col_step,
      [&](int64_t i, int64_t j) { return check_element(p, i, j).error; }, totals);
}

__global__ void check_one_kernel(CheckParams p, int64_t i, int64_t j, ElementCheck* out) {
  *out = check_element(p, i, j);
}

}  // namespace

std::string probe_test_kernel() {
  int* out = nullptr;
  cudaError_t err = cudaMalloc(&out, sizeof(int));
  if (err == cudaSuccess) {
    probe_kernel<<<1, 1>>>(out);
    err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    cudaFree(out);
  }
  cudaGetLastError();
  if (err == cudaSuccess) return "";
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

void fill_uniform(float* p, size_t count, uint64_t seed, float lo, float hi) {
  if (count == 0) return;
  fill_uniform_kernel<<<grid_for(count), kThreads>>>(p, count, seed, lo, hi - lo);
  launched("fill_uniform");
}

void fill_constant(float* p, size_t count, float value) {
  if (count == 0) return;
  fill_constant_kernel<<<grid_for(count), kThreads>>>(p, count, value);
  launched("fill_constant");
}

uint64_t count_changed(const float* now, const float* before, size_t count, size_t window_offset,
                       int64_t window_ld, int64_t window_rows, int64_t window_cols) {
  if (count == 0) return 0;
  DeviceScratch<unsigned long long> result(0);
  const Window window{window_offset, window_ld > 0 ? window_ld : 1, window_rows, window_cols};
  count_changed_kernel<<<grid_for(count), kThreads>>>(now, before, count, window, result.p);
  synced("count_changed");
  return result.get();
}

uint64_t count_not_scaled(const float* C, const float* C0, int64_t ldc, int64_t m, int64_t n,
                          float beta) {
  if (m <= 0 || n <= 0) return 0;
  DeviceScratch<unsigned long long> result(0);
  count_not_scaled_kernel<<<grid_for(static_cast<uint64_t>(m) * n), kThreads>>>(C, C0, ldc, m, n,
                                                                                  beta, result.p);
  synced("count_not_scaled");
  return result.get();
}

uint64_t count_nonfinite(const float* C, int64_t ldc, int64_t m, int64_t n) {
  if (m <= 0 || n <= 0) return 0;
  DeviceScratch<unsigned long long> result(0);
  count_nonfinite_kernel<<<grid_for(static_cast<uint64_t>(m) * n), kThreads>>>(C, ldc, m, n,
                                                                                result.p);
  synced("count_nonfinite");
  return result.get();
}

GemmCheckResult check_gemm(const GemmCheckArgs& args) {
  if (args.m <= 0 || args.n <= 0) return GemmCheckResult{};
  CheckParams p;
  p.a = args;
  const double u = std::ldexp(1.0, -24);
  const double ku = static_cast<double>(args.k + 2) * u;
  p.gamma_k2 = ku < 1.0 ? ku / (1.0 - ku) : INFINITY;
  p.gamma_2 = 2.0 * u / (1.0 - 2.0 * u);

  DeviceScratch<CheckTotals> totals(kNoChecksYet);
  check_kernel<<<grid_for(sampled_element_count(args.m, args.n, args.col_step)), kThreads>>>(
      p, totals.p);
  synced("check_gemm");
  GemmCheckResult r = read_totals(totals.get(), args.m, args.n, args.col_step);
  if (r.failures) {
    DeviceScratch<ElementCheck> one(ElementCheck{});
    check_one_kernel<<<1, 1>>>(p, r.fail_i, r.fail_j, one.p);
    synced("check_gemm element");
    const ElementCheck e = one.get();
    r.fail_value = e.value;
    r.fail_ref = e.ref;
    r.fail_denominator = e.denominator;
  }
  return r;
}

}  // namespace aegis_test
