// TMA tensor descriptors for the sm90 GEMM's operands, encoded on the host through the
// driver entry point the CUDA runtime hands out (libaegis links only the runtime).
#pragma once

#include <cstdint>

#include <cuda.h>

#include "gemm/tc/tc_params.h"

namespace aegis::gemm::sm90 {

// Describes a column-major 2D array of 16-bit elements (inner extent `inner`, contiguous;
// `outer` columns `stride_bytes` apart) read in boxes of box_inner x box_outer elements with
// the 128-byte swizzle that wgmma's descriptors expect; reads past the extents return zeros.
// False when the driver rejects the description (the caller then reports a launch error).
bool encode_operand_map(CUtensorMap* map, tc::DType type, const void* base, uint64_t inner,
                        uint64_t outer, uint64_t stride_bytes, uint32_t box_inner,
                        uint32_t box_outer);

}  // namespace aegis::gemm::sm90
