// Arguments of one tensor-core GEMM launch (aegisGemmEx / aegisHgemm), as raw pointers and
// sizes: D = alpha * op(A) * op(B) + beta * C written over C, FP32 accumulation.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace aegis::gemm::tc {

enum class DType : int { F16 = 0, BF16 = 1, F32 = 2 };

constexpr size_t dtype_bytes(DType t) { return t == DType::F32 ? 4 : 2; }

// alpha or beta: the value (host pointer mode), or a device pointer the kernel reads (device
// pointer mode; the pointer wins when non-null). A device scalar is a float, or an FP16 value
// when device_is_half (aegisHgemm).
struct TcScalar {
  float value;
  const void* device_ptr;
  bool device_is_half;
};

struct TcGemmParams {
  int64_t m, n, k;  // op(A) is m x k, op(B) is k x n, C is m x n; all column-major
  bool trans_a, trans_b;
  DType ab_type;  // F16 or BF16, both operands
  DType c_type;   // F16, BF16 or F32
  const void* A;
  int64_t lda;
  const void* B;
  int64_t ldb;
  void* C;
  int64_t ldc;
  TcScalar alpha, beta;
  // Split-K (set by dispatch for kernels that support it): split_k slices of k_per_split
  // elements (a multiple of the kernel's k-tile) write unscaled FP32 partial sums to
  // partial[slice * m * n + i + j * m]; launch_splitk_reduce then forms C.
  int split_k = 1;
  int64_t k_per_split = 0;
  float* partial = nullptr;
};

// Launcher of one kernel family or instance; returns the launch error (no synchronization).
using TcLaunchFn = cudaError_t (*)(const TcGemmParams&, cudaStream_t);

// What a kernel needs from a call before it can run it.
struct TcRequirements {
  int min_cc_major;   // lowest compute capability major (8: sm_80+, 9: Hopper only)
  bool tma_operands;  // A, B 16-byte aligned and lda, ldb * element size multiples of 16
  bool split_k;       // honours TcGemmParams::split_k (else dispatch never splits for it)
};

}  // namespace aegis::gemm::tc
