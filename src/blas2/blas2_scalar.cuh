// Scalar arithmetic of the level-2 kernels, written once for float, double, cuComplex and
// cuDoubleComplex: multiply-add, conjugation, 16-byte vector loads, atomic adds.
#pragma once

#include <cuComplex.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/dependent_launch.cuh"

namespace aegis::blas2 {

template <typename T>
struct ScalarTraits;
template <>
struct ScalarTraits<float> {
  using Real = float;
  static constexpr bool kComplex = false;
};
template <>
struct ScalarTraits<double> {
  using Real = double;
  static constexpr bool kComplex = false;
};
template <>
struct ScalarTraits<cuComplex> {
  using Real = float;
  static constexpr bool kComplex = true;
};
template <>
struct ScalarTraits<cuDoubleComplex> {
  using Real = double;
  static constexpr bool kComplex = true;
};

// Elements per 16-byte load: 4 float, 2 double or cuComplex, 1 cuDoubleComplex.
template <typename T>
constexpr int kVecWidth = int(16 / sizeof(T));

template <typename T>
__host__ __device__ __forceinline__ T zero() {
  return T{};
}

__device__ __forceinline__ float conj_if(float a, bool) { return a; }
__device__ __forceinline__ double conj_if(double a, bool) { return a; }
__device__ __forceinline__ cuComplex conj_if(cuComplex a, bool c) {
  return c ? make_cuComplex(a.x, -a.y) : a;
}
__device__ __forceinline__ cuDoubleComplex conj_if(cuDoubleComplex a, bool c) {
  return c ? make_cuDoubleComplex(a.x, -a.y) : a;
}

// acc + a * b
__device__ __forceinline__ float mad(float a, float b, float acc) { return fmaf(a, b, acc); }
__device__ __forceinline__ double mad(double a, double b, double acc) { return fma(a, b, acc); }
__device__ __forceinline__ cuComplex mad(cuComplex a, cuComplex b, cuComplex acc) {
  acc.x = fmaf(a.x, b.x, acc.x);
  acc.x = fmaf(-a.y, b.y, acc.x);
  acc.y = fmaf(a.x, b.y, acc.y);
  acc.y = fmaf(a.y, b.x, acc.y);
  return acc;
}
__device__ __forceinline__ cuDoubleComplex mad(cuDoubleComplex a, cuDoubleComplex b,
                                               cuDoubleComplex acc) {
  acc.x = fma(a.x, b.x, acc.x);
  acc.x = fma(-a.y, b.y, acc.x);
  acc.y = fma(a.x, b.y, acc.y);
  acc.y = fma(a.y, b.x, acc.y);
  return acc;
}

__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ cuComplex mul(cuComplex a, cuComplex b) { return cuCmulf(a, b); }
__device__ __forceinline__ cuDoubleComplex mul(cuDoubleComplex a, cuDoubleComplex b) {
  return cuCmul(a, b);
}

__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ cuComplex add(cuComplex a, cuComplex b) { return cuCaddf(a, b); }
__device__ __forceinline__ cuDoubleComplex add(cuDoubleComplex a, cuDoubleComplex b) {
  return cuCadd(a, b);
}

__device__ __forceinline__ bool is_zero(float a) { return a == 0.0f; }
__device__ __forceinline__ bool is_zero(double a) { return a == 0.0; }
__device__ __forceinline__ bool is_zero(cuComplex a) { return a.x == 0.0f && a.y == 0.0f; }
__device__ __forceinline__ bool is_zero(cuDoubleComplex a) { return a.x == 0.0 && a.y == 0.0; }

// The diagonal of a Hermitian matrix is real by definition: its imaginary part is not read.
__device__ __forceinline__ float real_part(float a) { return a; }
__device__ __forceinline__ double real_part(double a) { return a; }
__device__ __forceinline__ cuComplex real_part(cuComplex a) { return make_cuComplex(a.x, 0.0f); }
__device__ __forceinline__ cuDoubleComplex real_part(cuDoubleComplex a) {
  return make_cuDoubleComplex(a.x, 0.0);
}

__device__ __forceinline__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(cuComplex* p, cuComplex v) {
  atomicAdd(&p->x, v.x);
  atomicAdd(&p->y, v.y);
}
__device__ __forceinline__ void atomic_add(cuDoubleComplex* p, cuDoubleComplex v) {
  atomicAdd(&p->x, v.x);
  atomicAdd(&p->y, v.y);
}

// V consecutive elements, 16-byte aligned when V * sizeof(T) == 16.
template <typename T, int V>
struct alignas(V * sizeof(T) >= 16 ? 16 : sizeof(T)) Vec {
  T v[V];
};

// Streaming load of V elements at p (p must be aligned to the Vec): the matrix is read once,
// so it is marked evict-first and does not push x and y out of L2.
template <typename T, int V>
__device__ __forceinline__ Vec<T, V> load_stream(const T* p) {
  if constexpr (V * sizeof(T) == 16) {
    const int4 raw = __ldcs(reinterpret_cast<const int4*>(p));
    Vec<T, V> out;
    static_assert(sizeof(out) == sizeof(raw), "16-byte vector");
    __builtin_memcpy(&out, &raw, sizeof(raw));
    return out;
  } else {
    Vec<T, V> out;
#pragma unroll
    for (int i = 0; i < V; ++i) out.v[i] = p[i];
    return out;
  }
}

// Scalars as the kernels receive them: values from the host, or pointers to device memory
// (read by each thread block; beta = 0 is tested on the device so y is never read then).
template <typename T>
struct Scalars {
  T alpha, beta;
  const T* alpha_device;  // null: use alpha
  const T* beta_device;
  __device__ __forceinline__ T get_alpha() const { return alpha_device ? *alpha_device : alpha; }
  __device__ __forceinline__ T get_beta() const { return beta_device ? *beta_device : beta; }
};

// y_i = alpha * s + beta * y_i, never reading y_i when beta = 0 (and ignoring s when
// alpha = 0: A and x then do not count, as in reference BLAS, even if they hold NaN).
template <typename T>
__device__ __forceinline__ void store_result(T* y, T alpha, T beta, T s) {
  T r = is_zero(alpha) ? zero<T>() : mul(alpha, s);
  if (!is_zero(beta)) r = mad(beta, *y, r);
  *y = r;
}

// How a kernel's thread blocks combine their partial sums.
enum class Combine {
  Direct,   // one block per output element: y = alpha s + beta y
  Atomic,   // y was scaled by beta before: y += alpha s with atomic adds
  Ordered,  // partials to the workspace; the last block of a panel adds them in fixed order
  Cluster,  // GEMV: the blocks of a panel are one cluster; the first adds the parts in rank
            // order in its shared memory (cluster_sum.cuh)
};

// y[i * inc] = beta * y[i * inc] for i < count (0 where beta = 0, whatever y held): the
// first step of atomics mode where the kernel does not scale y itself (GEMV T, SYMV/HEMV,
// and GEMV N under graph capture). The kernel after it is a programmatic dependent: it may
// launch at once and load A while this runs, and waits for y before its atomic adds.
template <typename T>
__global__ void scale_vector_kernel(int64_t count, T* y, int64_t inc, Scalars<T> s) {
  allow_dependent_launch();
  const T beta = s.get_beta();
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    T* p = y + i * inc;
    *p = is_zero(beta) ? zero<T>() : mul(beta, *p);
  }
}

template <typename T>
cudaError_t launch_scale_vector(int64_t count, T* y, int64_t inc, const Scalars<T>& s,
                                cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  int64_t blocks = (count + 255) / 256;
  if (blocks > 4096) blocks = 4096;
  scale_vector_kernel<T><<<unsigned(blocks), 256, 0, stream>>>(count, y, inc, s);
  return cudaGetLastError();
}

}  // namespace aegis::blas2
