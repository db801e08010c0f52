// Command-line pieces shared by the subcommands: what was invoked, and a reader for
// "--name value" / "--name=value" options.
#ifndef AEGIS_BENCH_COMMAND_LINE_H
#define AEGIS_BENCH_COMMAND_LINE_H

#include <cstdint>
#include <string>
#include <vector>

namespace aegis::bench {

struct Invocation {
  std::string subcommand;         // "gemm"
  std::vector<std::string> args;  // everything after the subcommand
  std::string command_line;       // the whole argv, for reports
};

// Joins argv with spaces, quoting arguments that contain spaces or quotes.
std::string join_command_line(int argc, char** argv);

// Splits "a,b,c" at `separator`; empty pieces are kept so that callers can reject them.
std::vector<std::string> split(const std::string& text, char separator);

// "NAME" or "NAME:N" (a configuration and its split): the name into *name, N into *number
// when given (left alone otherwise). False when N is not a decimal from 0 to max.
bool split_name_and_number(const std::string& text, int64_t max, std::string* name,
                           int64_t* number);

// Walks one subcommand's options in order. Errors print one line naming the option and
// exit with status 1, so a subcommand's parser reads as a plain if/else chain.
class OptionReader {
 public:
  explicit OptionReader(const Invocation& invocation) : invocation_(invocation) {}

  bool next();  // advance to the next option; false when none is left
  bool is(const char* name) const { return name_ == name; }
  std::string text();                // the option's value
  int64_t integer(int64_t minimum);  // the value as an integer >= minimum
  double number(double minimum);     // the value as a finite number >= minimum
  // --timing queued | launch: true for queued (TimingPlan::queued).
  bool queued_timing();

  [[noreturn]] void reject(const std::string& why) const;
  [[noreturn]] void reject_unknown() const { reject("unknown option '" + name_ + "'"); }

 private:
  const Invocation& invocation_;
  size_t position_ = 0;
  std::string name_;
  std::string inline_value_;  // the part after '=' in --name=value
  bool has_inline_value_ = false;
};

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_COMMAND_LINE_H
