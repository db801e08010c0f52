// CSV output: a header line, then one line per result; cells are quoted where needed.
#ifndef AEGIS_BENCH_CSV_WRITER_H
#define AEGIS_BENCH_CSV_WRITER_H

#include <string>
#include <vector>

namespace aegis::bench {

class CsvWriter {
 public:
  explicit CsvWriter(const std::vector<std::string>& header) { add_row(header); }
  void add_row(const std::vector<std::string>& cells);
  // A number as a cell: empty for NaN and infinities (missing or failed measurements).
  static std::string number(double value);
  bool save(const std::string& path) const;

 private:
  std::string out_;
};

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_CSV_WRITER_H
