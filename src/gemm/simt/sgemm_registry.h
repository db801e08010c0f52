// The SGEMM kernel configurations compiled into this library (generated from
// instances/sgemm_configs.def), looked up by dispatch and by the tuning tools.
#pragma once

#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {

struct SgemmInstance {
  const char* name;  // e.g. "sgemm_simt_128x128x8_w32x64_t8x8"
  int mtb, ntb, ktb;
  int threads;
  int blocks_per_sm;  // resident blocks per SM the launch bounds guarantee
  SgemmLaunchFn launch[2][2];     // [op(A) transposed][op(B) transposed]
  SgemmLaunchFn launch_ft[2][2];  // the same tile with fused block-level checksums (no split-K)
};

// All compiled instances, in table order.
const SgemmInstance* const* sgemm_instances(int* count);
// The instance called `name`, or nullptr.
const SgemmInstance* find_sgemm_instance(const char* name);

}  // namespace aegis::gemm::simt
