#include "csv_writer.h"

#include <cmath>
#include <cstdio>

namespace aegis::bench {

void CsvWriter::add_row(const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out_ += ',';
    const std::string& cell = cells[i];
    if (cell.find_first_of(",\"\n\r") == std::string::npos) {
      out_ += cell;
      continue;
    }
    out_ += '"';
    for (char c : cell) out_ += (c == '"') ? std::string("\"\"") : std::string(1, c);
    out_ += '"';
  }
  out_ += '\n';
}

std::string CsvWriter::number(double value) {
  if (!std::isfinite(value)) return "";
  char formatted[32];
  std::snprintf(formatted, sizeof formatted, "%.10g", value);
  return formatted;
}

bool CsvWriter::save(const std::string& path) const {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file) return false;
  bool written = std::fwrite(out_.data(), 1, out_.size(), file) == out_.size();
  return std::fclose(file) == 0 && written;
}

}  // namespace aegis::bench
