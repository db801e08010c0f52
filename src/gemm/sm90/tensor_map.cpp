#include "gemm/sm90/tensor_map.h"

#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

namespace aegis::gemm::sm90 {

namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_function() {
  // Looked up once; the runtime resolves it from the driver already loaded for the context.
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000,
                                         cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(ptr);
  }();
  return fn;
}

}  // namespace

bool encode_operand_map(CUtensorMap* map, tc::DType type, const void* base, uint64_t inner,
                        uint64_t outer, uint64_t stride_bytes, uint32_t box_inner,
                        uint32_t box_outer) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = encode_function();
  if (!encode) return false;
  const cuuint64_t dims[2] = {inner, outer};
  const cuuint64_t strides[1] = {stride_bytes};
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUtensorMapDataType dt = type == tc::DType::BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                         : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  return encode(map, dt, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace aegis::gemm::sm90
