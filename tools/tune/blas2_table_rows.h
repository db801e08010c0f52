// Rows of a level-2 tuning table (src/dispatch/tuning/blas2_<gpu>.inc) as the tuner reads
// them back: the routines it does not tune are copied, and with a margin the rows of those it
// does tune are the incumbents a new candidate must beat.
#pragma once

#include <cstdint>
#include <string>

namespace aegis::tune {

struct Blas2TableRow {
  std::string key;      // routine key, e.g. "sgemv_t"
  int64_t max_size = 0;  // the band's max(m, n); 0 = any
  std::string config;   // instance name, e.g. "sgemv_t_nb32_q4"
  int y = 0;            // split (0: from the size)
  bool deterministic = true;  // serves the deterministic mode
  bool atomics = true;        // serves the atomics mode
  bool cluster = false;       // the GEMV split sums meet in a cluster
};

// Parses one table line, '{"key", max, "config", y[, Blas2RowModes::M[, Blas2Sums::S]]},'
// (also Blas2Sums without a modes field). False for comments, blank lines and anything else.
bool parse_blas2_table_row(const std::string& line, Blas2TableRow* row);

}  // namespace aegis::tune
