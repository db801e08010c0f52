// A small streaming JSON writer (escaped strings, non-finite numbers as null) so that reports
// need no external library. Layout: the document's fields and the elements of its arrays one
// per line, indented; anything nested deeper on its element's line (one result or tuning row a
// line). Indenting every level made the committed reports a third larger, and the copy of the
// tree sent to the GPU machine is limited in size (scripts/json-relayout lays out other JSON
// the same way).
#ifndef AEGIS_BENCH_JSON_WRITER_H
#define AEGIS_BENCH_JSON_WRITER_H

#include <cstdint>
#include <string>
#include <vector>

namespace aegis::bench {

// The current time as ISO 8601 UTC ("2026-11-29T20:12:00Z"), for reports' "date" fields.
std::string utc_timestamp();

class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(const std::string& name);

  JsonWriter& value(const std::string& text);
  JsonWriter& value(const char* text) { return value(std::string(text)); }
  JsonWriter& value(double number);  // NaN and infinities become null
  JsonWriter& value(int64_t number);
  JsonWriter& value(int number) { return value(int64_t(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& null();

  // Nesting levels whose elements start a line of their own.
  static constexpr size_t kLineLevels = 2;

  template <typename T>
  JsonWriter& field(const std::string& name, const T& v) {
    return key(name).value(v);
  }

  const std::string& text() const { return out_; }
  // Writes the document (plus a final newline); false if the file cannot be written.
  bool save(const std::string& path) const;

 private:
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  void begin_value();  // comma and line break (or space) before an array element or a key
  void write_string(const std::string& text);

  std::string out_;
  std::vector<bool> scope_is_empty_;  // one entry per open object or array
  bool after_key_ = false;
};

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_JSON_WRITER_H
