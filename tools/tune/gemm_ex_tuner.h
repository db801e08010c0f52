// aegis-tune gemm-ex: measures the tensor-core GEMM kernels and writes their tuning table.
#pragma once

#include "tune_options.h"

namespace aegis::tune {

// Returns the process exit status.
int run_gemm_ex_tuner(const TuneOptions& options);

}  // namespace aegis::tune
