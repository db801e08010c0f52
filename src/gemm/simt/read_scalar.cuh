// alpha or beta of a SIMT GEMM call, from the host value or the device pointer (pointer mode).
#pragma once

#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {

__device__ __forceinline__ float read_scalar(const Scalar<float>& s) {
  return s.device_ptr ? *s.device_ptr : s.value;
}

}  // namespace aegis::gemm::simt
