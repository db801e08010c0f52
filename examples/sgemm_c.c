/* aegis from C: C = alpha * A * B + beta * C in single precision (column-major).
 * Built as example_c; see README.md "Using aegis from C". */
#include <stdio.h>
#include <stdlib.h>

#include <aegis/aegis.h>

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));             \
      goto done;                                                              \
    }                                                                         \
  } while (0)

int main(void) {
  const int64_t m = 300, n = 200, k = 100; /* A is m x k, B is k x n, C is m x n */
  const float alpha = 1.0f, beta = 0.0f;
  float ref = 0.0f; /* host value of C(m-1, n-1) */
  float *hA = malloc(m * k * sizeof(float)), *hB = malloc(k * n * sizeof(float));
  float *hC = malloc(m * n * sizeof(float)), *dA = NULL, *dB = NULL, *dC = NULL;
  aegisHandle_t handle = NULL;
  aegisStatus_t st;
  int rc = 1;
  if (!hA || !hB || !hC) goto done;
  for (int64_t i = 0; i < m * k; ++i) hA[i] = (float)(i % 7) - 3.0f;
  for (int64_t i = 0; i < k * n; ++i) hB[i] = (float)(i % 5) * 0.25f;

  st = aegisCreate(&handle);
  if (st == AEGIS_STATUS_NO_DEVICE) {
    printf("example_c: no CUDA device on this machine, nothing to run\n");
    rc = 0;
    goto done;
  }
  if (st != AEGIS_STATUS_SUCCESS) {
    fprintf(stderr, "aegisCreate: %s\n", aegisGetStatusString(st));
    goto done;
  }
  CUDA_CHECK(cudaMalloc((void**)&dA, m * k * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void**)&dB, k * n * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void**)&dC, m * n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dA, hA, m * k * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, hB, k * n * sizeof(float), cudaMemcpyHostToDevice));

  st = aegisSgemm(handle, AEGIS_OP_N, AEGIS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m);
  if (st != AEGIS_STATUS_SUCCESS) {
    fprintf(stderr, "aegisSgemm: %s\n", aegisGetLastErrorString(handle));
    goto done;
  }
  /* The call is asynchronous on the handle's stream (the default stream here). */
  CUDA_CHECK(cudaMemcpy(hC, dC, m * n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int64_t p = 0; p < k; ++p) ref += hA[(m - 1) + p * m] * hB[p + (n - 1) * k];
  printf("C(%d,%d) = %g (expected %g)\n", (int)m - 1, (int)n - 1, hC[m * n - 1], ref);
  rc = hC[m * n - 1] == ref ? 0 : 1; /* small integers and quarters: exact in FP32 */
done:
  cudaFree(dA), cudaFree(dB), cudaFree(dC);
  if (handle && aegisDestroy(handle) != AEGIS_STATUS_SUCCESS) rc = 1;
  free(hA), free(hB), free(hC);
  return rc;
}
