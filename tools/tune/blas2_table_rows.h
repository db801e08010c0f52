// Rows of a level-2 tuning table (src/dispatch/tuning/blas2_<gpu>.inc) as the tuner reads
// them back: the routines it does not tune are copied, and with a margin the rows of those it
// does tune are the incumbents a new candidate must beat.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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

// A re-tune merged into the table it kept (aegis-tune blas2 --keep). `table` is that file's
// text; `tuned` holds, per routine key tuned, its new rows (whole lines, in band order). Each
// key's new rows stand where its first old row stood and its other old rows go, so a re-tune
// moves no line it did not change; keys the table lacks follow at the end. Every other line is
// kept, and the "// Written by: " line gains "; then: " and `command` (a table without one
// gets one after its leading comments).
std::string merge_blas2_table(const std::string& table,
                              const std::vector<std::pair<std::string, std::string>>& tuned,
                              const std::string& command);

}  // namespace aegis::tune
