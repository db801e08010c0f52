#include "json_writer.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace aegis::bench {

std::string utc_timestamp() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}


void JsonWriter::begin_value() {
  if (after_key_) {  // the value sits on its key's line
    after_key_ = false;
    return;
  }
  if (scope_is_empty_.empty()) return;  // top-level value
  const bool first = scope_is_empty_.back();
  if (!first) out_ += ',';
  scope_is_empty_.back() = false;
  if (scope_is_empty_.size() <= kLineLevels) {
    out_ += '\n';
    out_.append(2 * scope_is_empty_.size(), ' ');
  } else if (!first) {
    out_ += ' ';
  }
}

JsonWriter& JsonWriter::open(char bracket) {
  begin_value();
  out_ += bracket;
  scope_is_empty_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  bool empty = scope_is_empty_.back();
  scope_is_empty_.pop_back();
  if (!empty && scope_is_empty_.size() < kLineLevels) {
    out_ += '\n';
    out_.append(2 * scope_is_empty_.size(), ' ');
  }
  out_ += bracket;
  return *this;
}

JsonWriter& JsonWriter::key(const std::string& name) {
  begin_value();
  write_string(name);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

void JsonWriter::write_string(const std::string& text) {
  out_ += '"';
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\r':
        out_ += "\\r";
        break;
      case '\t':
        out_ += "\\t";
        break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", unsigned(c));
          out_ += escaped;
        } else {
          out_ += char(c);  // UTF-8 passes through unchanged
        }
    }
  }
  out_ += '"';
}

JsonWriter& JsonWriter::value(const std::string& text) {
  begin_value();
  write_string(text);
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();
  begin_value();
  char formatted[32];
  std::snprintf(formatted, sizeof formatted, "%.10g", number);
  out_ += formatted;
  return *this;
}

JsonWriter& JsonWriter::value(int64_t number) {
  begin_value();
  out_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  begin_value();
  out_ += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  begin_value();
  out_ += "null";
  return *this;
}

bool JsonWriter::save(const std::string& path) const {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file) return false;
  bool written = std::fwrite(out_.data(), 1, out_.size(), file) == out_.size() &&
                 std::fputc('\n', file) != EOF;
  return std::fclose(file) == 0 && written;
}

}  // namespace aegis::bench
