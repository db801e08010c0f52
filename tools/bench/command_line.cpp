#include "command_line.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "console.h"

namespace aegis::bench {

std::string join_command_line(int argc, char** argv) {
  std::string joined;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (i > 0) joined += ' ';
    if (arg.empty() || arg.find_first_of(" \t\"'") != std::string::npos) {
      joined += '\'';
      for (char c : arg) joined += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      joined += '\'';
    } else {
      joined += arg;
    }
  }
  return joined;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> pieces;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    pieces.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return pieces;
    start = end + 1;
  }
}

bool split_name_and_number(const std::string& text, int64_t max, std::string* name,
                           int64_t* number) {
  const size_t colon = text.find(':');
  *name = text.substr(0, colon);
  if (colon == std::string::npos) return true;
  const std::string digits = text.substr(colon + 1);
  if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  const int64_t value = std::stoll(digits);
  if (value > max) return false;
  *number = value;
  return true;
}

bool OptionReader::next() {
  if (position_ >= invocation_.args.size()) return false;
  const std::string& arg = invocation_.args[position_++];
  size_t equals = arg.find('=');
  has_inline_value_ = arg.rfind("--", 0) == 0 && equals != std::string::npos;
  name_ = has_inline_value_ ? arg.substr(0, equals) : arg;
  inline_value_ = has_inline_value_ ? arg.substr(equals + 1) : std::string();
  return true;
}

std::string OptionReader::text() {
  if (has_inline_value_) return inline_value_;
  if (position_ >= invocation_.args.size()) reject("option '" + name_ + "' needs a value");
  return invocation_.args[position_++];
}

int64_t OptionReader::integer(int64_t minimum) {
  std::string value = text();
  char* end = nullptr;
  errno = 0;
  long long parsed = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || parsed < minimum)
    reject("option '" + name_ + "' needs an integer >= " + std::to_string(minimum) + ", got '" +
           value + "'");
  return parsed;
}

double OptionReader::number(double minimum) {
  std::string value = text();
  char* end = nullptr;
  double parsed = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(parsed) || parsed < minimum) {
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", minimum);
    reject("option '" + name_ + "' needs a number >= " + bound + ", got '" + value + "'");
  }
  return parsed;
}

bool OptionReader::queued_timing() {
  const std::string value = text();
  if (value != "queued" && value != "launch")
    reject("option '" + name_ + "' is queued or launch, not '" + value + "'");
  return value == "queued";
}

void OptionReader::reject(const std::string& why) const {
  // "aegis-bench gemm: ..." for a subcommand, "aegis-inject: ..." for a tool without one.
  std::string command = tool_name();
  if (!invocation_.subcommand.empty()) command += " " + invocation_.subcommand;
  std::fprintf(stderr, "%s: %s (see '%s --help')\n", command.c_str(), why.c_str(),
               command.c_str());
  std::exit(1);
}

}  // namespace aegis::bench
