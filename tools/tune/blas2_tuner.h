// aegis-tune blas2: measures the level-2 configurations and writes the tuning table.
#pragma once

#include <cstdint>
#include <string>

namespace aegis::tune {

struct Blas2TuneOptions {
  std::string out_path;   // table rows (.inc) to write; empty: print only
  std::string json_path;  // every measurement
  std::string precisions = "sdcz";
  int reps = 10;
  uint64_t seed = 1;
  std::string command;
};

int run_blas2_tuner(const Blas2TuneOptions& options);

}  // namespace aegis::tune
