// aegis C++ API: RAII handle, templates over the scalar type, exceptions.
// A thin layer over aegis.h; every call forwards to the C routine and throws aegis::Error
// (carrying the status and the handle's last error text) when it does not succeed.
#ifndef AEGIS_AEGIS_HPP
#define AEGIS_AEGIS_HPP

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "aegis/aegis.h"

namespace aegis {

enum class Op { N = AEGIS_OP_N, T = AEGIS_OP_T, C = AEGIS_OP_C };
enum class PointerMode { Host = AEGIS_POINTER_MODE_HOST, Device = AEGIS_POINTER_MODE_DEVICE };
enum class Fill { Lower = AEGIS_FILL_MODE_LOWER, Upper = AEGIS_FILL_MODE_UPPER };
enum class Reduction {
  Deterministic = AEGIS_REDUCTION_DETERMINISTIC,
  Atomics = AEGIS_REDUCTION_ATOMICS
};

class Error : public std::runtime_error {
 public:
  Error(aegisStatus_t status, const std::string& detail)
      : std::runtime_error(std::string(aegisGetStatusName(status)) + ": " +
                           (detail.empty() ? aegisGetStatusString(status) : detail)),
        status_(status),
        detail_(detail) {}
  aegisStatus_t status() const noexcept { return status_; }
  // The handle's last error text at the time of the failure (may be empty).
  const std::string& detail() const noexcept { return detail_; }

 private:
  aegisStatus_t status_;
  std::string detail_;
};

class Handle {
 public:
  Handle() {
    aegisStatus_t s = aegisCreate(&h_);
    if (s != AEGIS_STATUS_SUCCESS) throw Error(s, "aegisCreate failed");
  }
  explicit Handle(cudaStream_t stream) : Handle() { set_stream(stream); }
  ~Handle() {
    if (h_) aegisDestroy(h_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : h_(std::exchange(other.h_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      if (h_) aegisDestroy(h_);
      h_ = std::exchange(other.h_, nullptr);
    }
    return *this;
  }

  aegisHandle_t get() const noexcept { return h_; }
  operator aegisHandle_t() const noexcept { return h_; }

  void set_stream(cudaStream_t stream) { check(aegisSetStream(h_, stream)); }
  cudaStream_t stream() const {
    cudaStream_t s = nullptr;
    check(aegisGetStream(h_, &s));
    return s;
  }
  void set_pointer_mode(PointerMode mode) {
    check(aegisSetPointerMode(h_, static_cast<aegisPointerMode_t>(mode)));
  }
  PointerMode pointer_mode() const {
    aegisPointerMode_t m = AEGIS_POINTER_MODE_HOST;
    check(aegisGetPointerMode(h_, &m));
    return static_cast<PointerMode>(m);
  }
  void set_workspace(void* workspace, size_t bytes) {
    check(aegisSetWorkspace(h_, workspace, bytes));
  }
  void set_reduction_mode(Reduction mode) {
    check(aegisSetReductionMode(h_, static_cast<aegisReductionMode_t>(mode)));
  }
  Reduction reduction_mode() const {
    aegisReductionMode_t m = AEGIS_REDUCTION_DETERMINISTIC;
    check(aegisGetReductionMode(h_, &m));
    return static_cast<Reduction>(m);
  }
  std::string last_error() const { return aegisGetLastErrorString(h_); }

  // Throws aegis::Error if status is not SUCCESS.
  void check(aegisStatus_t status) const {
    if (status != AEGIS_STATUS_SUCCESS)
      throw Error(status, h_ ? aegisGetLastErrorString(h_) : std::string());
  }

 private:
  aegisHandle_t h_ = nullptr;
};

namespace detail {
template <typename T>
struct dependent_false : std::false_type {};

inline aegisStatus_t gemm_c(aegisHandle_t h, aegisOperation_t ta, aegisOperation_t tb,
                            int64_t m, int64_t n, int64_t k, const float* alpha,
                            const float* A, int64_t lda, const float* B, int64_t ldb,
                            const float* beta, float* C, int64_t ldc) {
  return aegisSgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

#define AEGIS_HPP_LEVEL2(T, G, S)                                                               \
  inline aegisStatus_t gemv_c(aegisHandle_t h, aegisOperation_t t, int64_t m, int64_t n,        \
                              const T* alpha, const T* A, int64_t lda, const T* x, int64_t incx, \
                              const T* beta, T* y, int64_t incy) {                              \
    return G(h, t, m, n, alpha, A, lda, x, incx, beta, y, incy);                                \
  }                                                                                             \
  inline aegisStatus_t symv_c(aegisHandle_t h, aegisFillMode_t u, int64_t n, const T* alpha,    \
                              const T* A, int64_t lda, const T* x, int64_t incx, const T* beta, \
                              T* y, int64_t incy) {                                             \
    return S(h, u, n, alpha, A, lda, x, incx, beta, y, incy);                                   \
  }
AEGIS_HPP_LEVEL2(float, aegisSgemv, aegisSsymv)
AEGIS_HPP_LEVEL2(double, aegisDgemv, aegisDsymv)
AEGIS_HPP_LEVEL2(cuComplex, aegisCgemv, aegisCsymv)
AEGIS_HPP_LEVEL2(cuDoubleComplex, aegisZgemv, aegisZsymv)
#undef AEGIS_HPP_LEVEL2
inline aegisStatus_t hemv_c(aegisHandle_t h, aegisFillMode_t u, int64_t n, const cuComplex* alpha,
                            const cuComplex* A, int64_t lda, const cuComplex* x, int64_t incx,
                            const cuComplex* beta, cuComplex* y, int64_t incy) {
  return aegisChemv(h, u, n, alpha, A, lda, x, incx, beta, y, incy);
}
inline aegisStatus_t hemv_c(aegisHandle_t h, aegisFillMode_t u, int64_t n,
                            const cuDoubleComplex* alpha, const cuDoubleComplex* A, int64_t lda,
                            const cuDoubleComplex* x, int64_t incx, const cuDoubleComplex* beta,
                            cuDoubleComplex* y, int64_t incy) {
  return aegisZhemv(h, u, n, alpha, A, lda, x, incx, beta, y, incy);
}
}  // namespace detail

// y = alpha op(A) x + beta y; T is float, double, cuComplex or cuDoubleComplex. alpha and
// beta follow the handle's pointer mode.
template <typename T>
void gemv(const Handle& h, Op trans, int64_t m, int64_t n, const T* alpha, const T* A,
          int64_t lda, const T* x, int64_t incx, const T* beta, T* y, int64_t incy) {
  h.check(detail::gemv_c(h.get(), static_cast<aegisOperation_t>(trans), m, n, alpha, A, lda, x,
                         incx, beta, y, incy));
}

// y = alpha A x + beta y, A symmetric (only the `uplo` triangle is read).
template <typename T>
void symv(const Handle& h, Fill uplo, int64_t n, const T* alpha, const T* A, int64_t lda,
          const T* x, int64_t incx, const T* beta, T* y, int64_t incy) {
  h.check(detail::symv_c(h.get(), static_cast<aegisFillMode_t>(uplo), n, alpha, A, lda, x, incx,
                         beta, y, incy));
}

// y = alpha A x + beta y, A Hermitian (cuComplex or cuDoubleComplex).
template <typename T>
void hemv(const Handle& h, Fill uplo, int64_t n, const T* alpha, const T* A, int64_t lda,
          const T* x, int64_t incx, const T* beta, T* y, int64_t incy) {
  h.check(detail::hemv_c(h.get(), static_cast<aegisFillMode_t>(uplo), n, alpha, A, lda, x, incx,
                         beta, y, incy));
}

// C = alpha * op(A) * op(B) + beta * C with alpha and beta in the handle's pointer mode
// (host or device pointers).
template <typename T>
void gemm(const Handle& h, Op transa, Op transb, int64_t m, int64_t n, int64_t k,
          const T* alpha, const T* A, int64_t lda, const T* B, int64_t ldb, const T* beta,
          T* C, int64_t ldc) {
  static_assert(std::is_same<T, float>::value,
                "aegis::gemm: scalars of type T need T = float (or __half: aegisHgemm); FP16 and "
                "BF16 operands take float alpha and beta");
  h.check(detail::gemm_c(h.get(), static_cast<aegisOperation_t>(transa),
                         static_cast<aegisOperation_t>(transb), m, n, k, alpha, A, lda, B,
                         ldb, beta, C, ldc));
}

// Same with alpha and beta passed by value (the handle must be in host pointer mode).
template <typename T>
void gemm(const Handle& h, Op transa, Op transb, int64_t m, int64_t n, int64_t k, T alpha,
          const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  if (h.pointer_mode() != PointerMode::Host)
    throw Error(AEGIS_STATUS_INVALID_VALUE,
                "aegis::gemm: alpha and beta by value need host pointer mode");
  gemm<T>(h, transa, transb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

namespace detail {
// The aegisDataType_t of an element type of the tensor-core GEMM.
template <typename T>
struct data_type;
template <>
struct data_type<__half> {
  static constexpr aegisDataType_t value = AEGIS_R_16F;
};
template <>
struct data_type<__nv_bfloat16> {
  static constexpr aegisDataType_t value = AEGIS_R_16BF;
};
template <>
struct data_type<float> {
  static constexpr aegisDataType_t value = AEGIS_R_32F;
};

// Operand types of the tensor-core GEMM: TAB is __half or __nv_bfloat16, TC is TAB or float.
template <typename TAB, typename TC>
using enable_if_tensor_core_t = std::enable_if_t<
    (std::is_same<TAB, __half>::value || std::is_same<TAB, __nv_bfloat16>::value) &&
    (std::is_same<TC, TAB>::value || std::is_same<TC, float>::value)>;
}  // namespace detail

// Tensor-core GEMM (aegisGemmEx): C = alpha * op(A) * op(B) + beta * C with A and B both
// __half or both __nv_bfloat16 and C of the same type or float, accumulated in FP32; alpha
// and beta are float, in the handle's pointer mode (host or device pointers).
template <typename TAB, typename TC, typename = detail::enable_if_tensor_core_t<TAB, TC>>
void gemm(const Handle& h, Op transa, Op transb, int64_t m, int64_t n, int64_t k,
          const float* alpha, const TAB* A, int64_t lda, const TAB* B, int64_t ldb,
          const float* beta, TC* C, int64_t ldc) {
  h.check(aegisGemmEx(h.get(), static_cast<aegisOperation_t>(transa),
                      static_cast<aegisOperation_t>(transb), m, n, k, alpha, A,
                      detail::data_type<TAB>::value, lda, B, detail::data_type<TAB>::value, ldb,
                      beta, C, detail::data_type<TC>::value, ldc, AEGIS_COMPUTE_32F));
}

// Same with alpha and beta passed by value (the handle must be in host pointer mode).
template <typename TAB, typename TC, typename = detail::enable_if_tensor_core_t<TAB, TC>>
void gemm(const Handle& h, Op transa, Op transb, int64_t m, int64_t n, int64_t k, float alpha,
          const TAB* A, int64_t lda, const TAB* B, int64_t ldb, float beta, TC* C, int64_t ldc) {
  if (h.pointer_mode() != PointerMode::Host)
    throw Error(AEGIS_STATUS_INVALID_VALUE,
                "aegis::gemm: alpha and beta by value need host pointer mode");
  gemm<TAB, TC>(h, transa, transb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

// FP16 everywhere, alpha and beta included (aegisHgemm; accumulated in FP32), with alpha and
// beta in the handle's pointer mode.
inline void gemm(const Handle& h, Op transa, Op transb, int64_t m, int64_t n, int64_t k,
                 const __half* alpha, const __half* A, int64_t lda, const __half* B, int64_t ldb,
                 const __half* beta, __half* C, int64_t ldc) {
  h.check(aegisHgemm(h.get(), static_cast<aegisOperation_t>(transa),
                     static_cast<aegisOperation_t>(transb), m, n, k, alpha, A, lda, B, ldb, beta,
                     C, ldc));
}

// Same with alpha and beta passed by value (the handle must be in host pointer mode).
inline void gemm(const Handle& h, Op transa, Op transb, int64_t m, int64_t n, int64_t k,
                 __half alpha, const __half* A, int64_t lda, const __half* B, int64_t ldb,
                 __half beta, __half* C, int64_t ldc) {
  if (h.pointer_mode() != PointerMode::Host)
    throw Error(AEGIS_STATUS_INVALID_VALUE,
                "aegis::gemm: alpha and beta by value need host pointer mode");
  gemm(h, transa, transb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

}  // namespace aegis

#endif  // AEGIS_AEGIS_HPP
