// aegisGemmEx, aegisHgemm: argument checks in reference-BLAS order, quick returns, then
// tensor-core dispatch; the kernel list and the tuning override of the tensor-core GEMM.
#include <type_traits>

#include "aegis/aegis.h"
#include "common/context.h"
#include "common/errors.h"
#include "dispatch/gemm_ex_dispatch.h"
#include "gemm/tc/tc_params.h"
#include "gemm/tc/tc_registry.h"

namespace {

using aegis::detail::invalid_argument;
using aegis::gemm::tc::DType;
using aegis::gemm::tc::TcGemmParams;
using aegis::gemm::tc::TcScalar;

bool is_valid_op(aegisOperation_t op) {
  return op == AEGIS_OP_N || op == AEGIS_OP_T || op == AEGIS_OP_C;
}

bool is_input_type(aegisDataType_t t) { return t == AEGIS_R_16F || t == AEGIS_R_16BF; }

bool is_output_type(aegisDataType_t t) { return is_input_type(t) || t == AEGIS_R_32F; }

const char* type_name(aegisDataType_t t) {
  switch (t) {
    case AEGIS_R_16F: return "AEGIS_R_16F";
    case AEGIS_R_16BF: return "AEGIS_R_16BF";
    case AEGIS_R_32F: return "AEGIS_R_32F";
  }
  return "?";
}

DType to_dtype(aegisDataType_t t) {
  return t == AEGIS_R_16F ? DType::F16 : t == AEGIS_R_16BF ? DType::BF16 : DType::F32;
}

long long ll(int64_t v) { return static_cast<long long>(v); }

float to_float(float v) { return v; }
float to_float(const __half& v) { return __half2float(v); }

// Reference-BLAS positions of the parameters of one entry point; 0 where the entry point has
// no such parameter (aegisHgemm fixes the types, so it has no type parameters to check).
struct Routine {
  const char* name;
  int transa, transb, m, n, k, alpha, A, atype, lda, B, btype, ldb, beta, C, ctype, ldc,
      compute;
};

constexpr Routine kGemmEx = {"aegisGemmEx", 1, 2, 3, 4, 5, 6, 7, 8, 9,
                             10, 11, 12, 13, 14, 15, 16, 17};
constexpr Routine kHgemm = {"aegisHgemm", 1, 2, 3, 4, 5, 6, 7, 0, 8,
                            9, 0, 10, 11, 12, 0, 13, 0};

// The body of both entry points. Scalar is float (aegisGemmEx) or __half (aegisHgemm): the
// type of alpha and beta in host and in device memory.
template <typename Scalar>
aegisStatus_t gemm_ex(aegisContext* h, const Routine& r, aegisOperation_t transa,
                      aegisOperation_t transb, int64_t m, int64_t n, int64_t k,
                      const Scalar* alpha, const void* A, aegisDataType_t Atype, int64_t lda,
                      const void* B, aegisDataType_t Btype, int64_t ldb, const Scalar* beta,
                      void* C, aegisDataType_t Ctype, int64_t ldc,
                      aegisComputeType_t computeType) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  h->last_error.clear();
  h->last_gemm_ex_kernel.clear();
  h->last_gemm_ex_split = 0;
  const char* routine = r.name;

  if (!is_valid_op(transa))
    return invalid_argument(h, routine, r.transa,
                            "(transa = %d) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C",
                            static_cast<int>(transa));
  if (!is_valid_op(transb))
    return invalid_argument(h, routine, r.transb,
                            "(transb = %d) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C",
                            static_cast<int>(transb));
  if (m < 0) return invalid_argument(h, routine, r.m, "(m = %lld) must be >= 0", ll(m));
  if (n < 0) return invalid_argument(h, routine, r.n, "(n = %lld) must be >= 0", ll(n));
  if (k < 0) return invalid_argument(h, routine, r.k, "(k = %lld) must be >= 0", ll(k));
  if (!alpha) return invalid_argument(h, routine, r.alpha, "(alpha = NULL) must not be NULL");

  const bool host_scalars = h->pointer_mode == AEGIS_POINTER_MODE_HOST;
  // A and B are read only when there is a product to form; alpha is readable here only in
  // host pointer mode (in device mode the kernel skips the product when alpha = 0).
  const bool reads_ab = m > 0 && n > 0 && k > 0 && !(host_scalars && to_float(*alpha) == 0.0f);
  const bool trans_a = transa != AEGIS_OP_N, trans_b = transb != AEGIS_OP_N;

  if (reads_ab && !A)
    return invalid_argument(h, routine, r.A,
                            "(A = NULL) must not be NULL when m, n, k > 0 and alpha != 0");
  if (r.atype && !is_input_type(Atype))
    return invalid_argument(h, routine, r.atype, "(Atype = %d) must be AEGIS_R_16F or AEGIS_R_16BF",
                            static_cast<int>(Atype));
  const int64_t rows_a = trans_a ? k : m;
  if (lda < (rows_a > 1 ? rows_a : 1))
    return invalid_argument(h, routine, r.lda, "(lda = %lld) must be >= max(1, %s = %lld)",
                            ll(lda), trans_a ? "k" : "m", ll(rows_a));
  if (reads_ab && !B)
    return invalid_argument(h, routine, r.B,
                            "(B = NULL) must not be NULL when m, n, k > 0 and alpha != 0");
  if (r.btype && Btype != Atype)
    return invalid_argument(h, routine, r.btype, "(Btype = %d) must equal Atype (%s = %d)",
                            static_cast<int>(Btype), type_name(Atype), static_cast<int>(Atype));
  const int64_t rows_b = trans_b ? n : k;
  if (ldb < (rows_b > 1 ? rows_b : 1))
    return invalid_argument(h, routine, r.ldb, "(ldb = %lld) must be >= max(1, %s = %lld)",
                            ll(ldb), trans_b ? "n" : "k", ll(rows_b));
  if (!beta) return invalid_argument(h, routine, r.beta, "(beta = NULL) must not be NULL");
  if (m > 0 && n > 0 && !C)
    return invalid_argument(h, routine, r.C, "(C = NULL) must not be NULL when m, n > 0");
  if (r.ctype && !is_output_type(Ctype))
    return invalid_argument(h, routine, r.ctype,
                            "(Ctype = %d) must be AEGIS_R_16F, AEGIS_R_16BF or AEGIS_R_32F",
                            static_cast<int>(Ctype));
  if (ldc < (m > 1 ? m : 1))
    return invalid_argument(h, routine, r.ldc, "(ldc = %lld) must be >= max(1, m = %lld)",
                            ll(ldc), ll(m));
  if (r.compute && computeType != AEGIS_COMPUTE_32F)
    return invalid_argument(h, routine, r.compute, "(computeType = %d) must be AEGIS_COMPUTE_32F",
                            static_cast<int>(computeType));

  // Quick returns, as reference BLAS. alpha = 0 or k = 0 with beta != 1 still writes beta * C
  // (run_gemm_ex does that without reading A or B).
  if (m == 0 || n == 0) return AEGIS_STATUS_SUCCESS;
  if (host_scalars && (to_float(*alpha) == 0.0f || k == 0) && to_float(*beta) == 1.0f)
    return AEGIS_STATUS_SUCCESS;

  constexpr bool kHalfScalars = std::is_same<Scalar, __half>::value;
  TcGemmParams p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.trans_a = trans_a;
  p.trans_b = trans_b;
  p.ab_type = to_dtype(Atype);
  p.c_type = to_dtype(Ctype);
  p.A = A;
  p.lda = lda;
  p.B = B;
  p.ldb = ldb;
  p.C = C;
  p.ldc = ldc;
  if (host_scalars) {
    p.alpha = TcScalar{to_float(*alpha), nullptr, false};
    p.beta = TcScalar{to_float(*beta), nullptr, false};
  } else {
    p.alpha = TcScalar{0.0f, alpha, kHalfScalars};
    p.beta = TcScalar{0.0f, beta, kHalfScalars};
  }
  return aegis::dispatch::run_gemm_ex(h, p, routine);
}

}  // namespace

extern "C" {

aegisStatus_t aegisGemmEx(aegisHandle_t h, aegisOperation_t transa, aegisOperation_t transb,
                          int64_t m, int64_t n, int64_t k, const float* alpha, const void* A,
                          aegisDataType_t Atype, int64_t lda, const void* B,
                          aegisDataType_t Btype, int64_t ldb, const float* beta, void* C,
                          aegisDataType_t Ctype, int64_t ldc, aegisComputeType_t computeType) {
  return gemm_ex<float>(h, kGemmEx, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb,
                        beta, C, Ctype, ldc, computeType);
}

aegisStatus_t aegisHgemm(aegisHandle_t h, aegisOperation_t transa, aegisOperation_t transb,
                         int64_t m, int64_t n, int64_t k, const aegisHalf_t* alpha,
                         const aegisHalf_t* A, int64_t lda, const aegisHalf_t* B, int64_t ldb,
                         const aegisHalf_t* beta, aegisHalf_t* C, int64_t ldc) {
  return gemm_ex<__half>(h, kHgemm, transa, transb, m, n, k, alpha, A, AEGIS_R_16F, lda, B,
                         AEGIS_R_16F, ldb, beta, C, AEGIS_R_16F, ldc, AEGIS_COMPUTE_32F);
}

int aegisGemmExConfigCount(void) {
  int count = 0;
  aegis::gemm::tc::tc_instances(&count);
  return count;
}

const char* aegisGemmExConfigName(int index) {
  int count = 0;
  const auto* const* all = aegis::gemm::tc::tc_instances(&count);
  return (index >= 0 && index < count) ? all[index]->name : nullptr;
}

aegisStatus_t aegisGemmExConfigTile(int index, int* tile_m, int* tile_n, int* blocks_per_sm) {
  int count = 0;
  const auto* const* all = aegis::gemm::tc::tc_instances(&count);
  if (index < 0 || index >= count || !tile_m || !tile_n || !blocks_per_sm)
    return AEGIS_STATUS_INVALID_VALUE;
  *tile_m = all[index]->tile_m;
  *tile_n = all[index]->tile_n;
  *blocks_per_sm = all[index]->blocks_per_sm;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisSetGemmExOverride(aegisHandle_t handle, const char* config) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!config) {
    handle->gemm_ex_override_config.clear();
    return AEGIS_STATUS_SUCCESS;
  }
  if (!aegis::gemm::tc::find_tc_instance(config))
    return invalid_argument(handle, "aegisSetGemmExOverride", 2,
                            "(config = \"%s\") is not a tensor-core GEMM kernel of this build",
                            config);
  handle->gemm_ex_override_config = config;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetLastGemmExChoice(aegisHandle_t handle, const char** config,
                                       int* split_k) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (config) *config = handle->last_gemm_ex_kernel.c_str();
  if (split_k) *split_k = handle->last_gemm_ex_split;
  return AEGIS_STATUS_SUCCESS;
}

}  // extern "C"
