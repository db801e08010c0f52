#include "blas2_reference.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace aegis_test {
namespace {

__device__ double2 to_d2(float v) { return make_double2(v, 0.0); }
__device__ double2 to_d2(double v) { return make_double2(v, 0.0); }
__device__ double2 to_d2(cuComplex v) { return make_double2(v.x, v.y); }
__device__ double2 to_d2(cuDoubleComplex v) { return make_double2(v.x, v.y); }

__device__ double2 cmul(double2 a, double2 b) {
  return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ double cabs2(double2 a) { return sqrt(a.x * a.x + a.y * a.y); }

template <typename T>
__global__ void reference_kernel(Blas2RefArgs a, double2* ref, double* bound) {
  const bool gemv_n = a.kind == Blas2Kind::GemvN;
  const bool sym = a.kind == Blas2Kind::Symv || a.kind == Blas2Kind::Hemv;
  const int64_t len_y = gemv_n || sym ? a.m : a.n;
  const int64_t len_k = gemv_n || sym ? a.n : a.m;
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= len_y) return;
  const T* A = static_cast<const T*>(a.A);
  const T* x = static_cast<const T*>(a.x0);
  const T* y = static_cast<const T*>(a.y0);
  const double2 alpha = make_double2(a.alpha[0], a.alpha[1]);
  const double2 beta = make_double2(a.beta[0], a.beta[1]);
  double2 acc = make_double2(0, 0);
  double mag = 0;
  if (alpha.x != 0 || alpha.y != 0) {
    for (int64_t k = 0; k < len_k; ++k) {
      double2 e;
      if (gemv_n) {
        e = to_d2(A[i + k * a.lda]);
      } else if (!sym) {
        e = to_d2(A[k + i * a.lda]);
        if (a.kind == Blas2Kind::GemvC) e.y = -e.y;
      } else {
        const bool stored = a.upper ? i <= k : i >= k;
        e = stored ? to_d2(A[i + k * a.lda]) : to_d2(A[k + i * a.lda]);
        if (a.kind == Blas2Kind::Hemv) {
          if (i == k) e.y = 0;
          else if (!stored) e.y = -e.y;
        }
      }
      const double2 xv = to_d2(x[k * a.incx]);
      const double2 p = cmul(e, xv);
      acc.x += p.x;
      acc.y += p.y;
      mag += cabs2(e) * cabs2(xv);
    }
  }
  double2 r = cmul(alpha, acc);
  double b = cabs2(alpha) * mag;
  if (beta.x != 0 || beta.y != 0) {
    const double2 yv = to_d2(y[i * a.incy]);
    const double2 by = cmul(beta, yv);
    r.x += by.x;
    r.y += by.y;
    b += cabs2(beta) * cabs2(yv);
  }
  ref[i] = r;
  bound[i] = b;
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("blas2_reference ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

template <typename T>
void blas2_reference(const Blas2RefArgs& args, std::vector<double>* ref_re_im,
                     std::vector<double>* bound) {
  const bool len_m = args.kind == Blas2Kind::GemvN || args.kind == Blas2Kind::Symv ||
                     args.kind == Blas2Kind::Hemv;
  const int64_t len = len_m ? args.m : args.n;
  ref_re_im->assign(size_t(2 * len), 0.0);
  bound->assign(size_t(len), 0.0);
  if (len == 0) return;
  double2* d_ref = nullptr;
  double* d_bound = nullptr;
  check(cudaMalloc(&d_ref, sizeof(double2) * len), "cudaMalloc");
  check(cudaMalloc(&d_bound, sizeof(double) * len), "cudaMalloc");
  reference_kernel<T><<<unsigned((len + 127) / 128), 128>>>(args, d_ref, d_bound);
  check(cudaGetLastError(), "launch");
  check(cudaMemcpy(ref_re_im->data(), d_ref, sizeof(double2) * len, cudaMemcpyDeviceToHost), "copy");
  check(cudaMemcpy(bound->data(), d_bound, sizeof(double) * len, cudaMemcpyDeviceToHost), "copy");
  cudaFree(d_ref);
  cudaFree(d_bound);
}

template void blas2_reference<float>(const Blas2RefArgs&, std::vector<double>*, std::vector<double>*);
template void blas2_reference<double>(const Blas2RefArgs&, std::vector<double>*, std::vector<double>*);
template void blas2_reference<cuComplex>(const Blas2RefArgs&, std::vector<double>*, std::vector<double>*);
template void blas2_reference<cuDoubleComplex>(const Blas2RefArgs&, std::vector<double>*,
                                               std::vector<double>*);

}  // namespace aegis_test
