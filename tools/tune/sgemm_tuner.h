// aegis-tune sgemm: measures the SGEMM candidates and writes the tuning table.
#pragma once

#include <cstdint>
#include <string>

namespace aegis::tune {

struct TuneOptions {
  std::string out_path;   // tuning table (.inc rows) to write; empty: print only
  std::string json_path;  // every measurement; empty: none
  int reps = 10;          // timed runs per candidate and shape (median taken)
  uint64_t seed = 1;
  std::string command;    // the command line, recorded in the outputs
};

// Returns the process exit status.
int run_sgemm_tuner(const TuneOptions& options);

}  // namespace aegis::tune
