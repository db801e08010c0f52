// Device-side read of a tensor-core GEMM scalar (alpha or beta) in either pointer mode.
#pragma once

#include <cuda_fp16.h>

#include "gemm/tc/tc_params.h"

namespace aegis::gemm::tc {

// The value in host pointer mode; in device pointer mode the float, or the FP16 value
// (aegisHgemm), the pointer refers to.
__device__ __forceinline__ float read_scalar(const TcScalar& s) {
  if (!s.device_ptr) return s.value;
  return s.device_is_half ? __half2float(*static_cast<const __half*>(s.device_ptr))
                          : *static_cast<const float*>(s.device_ptr);
}

}  // namespace aegis::gemm::tc
