// The SGEMM kernel configurations compiled into this library (generated from
// instances/sgemm_configs.def), looked up by dispatch and by the tuning tools.
#pragma once

#include "gemm/simt/ft_groups.h"
#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {

// The same tile with fused checksums of one level (no split-K), compiled in a file of its
// own (instances/sgemm_ft_instance.cu.in) so that the levels build in parallel.
struct SgemmFtLaunch {
  SgemmLaunchFn launch[2][2];  // [op(A) transposed][op(B) transposed]
};

struct SgemmInstance {
  const char* name;  // e.g. "sgemm_simt_128x128x8_w32x64_t8x8"
  int mtb, ntb, ktb;
  int mw, nw, mt, nt;
  int threads;
  int blocks_per_sm;  // resident blocks per SM the launch bounds guarantee
  SgemmLaunchFn launch[2][2];  // [op(A) transposed][op(B) transposed]
  const SgemmFtLaunch* ft[kFtFusedLevels];  // by FtLevel
};

// All compiled instances, in table order.
const SgemmInstance* const* sgemm_instances(int* count);
// The instance called `name`, or nullptr.
const SgemmInstance* find_sgemm_instance(const char* name);

}  // namespace aegis::gemm::simt
