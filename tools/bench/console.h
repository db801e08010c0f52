// Terminal output: fixed-width result tables on stdout and a progress line on stderr.
#ifndef AEGIS_BENCH_CONSOLE_H
#define AEGIS_BENCH_CONSOLE_H

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace aegis::bench {

// Name that prefixes the harness's messages ("aegis-bench" unless a tool sets its own).
const char* tool_name();
void set_tool_name(const char* name);

// printf into a std::string.
std::string format_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

struct TableColumn {
  std::string title;
  int width;        // cells longer than this widen their row rather than being cut
  bool left_align;  // text columns; numbers are right-aligned
};

// Rows are printed as they are produced (so a long sweep shows its results at once and a
// crash keeps what was measured), which is why widths are fixed up front.
class TablePrinter {
 public:
  explicit TablePrinter(std::vector<TableColumn> columns) : columns_(std::move(columns)) {}
  void print_header() const;
  void print_row(const std::vector<std::string>& cells) const;

 private:
  std::vector<TableColumn> columns_;
};

// On a terminal the line is rewritten in place with \r; into a file or pipe each update
// is its own line, so logs stay readable.
class ProgressLine {
 public:
  ProgressLine();
  void show(const std::string& text);
  void clear();  // call before printing anything else on the terminal

 private:
  bool terminal_;
  bool showing_ = false;
};

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_CONSOLE_H
