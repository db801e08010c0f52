// Arguments of one SIMT GEMM launch, as raw pointers and sizes (no handle types below
// the dispatch layer).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace aegis::gemm::simt {

// Scalars are either values (host pointer mode) or device pointers that the kernel
// dereferences (device pointer mode): the pointer wins when it is non-null.
template <typename T>
struct Scalar {
  T value;
  const T* device_ptr;
};

template <typename T>
struct GemmParams {
  int64_t m, n, k;
  const T* A;  // column-major; op(A) is m x k
  int64_t lda;
  const T* B;  // column-major; op(B) is k x n
  int64_t ldb;
  T* C;
  int64_t ldc;
  Scalar<T> alpha, beta;
  // 16-byte vector access allowed for A, B, C (pointer aligned and ld a multiple of 4).
  bool a_vec, b_vec, c_vec;
  // Split-K: blockIdx.y selects a K range of k_per_split elements (a multiple of the tile's
  // KTB). With split_k > 1 each slice writes unscaled partial sums to
  // partial[slice * m * n + i + j * m], and the last slice of a tile to finish (counted in
  // tile_flags[blockIdx.x], zero-initialized, reset by that slice) sums them in slice order
  // and writes C: split-K costs no extra launch and stays deterministic.
  int split_k;
  int64_t k_per_split;
  T* partial;
  int* tile_flags;
  int tiles_m, tiles_n;
};

// Launcher of one kernel configuration and transpose pair.
using SgemmLaunchFn = cudaError_t (*)(const GemmParams<float>&, cudaStream_t);

// C = beta * C (the alpha = 0 / k = 0 path of GEMM); beta = 0 never reads C.
cudaError_t launch_scale_c(const GemmParams<float>& p, cudaStream_t stream);

}  // namespace aegis::gemm::simt
