// aegis-tune blas2: measures the level-2 configurations and writes the tuning table.
#pragma once

#include <string>

#include "tune_options.h"

namespace aegis::tune {

struct Blas2TuneOptions : TuneOptions {
  std::string precisions = "sdcz";  // which of s, d, c, z to tune
};

int run_blas2_tuner(const Blas2TuneOptions& options);

}  // namespace aegis::tune
