#include "gemm_call.h"

#include "gemm_types.h"

namespace aegis::bench {
namespace {

cublasOperation_t cublas_op(aegisOperation_t op) {
  return op == AEGIS_OP_N ? CUBLAS_OP_N : op == AEGIS_OP_T ? CUBLAS_OP_T : CUBLAS_OP_C;
}

}  // namespace

aegisStatus_t call_aegis(aegisHandle_t handle, const GemmCall& call) {
  if (call.ab_type == AEGIS_R_32F)
    return aegisSgemm(handle, call.op.a, call.op.b, call.m, call.n, call.k, &call.alpha,
                      static_cast<const float*>(call.a), call.lda,
                      static_cast<const float*>(call.b), call.ldb, &call.beta,
                      static_cast<float*>(call.c), call.ldc);
  return aegisGemmEx(handle, call.op.a, call.op.b, call.m, call.n, call.k, &call.alpha, call.a,
                     call.ab_type, call.lda, call.b, call.ab_type, call.ldb, &call.beta, call.c,
                     call.c_type, call.ldc, AEGIS_COMPUTE_32F);
}

cublasStatus_t call_cublas(cublasHandle_t handle, const GemmCall& call) {
  if (call.ab_type == AEGIS_R_32F)
    return cublasSgemm_v2(handle, cublas_op(call.op.a), cublas_op(call.op.b), int(call.m),
                          int(call.n), int(call.k), &call.alpha, static_cast<const float*>(call.a),
                          int(call.lda), static_cast<const float*>(call.b), int(call.ldb),
                          &call.beta, static_cast<float*>(call.c), int(call.ldc));
  return cublasGemmEx(handle, cublas_op(call.op.a), cublas_op(call.op.b), int(call.m), int(call.n),
                      int(call.k), &call.alpha, call.a, cuda_data_type(call.ab_type), int(call.lda),
                      call.b, cuda_data_type(call.ab_type), int(call.ldb), &call.beta, call.c,
                      cuda_data_type(call.c_type), int(call.ldc), CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
}

aegisStatus_t last_aegis_kernel(aegisHandle_t handle, aegisDataType_t ab_type, std::string* kernel,
                                int* split_k) {
  const char* name = nullptr;
  aegisStatus_t status = AEGIS_STATUS_SUCCESS;
  *split_k = 0;
  if (ab_type == AEGIS_R_32F)
    status = aegisGetLastSgemmChoice(handle, &name, split_k);
  else
    status = aegisGetLastGemmExChoice(handle, &name, split_k);
  *kernel = name ? name : "";
  return status;
}

}  // namespace aegis::bench
