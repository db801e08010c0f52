// GEMM element types as the tools name them on the command line (f32, f16, bf16, held as
// aegisDataType_t), with what the harness needs of each: size, cuBLAS type, rounding units,
// random fill, and typed access to an untyped device pointer.
#ifndef AEGIS_BENCH_GEMM_TYPES_H
#define AEGIS_BENCH_GEMM_TYPES_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <library_types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "aegis/aegis.h"

namespace aegis::bench {

const char* element_type_name(aegisDataType_t type);  // "f32", "f16", "bf16"
// "f32", "f16" or "bf16" (any case); false for anything else.
bool parse_element_type(const std::string& text, aegisDataType_t* type);

size_t element_bytes(aegisDataType_t type);
cudaDataType_t cuda_data_type(aegisDataType_t type);  // CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF

// Unit roundoff of rounding to nearest in the type: 2^-24 (f32), 2^-11 (f16), 2^-8 (bf16).
double unit_roundoff(aegisDataType_t type);
// Largest absolute error of rounding to nearest among the subnormals, where the relative
// bound does not hold: half their spacing, 2^-150 (f32), 2^-25 (f16), 2^-134 (bf16).
double underflow_error(aegisDataType_t type);

// fill_uniform (device_kernels.h) on `count` elements of the given type.
cudaError_t fill_uniform(aegisDataType_t type, void* data, int64_t count, uint64_t seed,
                         uint64_t stream_id, cudaStream_t stream);

// Calls f with `data` as a pointer to the element type (const float*, const __half* or
// const __nv_bfloat16*), so that one generic lambda serves every type; returns f's result.
template <typename F>
auto with_element_pointer(aegisDataType_t type, const void* data, F&& f) {
  switch (type) {
    case AEGIS_R_16F:
      return f(static_cast<const __half*>(data));
    case AEGIS_R_16BF:
      return f(static_cast<const __nv_bfloat16*>(data));
    case AEGIS_R_32F:
      break;
  }
  return f(static_cast<const float*>(data));
}

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_GEMM_TYPES_H
