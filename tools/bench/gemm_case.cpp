#include "gemm_case.h"

#include <cctype>
#include <climits>
#include <cstdlib>

#include "console.h"

namespace aegis::bench {

std::string GemmShape::text() const {
  return format_text("%lldx%lldx%lld", (long long)m, (long long)n, (long long)k);
}

std::string GemmOp::text() const {
  return std::string(a == AEGIS_OP_N ? "N" : "T") + (b == AEGIS_OP_N ? "N" : "T");
}

namespace {

GemmShape parse_shape(OptionReader& reader, const std::string& text) {
  std::vector<std::string> sizes = split(text, 'x');
  int64_t values[3] = {0, 0, 0};
  bool valid = sizes.size() == 3;
  for (size_t i = 0; valid && i < 3; ++i) {
    char* end = nullptr;
    long long value = std::strtoll(sizes[i].c_str(), &end, 10);
    // cublasSgemm_v2 takes int sizes.
    valid = !sizes[i].empty() && *end == '\0' && value >= 1 && value <= INT_MAX;
    values[i] = value;
  }
  if (!valid)
    reader.reject("bad shape '" + text + "', expected MxNxK with sizes 1.." +
                  std::to_string(INT_MAX));
  return {values[0], values[1], values[2]};
}

}  // namespace

std::vector<GemmShape> parse_gemm_shapes(OptionReader& reader, const std::string& text) {
  std::vector<GemmShape> shapes;
  for (const std::string& piece : split(text, ',')) shapes.push_back(parse_shape(reader, piece));
  return shapes;
}

std::vector<GemmOp> parse_gemm_ops(OptionReader& reader, const std::string& text) {
  std::vector<GemmOp> ops;
  for (std::string piece : split(text, ',')) {
    for (char& c : piece) c = char(std::toupper(static_cast<unsigned char>(c)));
    if (piece.size() != 2 || piece.find_first_not_of("NT") != std::string::npos)
      reader.reject("bad transpose pair '" + piece + "', expected NN, NT, TN or TT");
    ops.push_back(
        {piece[0] == 'N' ? AEGIS_OP_N : AEGIS_OP_T, piece[1] == 'N' ? AEGIS_OP_N : AEGIS_OP_T});
  }
  return ops;
}

}  // namespace aegis::bench
