// alpha or beta of a SIMT GEMM call, from the host value or the device pointer (pointer mode).
#pragma once

#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {

__device__ __forceinline__ float read_scalar(const Scalar<float>& s) {
  return s.device_ptr ? *s.device_ptr : s.value;
}

// The same, read again from memory: the compiler cannot reuse an earlier read, whose
// register would then stay live in between (the FT kernel re-reads after its main loop).
// (Two returns, not one conditional: `c ? *volatile_ptr : s.value` is a volatile lvalue,
// and the volatile load of the parameter's address read address 0x48, measured.)
__device__ __forceinline__ float read_scalar_again(const Scalar<float>& s) {
  if (s.device_ptr) return *static_cast<const volatile float*>(s.device_ptr);
  const float value = s.value;
  return value;
}

}  // namespace aegis::gemm::simt
