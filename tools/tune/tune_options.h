// Options every aegis-tune routine takes.
#pragma once

#include <cstdint>
#include <string>

namespace aegis::tune {

struct TuneOptions {
  std::string out_path;   // tuning table (.inc rows) to write; empty: print only
  std::string json_path;  // every measurement; empty: none
  int reps = 10;          // timed runs per candidate and size (median taken)
  uint64_t seed = 1;
  std::string command;    // the command line, recorded in the outputs
  bool ft = false;        // sgemm only: tune the fault-tolerant (FT CORRECT) rows
};

}  // namespace aegis::tune
