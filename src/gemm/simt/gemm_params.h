// Arguments of one SIMT GEMM launch, as raw pointers and sizes (no handle types below
// the dispatch layer).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "abft/ft_params.h"

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
  // KTB); with split_k > 1 each slice writes unscaled partial sums to
  // partial[slice * m * n + i + j * m] and a reduction kernel applies alpha and beta.
  int split_k;
  int64_t k_per_split;
  T* partial;
  int tiles_m, tiles_n;
  // Read only by the FT instances (the plain ones ignore it).
  abft::FtParams ft;
};

// Launcher of one kernel configuration and transpose pair.
using SgemmLaunchFn = cudaError_t (*)(const GemmParams<float>&, cudaStream_t);

// C = (num_partials > 0 ? alpha * sum_s partial[s] : 0) + beta * C; beta = 0 never reads C.
// With num_partials = 0 this is the alpha = 0 / k = 0 path of GEMM (C = beta * C).
cudaError_t launch_splitk_reduce(const GemmParams<float>& p, int num_partials,
                                 cudaStream_t stream);

}  // namespace aegis::gemm::simt
