// aegisSgemm: argument checks in reference-BLAS order, quick returns, then dispatch.
#include "aegis/aegis.h"
#include "common/context.h"
#include "common/errors.h"
#include "dispatch/gemm_dispatch.h"

namespace {

constexpr const char* kRoutine = "aegisSgemm";

bool is_valid_op(aegisOperation_t op) {
  return op == AEGIS_OP_N || op == AEGIS_OP_T || op == AEGIS_OP_C;
}

long long ll(int64_t v) { return static_cast<long long>(v); }

}  // namespace

using aegis::detail::invalid_argument;

extern "C" aegisStatus_t aegisSgemm(aegisHandle_t h, aegisOperation_t transa,
                                    aegisOperation_t transb, int64_t m, int64_t n, int64_t k,
                                    const float* alpha, const float* A, int64_t lda,
                                    const float* B, int64_t ldb, const float* beta, float* C,
                                    int64_t ldc) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  h->last_error.clear();

  if (!is_valid_op(transa))
    return invalid_argument(h, kRoutine, 1, "(transa = %d) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C",
                            static_cast<int>(transa));
  if (!is_valid_op(transb))
    return invalid_argument(h, kRoutine, 2, "(transb = %d) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C",
                            static_cast<int>(transb));
  if (m < 0) return invalid_argument(h, kRoutine, 3, "(m = %lld) must be >= 0", ll(m));
  if (n < 0) return invalid_argument(h, kRoutine, 4, "(n = %lld) must be >= 0", ll(n));
  if (k < 0) return invalid_argument(h, kRoutine, 5, "(k = %lld) must be >= 0", ll(k));
  if (!alpha) return invalid_argument(h, kRoutine, 6, "(alpha = NULL) must not be NULL");

  const bool host_scalars = h->pointer_mode == AEGIS_POINTER_MODE_HOST;
  // A and B are read only when there is a product to form; alpha is readable here only in
  // host pointer mode (in device mode the kernel skips the product when alpha = 0).
  const bool reads_ab = m > 0 && n > 0 && k > 0 && !(host_scalars && *alpha == 0.0f);
  const bool trans_a = transa != AEGIS_OP_N, trans_b = transb != AEGIS_OP_N;

  if (reads_ab && !A)
    return invalid_argument(h, kRoutine, 7,
                            "(A = NULL) must not be NULL when m, n, k > 0 and alpha != 0");
  const int64_t rows_a = trans_a ? k : m;
  if (lda < (rows_a > 1 ? rows_a : 1))
    return invalid_argument(h, kRoutine, 8, "(lda = %lld) must be >= max(1, %s = %lld)", ll(lda),
                            trans_a ? "k" : "m", ll(rows_a));
  if (reads_ab && !B)
    return invalid_argument(h, kRoutine, 9,
                            "(B = NULL) must not be NULL when m, n, k > 0 and alpha != 0");
  const int64_t rows_b = trans_b ? n : k;
  if (ldb < (rows_b > 1 ? rows_b : 1))
    return invalid_argument(h, kRoutine, 10, "(ldb = %lld) must be >= max(1, %s = %lld)", ll(ldb),
                            trans_b ? "n" : "k", ll(rows_b));
  if (!beta) return invalid_argument(h, kRoutine, 11, "(beta = NULL) must not be NULL");
  if (m > 0 && n > 0 && !C)
    return invalid_argument(h, kRoutine, 12, "(C = NULL) must not be NULL when m, n > 0");
  if (ldc < (m > 1 ? m : 1))
    return invalid_argument(h, kRoutine, 13, "(ldc = %lld) must be >= max(1, m = %lld)", ll(ldc),
                            ll(m));

  // Quick returns, as reference BLAS.
  h->last_sgemm_kernel.clear();
  h->last_sgemm_split = 0;
  if (m == 0 || n == 0) return AEGIS_STATUS_SUCCESS;
  if (host_scalars) {
    if ((*alpha == 0.0f || k == 0) && *beta == 1.0f) return AEGIS_STATUS_SUCCESS;
    if (*alpha == 0.0f || k == 0) return aegis::dispatch::run_sgemm_scale(h, m, n, beta, C, ldc);
  } else if (k == 0) {
    return aegis::dispatch::run_sgemm_scale(h, m, n, beta, C, ldc);
  }
  return aegis::dispatch::run_sgemm(h, trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta,
                                    C, ldc);
}
