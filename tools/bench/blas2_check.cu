#include "blas2_check.h"

#include <cuComplex.h>
#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cuda_check.h"

namespace aegis::bench {
namespace {

__device__ double2 d2(float v) { return make_double2(v, 0); }
__device__ double2 d2(double v) { return make_double2(v, 0); }
__device__ double2 d2(cuComplex v) { return make_double2(v.x, v.y); }
__device__ double2 d2(cuDoubleComplex v) { return make_double2(v.x, v.y); }

// One block per sampled element: out[s] = (error, bound).
template <typename T>
__global__ void spot_kernel(int kind, bool upper, int64_t m, int64_t n, const T* A, int64_t lda,
                            const T* x, const T* y, int samples, double2* out) {
  const bool rows = kind == 0 || kind >= 3;
  const int64_t len_y = rows ? m : n, len_k = rows ? n : m;
  const int64_t i = samples > 1 ? int64_t(blockIdx.x) * (len_y - 1) / (samples - 1) : 0;
  double re = 0, im = 0, mag = 0;
  for (int64_t k = threadIdx.x; k < len_k; k += blockDim.x) {
    double2 e;
    if (kind == 0) e = d2(A[i + k * lda]);
    else if (kind <= 2) {
      e = d2(A[k + i * lda]);
      if (kind == 2) e.y = -e.y;
    } else {
      const bool stored = upper ? i <= k : i >= k;
      e = stored ? d2(A[i + k * lda]) : d2(A[k + i * lda]);
      if (kind == 4) {
        if (i == k) e.y = 0;
        else if (!stored) e.y = -e.y;
      }
    }
    const double2 v = d2(x[k]);
    re += e.x * v.x - e.y * v.y;
    im += e.x * v.y + e.y * v.x;
    mag += sqrt(e.x * e.x + e.y * e.y) * sqrt(v.x * v.x + v.y * v.y);
  }
  __shared__ double s[3][256];
  s[0][threadIdx.x] = re, s[1][threadIdx.x] = im, s[2][threadIdx.x] = mag;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o /= 2) {
    if (int(threadIdx.x) < o)
      for (int q = 0; q < 3; ++q) s[q][threadIdx.x] += s[q][threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double2 got = d2(y[i]);
    out[blockIdx.x] = make_double2(hypot(got.x - s[0][0], got.y - s[1][0]), s[2][0]);
  }
}

}  // namespace

double blas2_spot_check(int precision, int kind, bool upper, int64_t m, int64_t n, const void* A,
                        int64_t lda, const void* x, const void* y, int samples,
                        cudaStream_t stream) {
  double2* d_out = nullptr;
  AEGIS_BENCH_CHECK_CUDA(cudaMalloc(&d_out, sizeof(double2) * samples));
  switch (precision) {
#define AEGIS_SPOT(P, T)                                                                        \
  case P:                                                                                       \
    spot_kernel<T><<<samples, 256, 0, stream>>>(kind, upper, m, n, static_cast<const T*>(A), lda, \
                                                static_cast<const T*>(x),                       \
                                                static_cast<const T*>(y), samples, d_out);      \
    break;
    AEGIS_SPOT(0, float)
    AEGIS_SPOT(1, double)
    AEGIS_SPOT(2, cuComplex)
    AEGIS_SPOT(3, cuDoubleComplex)
#undef AEGIS_SPOT
  }
  AEGIS_BENCH_CHECK_CUDA(cudaGetLastError());
  std::vector<double2> out(samples);
  AEGIS_BENCH_CHECK_CUDA(cudaMemcpyAsync(out.data(), d_out, sizeof(double2) * samples,
                                         cudaMemcpyDeviceToHost, stream));
  AEGIS_BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  AEGIS_BENCH_CHECK_CUDA(cudaFree(d_out));
  const bool single = precision == 0 || precision == 2;
  const double u = single ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  const int64_t k = (kind == 0 || kind >= 3) ? n : m;
  const double gamma = double(k + 4) * u / (1 - double(k + 4) * u) * (precision >= 2 ? 2.0 : 1.0);
  double worst = 0;
  for (const double2& e : out) {
    const double err = e.x / (gamma * e.y + 1e-300);
    if (!(err == err) || std::isinf(err)) return std::numeric_limits<double>::quiet_NaN();
    worst = err > worst ? err : worst;
  }
  return worst;
}

}  // namespace aegis::bench
