/* aegis from C: D = alpha * A * B + beta * C on the tensor cores, FP16 A, B and C with FP32
 * accumulation (column-major). Built as example_gemm_ex_c; see README.md "Tensor-core GEMM". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <aegis/aegis.h>

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));             \
      goto done;                                                              \
    }                                                                         \
  } while (0)

/* FP16 bits of the small integers and halves used below (exact in binary16), so the example
 * needs no half-precision arithmetic on the host. */
static unsigned short half_bits(float v) {
  /* v = s * 2^e * 1.f with |v| in [2^-1, 2^5): enough for this example's values. */
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  if (v == 0.0f) return (unsigned short)(bits >> 16);
  const unsigned int sign = bits >> 31, exponent = (bits >> 23) & 0xFF, mantissa = bits & 0x7FFFFF;
  return (unsigned short)((sign << 15) | ((exponent - 127 + 15) << 10) | (mantissa >> 13));
}

static float half_value(unsigned short h) {
  const unsigned int sign = h >> 15, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  unsigned int bits;
  float v;
  if (exponent == 0 && mantissa == 0) bits = sign << 31;
  else bits = (sign << 31) | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  memcpy(&v, &bits, sizeof v);
  return v;
}

int main(void) {
  const int64_t m = 256, n = 192, k = 128; /* A is m x k, B is k x n, C is m x n */
  const float alpha = 1.0f, beta = 0.0f;
  float ref = 0.0f; /* host value of C(m-1, n-1) */
  unsigned short *hA = malloc(m * k * 2), *hB = malloc(k * n * 2), *hC = malloc(m * n * 2);
  void *dA = NULL, *dB = NULL, *dC = NULL;
  const char* kernel = "";
  aegisHandle_t handle = NULL;
  aegisStatus_t st;
  int rc = 1;
  if (!hA || !hB || !hC) goto done;
  for (int64_t i = 0; i < m * k; ++i) hA[i] = half_bits((float)(i % 7) - 3.0f);
  for (int64_t i = 0; i < k * n; ++i) hB[i] = half_bits((float)(i % 5) * 0.5f);

  st = aegisCreate(&handle);
  if (st == AEGIS_STATUS_NO_DEVICE) {
    printf("example_gemm_ex_c: no CUDA device on this machine, nothing to run\n");
    rc = 0;
    goto done;
  }
  if (st != AEGIS_STATUS_SUCCESS) {
    fprintf(stderr, "aegisCreate: %s\n", aegisGetStatusString(st));
    goto done;
  }
  CUDA_CHECK(cudaMalloc(&dA, m * k * 2));
  CUDA_CHECK(cudaMalloc(&dB, k * n * 2));
  CUDA_CHECK(cudaMalloc(&dC, m * n * 2));
  CUDA_CHECK(cudaMemcpy(dA, hA, m * k * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, hB, k * n * 2, cudaMemcpyHostToDevice));

  st = aegisGemmEx(handle, AEGIS_OP_N, AEGIS_OP_N, m, n, k, &alpha, dA, AEGIS_R_16F, m, dB,
                   AEGIS_R_16F, k, &beta, dC, AEGIS_R_16F, m, AEGIS_COMPUTE_32F);
  if (st == AEGIS_STATUS_ARCH_MISMATCH) {
    printf("example_gemm_ex_c: %s\n", aegisGetLastErrorString(handle));
    rc = 0; /* a GPU older than sm_80 has no tensor-core path */
    goto done;
  }
  if (st != AEGIS_STATUS_SUCCESS) {
    fprintf(stderr, "aegisGemmEx: %s\n", aegisGetLastErrorString(handle));
    goto done;
  }
  CUDA_CHECK(cudaMemcpy(hC, dC, m * n * 2, cudaMemcpyDeviceToHost));
  aegisGetLastGemmExChoice(handle, &kernel, NULL);
  for (int64_t p = 0; p < k; ++p)
    ref += half_value(hA[(m - 1) + p * m]) * half_value(hB[p + (n - 1) * k]);
  printf("C(%d,%d) = %g (expected %g) by %s\n", (int)m - 1, (int)n - 1,
         half_value(hC[m * n - 1]), ref, kernel);
  /* Integer and half-integer products summed in FP32 are exact; the result (|C| < 2^11) is
   * exact in FP16 too when it is a multiple of 0.5, which these inputs guarantee. */
  rc = half_value(hC[m * n - 1]) == ref ? 0 : 1;
done:
  cudaFree(dA), cudaFree(dB), cudaFree(dC);
  if (handle && aegisDestroy(handle) != AEGIS_STATUS_SUCCESS) rc = 1;
  free(hA), free(hB), free(hC);
  return rc;
}
