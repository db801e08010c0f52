// Return-code checks for CUDA, cuBLAS and aegis calls. A benchmark cannot recover from a
// failed call, so each check names the call and its location and exits with status 1.
#ifndef AEGIS_BENCH_CUDA_CHECK_H
#define AEGIS_BENCH_CUDA_CHECK_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#include "aegis/aegis.h"
#include "console.h"

namespace aegis::bench {

[[noreturn]] inline void fail_call(const char* call, const char* error, const char* detail,
                                   const char* file, int line) {
  std::fprintf(stderr, "%s: %s failed: %s%s%s (%s:%d)\n", tool_name(), call, error,
               detail[0] ? ": " : "", detail, file, line);
  std::exit(1);
}

// The handle's last error text names the argument; fall back to the status description.
inline const char* aegis_failure_detail(aegisHandle_t handle, aegisStatus_t status) {
  const char* text = handle ? aegisGetLastErrorString(handle) : "";
  return (text && text[0]) ? text : aegisGetStatusString(status);
}

}  // namespace aegis::bench

#define AEGIS_BENCH_CHECK_CUDA(call)                                                       \
  do {                                                                                     \
    cudaError_t aegis_bench_err_ = (call);                                                 \
    if (aegis_bench_err_ != cudaSuccess)                                                   \
      ::aegis::bench::fail_call(#call, cudaGetErrorName(aegis_bench_err_),                 \
                                cudaGetErrorString(aegis_bench_err_), __FILE__, __LINE__); \
  } while (0)

#define AEGIS_BENCH_CHECK_CUBLAS(call)                                                           \
  do {                                                                                           \
    cublasStatus_t aegis_bench_status_ = (call);                                                 \
    if (aegis_bench_status_ != CUBLAS_STATUS_SUCCESS)                                            \
      ::aegis::bench::fail_call(#call, cublasGetStatusName(aegis_bench_status_),                 \
                                cublasGetStatusString(aegis_bench_status_), __FILE__, __LINE__); \
  } while (0)

// handle may be null (aegisCreate); then only the status is reported.
#define AEGIS_BENCH_CHECK_AEGIS(handle, call)                                                      \
  do {                                                                                             \
    aegisStatus_t aegis_bench_status_ = (call);                                                    \
    if (aegis_bench_status_ != AEGIS_STATUS_SUCCESS)                                               \
      ::aegis::bench::fail_call(#call, aegisGetStatusName(aegis_bench_status_),                    \
                                ::aegis::bench::aegis_failure_detail(handle, aegis_bench_status_), \
                                __FILE__, __LINE__);                                               \
  } while (0)

#endif  // AEGIS_BENCH_CUDA_CHECK_H
