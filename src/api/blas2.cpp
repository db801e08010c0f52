// Level-2 entry points (GEMV, SYMV, HEMV in s/d/c/z, plain and offset): argument checks in
// reference-BLAS order, quick returns, then one call into dispatch. Written once over the
// scalar type; the extern "C" functions below only bind names.
#include <cuComplex.h>

#include <cstdint>

#include "aegis/aegis.h"
#include "blas2/blas2_launch.h"
#include "common/context.h"
#include "common/errors.h"
#include "dispatch/blas2_dispatch.h"

namespace {

using aegis::blas2::Blas2Call;
using aegis::blas2::Family;
using aegis::blas2::Precision;
using aegis::detail::invalid_argument;

long long ll(int64_t v) { return static_cast<long long>(v); }

template <typename T>
struct Scalar;
template <>
struct Scalar<float> {
  static constexpr Precision kPrecision = Precision::S;
  static bool is_zero(const float& v) { return v == 0.0f; }
  static bool is_one(const float& v) { return v == 1.0f; }
  static void to_pair(const float& v, double out[2]) { out[0] = v, out[1] = 0; }
};
template <>
struct Scalar<double> {
  static constexpr Precision kPrecision = Precision::D;
  static bool is_zero(const double& v) { return v == 0.0; }
  static bool is_one(const double& v) { return v == 1.0; }
  static void to_pair(const double& v, double out[2]) { out[0] = v, out[1] = 0; }
};
template <>
struct Scalar<cuComplex> {
  static constexpr Precision kPrecision = Precision::C;
  static bool is_zero(const cuComplex& v) { return v.x == 0.0f && v.y == 0.0f; }
  static bool is_one(const cuComplex& v) { return v.x == 1.0f && v.y == 0.0f; }
  static void to_pair(const cuComplex& v, double out[2]) { out[0] = v.x, out[1] = v.y; }
};
template <>
struct Scalar<cuDoubleComplex> {
  static constexpr Precision kPrecision = Precision::Z;
  static bool is_zero(const cuDoubleComplex& v) { return v.x == 0.0 && v.y == 0.0; }
  static bool is_one(const cuDoubleComplex& v) { return v.x == 1.0 && v.y == 0.0; }
  static void to_pair(const cuDoubleComplex& v, double out[2]) { out[0] = v.x, out[1] = v.y; }
};

// Element 0 of a vector given as cuBLAS does (v: its lowest address): for a negative inc
// (reference BLAS) element 0 is the last in memory, and element i is at element0[i * inc].
template <typename P>
P* element0(P* v, int64_t length, int64_t inc) {
  return (inc < 0 && length > 0) ? v + (length - 1) * (-inc) : v;
}

// Offset variants may keep 16-byte loads aligned to the full matrix: rows shift by the
// offset modulo the vector width when the full matrix and lda allow it.
template <typename T>
void set_alignment(Blas2Call& call, const T* full, int64_t offset_rows, bool offset_variant) {
  constexpr int64_t kWidth = int64_t(16 / sizeof(T));
  const bool lda_ok = call.lda % kWidth == 0;
  call.row_shift = 0;
  if (offset_variant && lda_ok && reinterpret_cast<uintptr_t>(full) % 16 == 0)
    call.row_shift = int(offset_rows % kWidth);
  const T* aligned_start = static_cast<const T*>(call.A) - call.row_shift;
  call.vector_loads = lda_ok && reinterpret_cast<uintptr_t>(aligned_start) % 16 == 0;
}

// After the checks and the m = 0 / n = 0 quick return: fills in the vectors and scalars,
// handles alpha = 0 (y = beta y, or nothing when beta = 1), and runs the call on the
// sub-matrix that starts offset_rows rows (and some columns) into `full`.
template <typename T>
aegisStatus_t dispatch_call(const char* routine, aegisHandle_t h, Blas2Call& call,
                            int64_t len_x, int64_t len_y, const T* alpha, const T* full,
                            const T* sub, int64_t offset_rows, bool offset_variant,
                            const T* x, int64_t incx, const T* beta, T* y, int64_t incy) {
  call.x = element0(x, len_x, incx);
  call.incx = incx;
  call.y = element0(y, len_y, incy);
  call.incy = incy;
  const bool host_scalars = h->pointer_mode == AEGIS_POINTER_MODE_HOST;
  if (host_scalars) {
    Scalar<T>::to_pair(*alpha, call.alpha);
    Scalar<T>::to_pair(*beta, call.beta);
  } else {
    call.alpha_device = alpha;
    call.beta_device = beta;
  }
  if (host_scalars && Scalar<T>::is_zero(*alpha)) {
    if (Scalar<T>::is_one(*beta)) return AEGIS_STATUS_SUCCESS;
    return aegis::dispatch::run_blas2_scale(h, routine, Scalar<T>::kPrecision, len_y, call);
  }
  call.A = sub;
  set_alignment(call, full, offset_rows, offset_variant);
  return aegis::dispatch::run_blas2(h, routine, Scalar<T>::kPrecision, call);
}

template <typename T>
aegisStatus_t gemv(const char* routine, aegisHandle_t h, aegisOperation_t trans, int64_t m,
                   int64_t n, const T* alpha, const T* A, int64_t lda, const T* x, int64_t incx,
                   const T* beta, T* y, int64_t incy, bool offset_variant, int64_t offset_r,
                   int64_t offset_c) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  h->last_error.clear();
  if (trans != AEGIS_OP_N && trans != AEGIS_OP_T && trans != AEGIS_OP_C)
    return invalid_argument(h, routine, 1, "(trans = %d) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C",
                            static_cast<int>(trans));
  if (m < 0) return invalid_argument(h, routine, 2, "(m = %lld) must be >= 0", ll(m));
  if (n < 0) return invalid_argument(h, routine, 3, "(n = %lld) must be >= 0", ll(n));
  if (!alpha) return invalid_argument(h, routine, 4, "(alpha = NULL) must not be NULL");
  const bool host_scalars = h->pointer_mode == AEGIS_POINTER_MODE_HOST;
  const bool reads_a = m > 0 && n > 0 && !(host_scalars && Scalar<T>::is_zero(*alpha));
  if (reads_a && !A)
    return invalid_argument(h, routine, 5, "(A = NULL) must not be NULL when m, n > 0 and alpha != 0");
  if (!offset_variant) {
    if (lda < (m > 1 ? m : 1))
      return invalid_argument(h, routine, 6, "(lda = %lld) must be >= max(1, m = %lld)", ll(lda), ll(m));
  } else {
    // Offsets are checked last (positions 12, 13); a negative one must not hide behind lda.
    const int64_t rows = (offset_r > 0 ? offset_r : 0) + m;
    if (lda < (rows > 1 ? rows : 1))
      return invalid_argument(h, routine, 6, "(lda = %lld) must be >= max(1, offset_r + m = %lld)",
                              ll(lda), ll(rows));
  }
  if (reads_a && !x)
    return invalid_argument(h, routine, 7, "(x = NULL) must not be NULL when m, n > 0 and alpha != 0");
  if (incx == 0) return invalid_argument(h, routine, 8, "(incx = 0) must not be 0");
  if (!beta) return invalid_argument(h, routine, 9, "(beta = NULL) must not be NULL");
  if (m > 0 && n > 0 && !y)
    return invalid_argument(h, routine, 10, "(y = NULL) must not be NULL when m, n > 0");
  if (incy == 0) return invalid_argument(h, routine, 11, "(incy = 0) must not be 0");
  if (offset_variant) {
    if (offset_r < 0) return invalid_argument(h, routine, 12, "(offset_r = %lld) must be >= 0", ll(offset_r));
    if (offset_c < 0) return invalid_argument(h, routine, 13, "(offset_c = %lld) must be >= 0", ll(offset_c));
  }

  h->last_blas2_config = "";
  h->last_blas2_y = 0;
  if (m == 0 || n == 0) return AEGIS_STATUS_SUCCESS;
  const bool t = trans != AEGIS_OP_N;
  const int64_t len_x = t ? m : n, len_y = t ? n : m;
  Blas2Call call;
  call.family = t ? Family::GemvT : Family::GemvN;
  call.conj = trans == AEGIS_OP_C;
  call.m = m;
  call.n = n;
  call.lda = lda;
  const T* sub = offset_variant ? A + offset_r + offset_c * lda : A;
  return dispatch_call(routine, h, call, len_x, len_y, alpha, A, sub, offset_r, offset_variant,
                       x, incx, beta, y, incy);
}

template <typename T>
aegisStatus_t symv(const char* routine, bool hermitian, aegisHandle_t h, aegisFillMode_t uplo,
                   int64_t n, const T* alpha, const T* A, int64_t lda, const T* x, int64_t incx,
                   const T* beta, T* y, int64_t incy, bool offset_variant, int64_t offset) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  h->last_error.clear();
  if (uplo != AEGIS_FILL_MODE_LOWER && uplo != AEGIS_FILL_MODE_UPPER)
    return invalid_argument(h, routine, 1,
                            "(uplo = %d) must be AEGIS_FILL_MODE_LOWER or AEGIS_FILL_MODE_UPPER",
                            static_cast<int>(uplo));
  if (n < 0) return invalid_argument(h, routine, 2, "(n = %lld) must be >= 0", ll(n));
  if (!alpha) return invalid_argument(h, routine, 3, "(alpha = NULL) must not be NULL");
  const bool host_scalars = h->pointer_mode == AEGIS_POINTER_MODE_HOST;
  const bool reads_a = n > 0 && !(host_scalars && Scalar<T>::is_zero(*alpha));
  if (reads_a && !A)
    return invalid_argument(h, routine, 4, "(A = NULL) must not be NULL when n > 0 and alpha != 0");
  if (!offset_variant) {
    if (lda < (n > 1 ? n : 1))
      return invalid_argument(h, routine, 5, "(lda = %lld) must be >= max(1, n = %lld)", ll(lda), ll(n));
  } else {
    const int64_t rows = (offset > 0 ? offset : 0) + n;
    if (lda < (rows > 1 ? rows : 1))
      return invalid_argument(h, routine, 5, "(lda = %lld) must be >= max(1, offset + n = %lld)",
                              ll(lda), ll(rows));
  }
  if (reads_a && !x)
    return invalid_argument(h, routine, 6, "(x = NULL) must not be NULL when n > 0 and alpha != 0");
  if (incx == 0) return invalid_argument(h, routine, 7, "(incx = 0) must not be 0");
  if (!beta) return invalid_argument(h, routine, 8, "(beta = NULL) must not be NULL");
  if (n > 0 && !y) return invalid_argument(h, routine, 9, "(y = NULL) must not be NULL when n > 0");
  if (incy == 0) return invalid_argument(h, routine, 10, "(incy = 0) must not be 0");
  if (offset_variant && offset < 0)
    return invalid_argument(h, routine, 11, "(offset = %lld) must be >= 0", ll(offset));

  h->last_blas2_config = "";
  h->last_blas2_y = 0;
  if (n == 0) return AEGIS_STATUS_SUCCESS;
  Blas2Call call;
  call.family = hermitian ? Family::Hemv : Family::Symv;
  call.upper = uplo == AEGIS_FILL_MODE_UPPER;
  call.m = n;
  call.n = n;
  call.lda = lda;
  const T* sub = offset_variant ? A + offset * (1 + lda) : A;
  return dispatch_call(routine, h, call, n, n, alpha, A, sub, offset, offset_variant, x, incx,
                       beta, y, incy);
}

}  // namespace

extern "C" {

#define AEGIS_GEMV(NAME, T)                                                                    \
  aegisStatus_t NAME(aegisHandle_t h, aegisOperation_t trans, int64_t m, int64_t n,            \
                     const T* alpha, const T* A, int64_t lda, const T* x, int64_t incx,        \
                     const T* beta, T* y, int64_t incy) {                                      \
    return gemv<T>(#NAME, h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy, false, 0, 0); \
  }                                                                                            \
  aegisStatus_t NAME##Offset(aegisHandle_t h, aegisOperation_t trans, int64_t m, int64_t n,    \
                             const T* alpha, const T* A, int64_t lda, const T* x,              \
                             int64_t incx, const T* beta, T* y, int64_t incy,                  \
                             int64_t offset_r, int64_t offset_c) {                             \
    return gemv<T>(#NAME "Offset", h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy,     \
                   true, offset_r, offset_c);                                                  \
  }

#define AEGIS_SYMV(NAME, T, HERM)                                                               \
  aegisStatus_t NAME(aegisHandle_t h, aegisFillMode_t uplo, int64_t n, const T* alpha,          \
                     const T* A, int64_t lda, const T* x, int64_t incx, const T* beta, T* y,    \
                     int64_t incy) {                                                            \
    return symv<T>(#NAME, HERM, h, uplo, n, alpha, A, lda, x, incx, beta, y, incy, false, 0);   \
  }                                                                                             \
  aegisStatus_t NAME##Offset(aegisHandle_t h, aegisFillMode_t uplo, int64_t n, const T* alpha,  \
                             const T* A, int64_t lda, const T* x, int64_t incx, const T* beta,  \
                             T* y, int64_t incy, int64_t offset) {                              \
    return symv<T>(#NAME "Offset", HERM, h, uplo, n, alpha, A, lda, x, incx, beta, y, incy,    \
                   true, offset);                                                               \
  }

AEGIS_GEMV(aegisSgemv, float)
AEGIS_GEMV(aegisDgemv, double)
AEGIS_GEMV(aegisCgemv, cuComplex)
AEGIS_GEMV(aegisZgemv, cuDoubleComplex)
AEGIS_SYMV(aegisSsymv, float, false)
AEGIS_SYMV(aegisDsymv, double, false)
AEGIS_SYMV(aegisCsymv, cuComplex, false)
AEGIS_SYMV(aegisZsymv, cuDoubleComplex, false)
AEGIS_SYMV(aegisChemv, cuComplex, true)
AEGIS_SYMV(aegisZhemv, cuDoubleComplex, true)

#undef AEGIS_GEMV
#undef AEGIS_SYMV

int aegisBlas2ConfigCount(void) {
  int count = 0;
  aegis::blas2::blas2_instances(&count);
  return count;
}

const char* aegisBlas2ConfigName(int index) {
  int count = 0;
  const auto* const* all = aegis::blas2::blas2_instances(&count);
  return (index >= 0 && index < count) ? all[index]->name : nullptr;
}

aegisStatus_t aegisSetBlas2Override(aegisHandle_t handle, const char* config, int y_split) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!config) {
    handle->blas2_override = nullptr;
    handle->blas2_override_y = 0;
    return AEGIS_STATUS_SUCCESS;
  }
  const aegis::blas2::Blas2Instance* instance = aegis::blas2::find_blas2_instance(config);
  if (!instance)
    return invalid_argument(handle, "aegisSetBlas2Override", 2,
                            "(config = \"%s\") is not a level-2 configuration of this build", config);
  if (y_split < 0)
    return invalid_argument(handle, "aegisSetBlas2Override", 3, "(y_split = %d) must be >= 0", y_split);
  handle->blas2_override = instance;
  handle->blas2_override_y = y_split;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetLastBlas2Choice(aegisHandle_t handle, const char** config, int* y_split) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (config) *config = handle->last_blas2_config;
  if (y_split) *y_split = handle->last_blas2_y;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisSetBlas2SumsOverride(aegisHandle_t handle, aegisBlas2Sums_t sums) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (sums != AEGIS_BLAS2_SUMS_AUTO && sums != AEGIS_BLAS2_SUMS_WORKSPACE &&
      sums != AEGIS_BLAS2_SUMS_CLUSTER)
    return invalid_argument(handle, "aegisSetBlas2SumsOverride", 2, "(sums = %d) is not an aegisBlas2Sums_t",
                            int(sums));
  handle->blas2_override_sums = sums;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetLastBlas2Sums(aegisHandle_t handle, aegisBlas2Sums_t* sums) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!sums) return invalid_argument(handle, "aegisGetLastBlas2Sums", 2, "(sums) is NULL");
  *sums = handle->last_blas2_sums;
  return AEGIS_STATUS_SUCCESS;
}

}  // extern "C"
