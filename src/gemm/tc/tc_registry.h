// Every tensor-core GEMM kernel built into the library, by name.
#pragma once

#include "gemm/tc/tc_params.h"

namespace aegis::gemm::tc {

struct TcInstance {
  const char* name;  // e.g. "gemm_sm90_128x256x64_s4", "gemm_sm80_mma_sync"
  TcLaunchFn launch;
  TcRequirements needs;
  int tile_m, tile_n;  // output tile of one thread block (for dispatch's wave arithmetic)
  int blocks_per_sm;   // thread blocks resident on one SM
  // K of one pipeline stage: a K split through the workspace cuts K at multiples of it.
  int stage_k;
};

// All instances; *count receives their number.
const TcInstance* const* tc_instances(int* count);
const TcInstance* find_tc_instance(const char* name);
// The fallback that runs any call on sm_80+ (mma.sync, no alignment requirement).
const TcInstance* tc_fallback_instance();

// True when the call satisfies what the instance needs (alignment, strides); the
// architecture is checked by dispatch.
bool tc_can_run(const TcInstance& inst, const TcGemmParams& p);

}  // namespace aegis::gemm::tc
