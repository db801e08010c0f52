// aegis-tune sgemm: measures the SGEMM candidates and writes the tuning table.
#pragma once

#include "tune_options.h"

namespace aegis::tune {


// Returns the process exit status.
int run_sgemm_tuner(const TuneOptions& options);

}  // namespace aegis::tune
