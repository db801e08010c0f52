// One GEMM as each library is called on device buffers, for every element type:
//  * f32 operands: aegisSgemm and cublasSgemm_v2 (FP32 on CUDA cores; the cuBLAS handle
//    must be in CUBLAS_DEFAULT_MATH, so no TF32);
//  * f16 and bf16 operands: aegisGemmEx and cublasGemmEx with C of the call's type, FP32
//    accumulation (AEGIS_COMPUTE_32F, CUBLAS_COMPUTE_32F) and CUBLAS_GEMM_DEFAULT.
// alpha and beta are host floats (the handles must be in host pointer mode).
#ifndef AEGIS_BENCH_GEMM_CALL_H
#define AEGIS_BENCH_GEMM_CALL_H

#include <cublas_v2.h>

#include <cstdint>
#include <string>

#include "aegis/aegis.h"
#include "gemm_case.h"

namespace aegis::bench {

// C = alpha op(A) op(B) + beta C, column-major; op(A) is m x k, op(B) is k x n.
struct GemmCall {
  GemmOp op;
  int64_t m, n, k;
  aegisDataType_t ab_type;  // A and B
  aegisDataType_t c_type;   // f32 when ab_type is
  const void* a;
  int64_t lda;
  const void* b;
  int64_t ldb;
  void* c;
  int64_t ldc;
  float alpha = 1.0f, beta = 0.0f;
};

aegisStatus_t call_aegis(aegisHandle_t handle, const GemmCall& call);
// cuBLAS takes int sizes: every size and leading dimension must fit (gemm_case checks).
cublasStatus_t call_cublas(cublasHandle_t handle, const GemmCall& call);

// The kernel the last call_aegis of that element type ran on the handle, as dispatch names
// it ("" if it launched nothing), and its split-K factor (0 for f16 and bf16, which never
// split K).
aegisStatus_t last_aegis_kernel(aegisHandle_t handle, aegisDataType_t ab_type, std::string* kernel,
                                int* split_k);

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_GEMM_CALL_H
