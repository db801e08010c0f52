#include "console.h"

#include <unistd.h>

#include <cstdarg>

namespace aegis::bench {

namespace {
const char* g_tool_name = "aegis-bench";
}  // namespace

const char* tool_name() { return g_tool_name; }
void set_tool_name(const char* name) { g_tool_name = name; }


std::string format_text(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list args_copy;
  va_copy(args_copy, args);
  int length = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string text(length > 0 ? size_t(length) : 0, '\0');
  if (length > 0) std::vsnprintf(text.data(), text.size() + 1, format, args_copy);
  va_end(args_copy);
  return text;
}

void TablePrinter::print_header() const {
  std::vector<std::string> titles, rules;
  for (const TableColumn& column : columns_) {
    titles.push_back(column.title);
    rules.push_back(std::string(column.width, '-'));
  }
  print_row(titles);
  print_row(rules);
}

void TablePrinter::print_row(const std::vector<std::string>& cells) const {
  std::string line;
  for (size_t i = 0; i < columns_.size() && i < cells.size(); ++i) {
    if (i > 0) line += "  ";
    const TableColumn& column = columns_[i];
    std::string padding(cells[i].size() < size_t(column.width) ? column.width - cells[i].size() : 0,
                        ' ');
    line += column.left_align ? cells[i] + padding : padding + cells[i];
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

ProgressLine::ProgressLine() : terminal_(isatty(fileno(stderr)) != 0) {}

void ProgressLine::show(const std::string& text) {
  if (terminal_) {
    std::fprintf(stderr, "\r\033[K%s", text.c_str());  // \033[K erases the previous text
    showing_ = true;
  } else {
    std::fprintf(stderr, "%s\n", text.c_str());
  }
  std::fflush(stderr);
}

void ProgressLine::clear() {
  if (!showing_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  showing_ = false;
}

}  // namespace aegis::bench
