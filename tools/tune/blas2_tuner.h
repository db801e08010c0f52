// aegis-tune blas2: measures the level-2 configurations and writes the tuning table.
#pragma once

#include <string>

#include "tune_options.h"

namespace aegis::tune {

struct Blas2TuneOptions : TuneOptions {
  std::string precisions = "sdcz";  // which of s, d, c, z to tune
  // Routine families to tune ("gemv_n,gemv_t,symv,hemv"; empty: all). With keep_path, that
  // table (.inc) is written out whole, the tuned routine keys' rows replaced where they stood
  // (merge_blas2_table), so the table stays complete and a diff shows only what moved.
  std::string routines;
  std::string keep_path;
  // With keep_path: a tuned routine's row in that table (the incumbent, per band and mode)
  // stays unless a candidate's geometric-mean time over the band is lower by more than this
  // many percent. 0: the fastest candidate wins, whatever the table held.
  double margin_percent = 0;
};

int run_blas2_tuner(const Blas2TuneOptions& options);

}  // namespace aegis::tune
