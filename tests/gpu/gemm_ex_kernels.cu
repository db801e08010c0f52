#include "gemm_ex_kernels.h"
#include "sampled_check.cuh"
#include "test_device_support.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

// ---- the error bound --------------------------------------------------------------------
// D = alpha op(A) op(B) + beta C0 with A, B in FP16 or BF16, FP32 accumulation, alpha and
// beta applied in FP32, one rounding to C's type. Per element, with p_l = a_il b_lj,
// s = sum_l p_l and S = sum_l |p_l|:
//
// 1. Products. FP16 significands have 11 bits and BF16 8, so every p_l (at most 22 bits)
//    is exact in FP32; with inputs of magnitude in [2^-12, 1] it neither underflows nor
//    overflows. The FP64 reference forms the same products exactly.
// 2. Accumulation. The kernel may sum the k products in FP32 in any order and grouping
//    (mma / wgmma steps, several accumulators, partial sums over K). A tensor-core step adds
//    a group of terms (the accumulator and a few products) by aligning them to the largest
//    exponent E, truncating what falls below 2^(E-23), and truncating the normalized sum to
//    24 bits (measured on V100/T4/A100 by Fasi, Higham, Mikaitis and Pranesh, 2021; IEEE
//    round-to-nearest additions err by half as much). Each term except the largest loses
//    < 2^(E-23) <= 2^-23 max|term| <= 2^-23 S, and the result loses < 2^-23 |result| <=
//    2^-23 S. Any summation tree of k leaves has (inputs - 1) summed over its nodes = k - 1
//    and at most k - 1 nodes, so |s~ - s| <= 2 k 2^-23 S (to first order; the code uses
//    k u' / (1 - 2 k u') for k 2^-23 to keep it an upper bound).
//    With Grid inputs (j / 32) every product is a multiple of 2^-10 of magnitude <= 1, so
//    every partial sum of k <= 2^14 of them is a multiple of 2^-10 below 2^14 in magnitude:
//    24 bits, exact in FP32 whatever the order, grouping or rounding. The term is then 0.
// 3. Epilogue in FP32: alpha s~, beta c0 and their sum, each rounded (or fused), err by at
//    most 2^-24 (|alpha s~| + |beta c0|) twice: <= 2^-23 (|alpha| S + |beta c0|).
// 4. Conversion to C: round to nearest, |D - d32| <= u_C |d32| + eta_C, with u_C = 2^-11
//    (FP16), 2^-8 (BF16), 2^-24 (FP32) and eta_C half the smallest subnormal spacing.
//
// Summing: |D - D_ref| <= u_C |D_ref| + 2 k 2^-23 |alpha| S + 2^-23 (|alpha| S + |beta c0|)
// + eta_C + second-order terms. The bound checked is
//     2 (u_C |D_ref| + |alpha| (k' 2^-23 + 2^-23) S + 2^-23 |beta c0|) + eta_C,
// k' = 0 for exact sums: the accumulation term exactly as derived, and a factor 2 on the
// others for the second-order terms (and for a conversion to C that truncated instead of
// rounding, which errs by up to 2 u_C |d32|).
//
// Tightness: a wrong or missing product changes D by |a b|, typically 1/4 for Uniform inputs
// and at least 2^-10 for Grid ones. For k = 257 the accumulation term is about
// 2 * 257 * 2^-23 * 64 = 0.004; with Grid inputs there is none, and for an FP32 C the rest
// is a few units of 2^-23 |D|. Deep-k cases therefore use Grid inputs.

namespace aegis_test {
namespace {

// Conversions between the element types and float / double.
__device__ __forceinline__ double to_double(float v) { return v; }
__device__ __forceinline__ double to_double(__half v) { return __half2float(v); }
__device__ __forceinline__ double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ T from_float(float v);
template <>
__device__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

template <typename T>
__device__ T from_double(double v);
template <>
__device__ float from_double<float>(double v) {
  return __double2float_rn(v);
}
template <>
__device__ __half from_double<__half>(double v) {
  return __double2half(v);
}
template <>
__device__ __nv_bfloat16 from_double<__nv_bfloat16>(double v) {
  return __double2bfloat16(v);
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

__device__ float typed_fill_value(TypedFill kind, uint64_t seed, uint64_t i) {
  const uint64_t r = splitmix64(seed ^ splitmix64(i));
  switch (kind) {
    case TypedFill::Uniform: {
      float u = -1.0f + 2.0f * (static_cast<float>(r >> 40) * (1.0f / 16777216.0f));
      const float tiny = 1.0f / 4096.0f;
      if (fabsf(u) < tiny) u = copysignf(tiny, u);
      return u;
    }
    case TypedFill::Grid: {
      // 64 values: -32..-1 and 1..32, over 32.
      const int j = static_cast<int>(r >> 58);  // 0..63
      return static_cast<float>(j < 32 ? j - 32 : j - 31) / 32.0f;
    }
    case TypedFill::NaN: break;
  }
  return __int_as_float(0x7fc00000);
}

template <typename T>
__global__ void fill_typed_kernel(T* p, uint64_t count, Window window, TypedFill inside,
                                  TypedFill outside, uint64_t seed) {
  for (uint64_t i = grid_start(); i < count; i += grid_stride())
    p[i] = from_float<T>(typed_fill_value(window.contains(i) ? inside : outside, seed, i));
}


// Bits is uint16_t or uint32_t: the element compared as raw bits.
template <typename Bits>
__global__ void count_changed_kernel(const Bits* now, const Bits* before, uint64_t count,
                                     Window window, unsigned long long* result) {
  uint64_t changed = 0;
  for (uint64_t i = grid_start(); i < count; i += grid_stride())
    if (!window.contains(i) && now[i] != before[i]) ++changed;
  changed = block_sum(changed);
  if (threadIdx.x == 0 && changed) atomicAdd(result, static_cast<unsigned long long>(changed));
}

template <typename T>
__global__ void count_not_scaled_kernel(const T* C, const T* C0, int64_t ldc, int64_t m,
                                        int64_t n, float beta, unsigned long long* result) {
  uint64_t bad = 0;
  const uint64_t total = static_cast<uint64_t>(m) * static_cast<uint64_t>(n);
  for (uint64_t idx = grid_start(); idx < total; idx += grid_stride()) {
    const int64_t i = static_cast<int64_t>(idx % m), j = static_cast<int64_t>(idx / m);
    const double got = to_double(C[i + j * ldc]);
    bool ok;
    if (beta == 0.0f) {
      ok = got == 0.0;
    } else {
      const float c0 = static_cast<float>(to_double(C0[i + j * ldc]));
      const double via_fp32 = to_double(from_float<T>(__fmul_rn(beta, c0)));
      const double direct = to_double(from_double<T>(static_cast<double>(beta) * c0));
      ok = got == via_fp32 || got == direct;
    }
    if (!ok) ++bad;
  }
  bad = block_sum(bad);
  if (threadIdx.x == 0 && bad) atomicAdd(result, static_cast<unsigned long long>(bad));
}

template <typename T>
__global__ void count_nonfinite_kernel(const T* C, int64_t ldc, int64_t m, int64_t n,
                                       unsigned long long* result) {
  uint64_t bad = 0;
  const uint64_t total = static_cast<uint64_t>(m) * static_cast<uint64_t>(n);
  for (uint64_t idx = grid_start(); idx < total; idx += grid_stride()) {
    const int64_t i = static_cast<int64_t>(idx % m), j = static_cast<int64_t>(idx / m);
    if (!isfinite(to_double(C[i + j * ldc]))) ++bad;
  }
  bad = block_sum(bad);
  if (threadIdx.x == 0 && bad) atomicAdd(result, static_cast<unsigned long long>(bad));
}

// ---- reference GEMM ---------------------------------------------------------------------

struct CheckParams {
  GemmExCheckArgs a;
  double acc_coeff;  // coefficient of |alpha| S: k' 2^-23 + 2^-23
  double u_c, eta_c;
};

struct ElementCheck {
  float value;
  double ref, bound, error;
};

template <typename TAB, typename TC>
__device__ ElementCheck check_element(const CheckParams& p, int64_t i, int64_t j) {
  const GemmExCheckArgs& a = p.a;
  const TAB* A = static_cast<const TAB*>(a.A);
  const TAB* B = static_cast<const TAB*>(a.B);
  double sum = 0.0, abs_sum = 0.0;
  if (a.alpha != 0.0) {
    for (int64_t l = 0; l < a.k; ++l) {
      const double x = to_double(a.trans_a ? A[l + i * a.lda] : A[i + l * a.lda]);
      const double y = to_double(a.trans_b ? B[j + l * a.ldb] : B[l + j * a.ldb]);
      const double xy = x * y;  // exact: 22 significant bits at most
      sum += xy;
      abs_sum += fabs(xy);
    }
  }
  const double c0 =
      a.beta != 0.0 ? to_double(static_cast<const TC*>(a.C0)[i + j * a.ldc]) : 0.0;
  ElementCheck e;
  const double d = to_double(static_cast<const TC*>(a.C)[i + j * a.ldc]);
  e.value = static_cast<float>(d);
  e.ref = a.alpha * sum + a.beta * c0;
  e.bound = 2.0 * (p.u_c * fabs(e.ref) + p.acc_coeff * fabs(a.alpha) * abs_sum +
                   0x1p-23 * fabs(a.beta * c0)) +
            p.eta_c;
  e.error = fabs(d - e.ref) / e.bound;
  return e;
}

template <typename TAB, typename TC>
__global__ void check_kernel(CheckParams p, CheckTotals* totals) {
  check_sampled_elements(
      p.a.m, p.a.n, p.a.col_step,
      [&](int64_t i, int64_t j) { return check_element<TAB, TC>(p, i, j).error; }, totals);
}

template <typename TAB, typename TC>
__global__ void check_one_kernel(CheckParams p, int64_t i, int64_t j, ElementCheck* out) {
  *out = check_element<TAB, TC>(p, i, j);
}

// Calls f(T{}) with T the element type of t.
template <typename F>
void with_type(aegisDataType_t t, F&& f) {
  switch (t) {
    case AEGIS_R_16F: f(__half{}); return;
    case AEGIS_R_16BF: f(__nv_bfloat16{}); return;
    case AEGIS_R_32F: f(float{}); return;
  }
  throw std::runtime_error("test helper: unknown aegisDataType_t " + std::to_string(t));
}

double unit_roundoff(aegisDataType_t t) {
  return t == AEGIS_R_16F ? std::ldexp(1.0, -11)
         : t == AEGIS_R_16BF ? std::ldexp(1.0, -8)
                             : std::ldexp(1.0, -24);
}

// Half the spacing of the subnormals: the absolute error of rounding to nearest below the
// normal range (FP16: 2^-24 / 2; BF16: 2^-133 / 2; FP32: 2^-149 / 2).
double half_subnormal_spacing(aegisDataType_t t) {
  return t == AEGIS_R_16F ? std::ldexp(1.0, -25)
         : t == AEGIS_R_16BF ? std::ldexp(1.0, -134)
                             : std::ldexp(1.0, -150);
}

}  // namespace

size_t data_type_bytes(aegisDataType_t t) { return t == AEGIS_R_32F ? 4 : 2; }

const char* data_type_tag(aegisDataType_t t) {
  return t == AEGIS_R_16F ? "f16" : t == AEGIS_R_16BF ? "bf16" : t == AEGIS_R_32F ? "f32" : "?";
}

void fill_typed(void* buf, aegisDataType_t t, size_t count, size_t window_offset, int64_t ld,
                int64_t rows, int64_t cols, TypedFill inside, TypedFill outside, uint64_t seed) {
  if (count == 0) return;
  const Window window{window_offset, ld > 0 ? ld : 1, rows, cols};
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    fill_typed_kernel<T><<<grid_for(count), kThreads>>>(static_cast<T*>(buf), count, window,
                                                        inside, outside, seed);
  });
  launched("fill_typed");
}

uint64_t count_changed_typed(const void* now, const void* before, aegisDataType_t t, size_t count,
                             size_t window_offset, int64_t window_ld, int64_t window_rows,
                             int64_t window_cols) {
  if (count == 0) return 0;
  DeviceScratch<unsigned long long> result(0);
  const Window window{window_offset, window_ld > 0 ? window_ld : 1, window_rows, window_cols};
  if (data_type_bytes(t) == 2)
    count_changed_kernel<uint16_t><<<grid_for(count), kThreads>>>(
        static_cast<const uint16_t*>(now), static_cast<const uint16_t*>(before), count, window,
        result.p);
  else
    count_changed_kernel<uint32_t><<<grid_for(count), kThreads>>>(
        static_cast<const uint32_t*>(now), static_cast<const uint32_t*>(before), count, window,
        result.p);
  synced("count_changed_typed");
  return result.get();
}

uint64_t count_not_scaled_typed(const void* C, const void* C0, aegisDataType_t t, int64_t ldc,
                                int64_t m, int64_t n, float beta) {
  if (m <= 0 || n <= 0) return 0;
  DeviceScratch<unsigned long long> result(0);
  const uint64_t total = static_cast<uint64_t>(m) * static_cast<uint64_t>(n);
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    count_not_scaled_kernel<T><<<grid_for(total), kThreads>>>(
        static_cast<const T*>(C), static_cast<const T*>(C0), ldc, m, n, beta, result.p);
  });
  synced("count_not_scaled_typed");
  return result.get();
}

uint64_t count_nonfinite_typed(const void* C, aegisDataType_t t, int64_t ldc, int64_t m,
                               int64_t n) {
  if (m <= 0 || n <= 0) return 0;
  DeviceScratch<unsigned long long> result(0);
  const uint64_t total = static_cast<uint64_t>(m) * static_cast<uint64_t>(n);
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    count_nonfinite_kernel<T><<<grid_for(total), kThreads>>>(static_cast<const T*>(C), ldc, m,
                                                             n, result.p);
  });
  synced("count_nonfinite_typed");
  return result.get();
}

GemmCheckResult check_gemm_ex(const GemmExCheckArgs& args) {
  if (args.m <= 0 || args.n <= 0) return GemmCheckResult{};
  if (args.ab_type == AEGIS_R_32F)
    throw std::runtime_error("check_gemm_ex: A and B must be FP16 or BF16");
  CheckParams p;
  p.a = args;
  const double u_acc = std::ldexp(1.0, -23);
  const double ku = args.exact_sums ? 0.0 : static_cast<double>(args.k) * u_acc;
  p.acc_coeff = (2.0 * ku < 1.0 ? ku / (1.0 - 2.0 * ku) : INFINITY) + u_acc;
  p.u_c = unit_roundoff(args.c_type);
  p.eta_c = half_subnormal_spacing(args.c_type);

  DeviceScratch<CheckTotals> totals(kNoChecksYet);
  DeviceScratch<ElementCheck> one(ElementCheck{});
  GemmCheckResult r;
  with_type(args.ab_type, [&](auto ab_tag) {
    using TAB = decltype(ab_tag);
    with_type(args.c_type, [&](auto c_tag) {
      using TC = decltype(c_tag);
      check_kernel<TAB, TC>
          <<<grid_for(sampled_element_count(args.m, args.n, args.col_step)), kThreads>>>(
              p, totals.p);
      synced("check_gemm_ex");
      r = read_totals(totals.get(), args.m, args.n, args.col_step);
      if (r.failures) {
        check_one_kernel<TAB, TC><<<1, 1>>>(p, r.fail_i, r.fail_j, one.p);
        synced("check_gemm_ex element");
      }
    });
  });
  if (r.failures) {
    const ElementCheck e = one.get();
    r.fail_value = e.value;
    r.fail_ref = e.ref;
    r.fail_denominator = e.bound;
  }
  return r;
}

}  // namespace aegis_test
