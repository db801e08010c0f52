// aegis-tune blas2: measures the level-2 configurations and writes the tuning table.
#pragma once

#include <string>

#include "tune_options.h"

namespace aegis::tune {

struct Blas2TuneOptions : TuneOptions {
  std::string precisions = "sdcz";  // which of s, d, c, z to tune
  // Routine families to tune ("gemv_n,gemv_t,symv,hemv"; empty: all). With keep_path, the
  // rows of that table (.inc) for the routine keys not tuned are written first, unchanged,
  // so the table stays complete.
  std::string routines;
  std::string keep_path;
};

int run_blas2_tuner(const Blas2TuneOptions& options);

}  // namespace aegis::tune
