#include "blas2_table_rows.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace aegis::tune {

namespace {

// The text between the quotes starting at s[*pos] (which must be '"'); *pos moves past them.
bool quoted(const std::string& s, size_t* pos, std::string* out) {
  if (*pos >= s.size() || s[*pos] != '"') return false;
  const size_t end = s.find('"', *pos + 1);
  if (end == std::string::npos) return false;
  *out = s.substr(*pos + 1, end - *pos - 1);
  *pos = end + 1;
  return true;
}

// Skips ", " at *pos.
bool comma(const std::string& s, size_t* pos) {
  if (s.compare(*pos, 2, ", ") != 0) return false;
  *pos += 2;
  return true;
}

bool integer(const std::string& s, size_t* pos, long long* out) {
  const char* begin = s.c_str() + *pos;
  char* end = nullptr;
  *out = std::strtoll(begin, &end, 10);
  if (end == begin) return false;
  *pos += size_t(end - begin);
  return true;
}

}  // namespace

bool parse_blas2_table_row(const std::string& line, Blas2TableRow* row) {
  Blas2TableRow r;
  size_t pos = 0;
  long long max_size = 0, y = 0;
  if (line.empty() || line[0] != '{') return false;
  pos = 1;
  if (!quoted(line, &pos, &r.key) || !comma(line, &pos) || !integer(line, &pos, &max_size) ||
      !comma(line, &pos) || !quoted(line, &pos, &r.config) || !comma(line, &pos) ||
      !integer(line, &pos, &y))
    return false;
  r.max_size = max_size;
  r.y = int(y);
  static const char kModes[] = "Blas2RowModes::", kSums[] = "Blas2Sums::";
  while (comma(line, &pos)) {
    if (line.compare(pos, std::strlen(kModes), kModes) == 0) {
      pos += std::strlen(kModes);
      if (line.compare(pos, 4, "Both") == 0) {
        pos += 4;
      } else if (line.compare(pos, 17, "DeterministicOnly") == 0) {
        r.atomics = false;
        pos += 17;
      } else if (line.compare(pos, 11, "AtomicsOnly") == 0) {
        r.deterministic = false;
        pos += 11;
      } else {
        return false;
      }
    } else if (line.compare(pos, std::strlen(kSums), kSums) == 0) {
      pos += std::strlen(kSums);
      if (line.compare(pos, 7, "Cluster") == 0) {
        r.cluster = true;
        pos += 7;
      } else if (line.compare(pos, 9, "Workspace") == 0) {
        pos += 9;
      } else {
        return false;
      }
    } else {
      return false;
    }
  }
  if (line.compare(pos, 2, "},") != 0) return false;
  *row = r;
  return true;
}

std::string merge_blas2_table(const std::string& table,
                              const std::vector<std::pair<std::string, std::string>>& tuned,
                              const std::string& command) {
  static const char kWrittenBy[] = "// Written by: ";
  std::vector<bool> placed(tuned.size(), false);
  std::string out;
  bool written_by = false, in_header = true;
  std::istringstream in(table);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const bool comment = line.compare(0, 2, "//") == 0;
    if (in_header && !comment && !written_by) {  // no history line in the leading comments
      out += kWrittenBy + command + "\n";
      written_by = true;
    }
    in_header = in_header && comment;
    if (line.compare(0, std::strlen(kWrittenBy), kWrittenBy) == 0 && !written_by) {
      out += line + "; then: " + command + "\n";
      written_by = true;
      continue;
    }
    Blas2TableRow row;
    if (parse_blas2_table_row(line, &row)) {
      const auto it = std::find_if(tuned.begin(), tuned.end(),
                                   [&](const auto& t) { return t.first == row.key; });
      if (it != tuned.end()) {
        const size_t k = size_t(it - tuned.begin());
        if (!placed[k]) out += it->second;
        placed[k] = true;
        continue;
      }
    }
    out += line + "\n";
  }
  if (!written_by) out += kWrittenBy + command + "\n";
  for (size_t k = 0; k < tuned.size(); ++k)
    if (!placed[k]) out += tuned[k].second;
  return out;
}

}  // namespace aegis::tune
