// SGEMM problems as the tools name them on the command line: sizes MxNxK and transpose
// pairs NN/NT/TN/TT, with parsers that reject bad text through an OptionReader.
#ifndef AEGIS_BENCH_GEMM_CASE_H
#define AEGIS_BENCH_GEMM_CASE_H

#include <cstdint>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "command_line.h"

namespace aegis::bench {

struct GemmShape {
  int64_t m, n, k;
  bool is_square() const { return m == n && n == k; }
  std::string text() const;  // "MxNxK"
};

struct GemmOp {
  aegisOperation_t a, b;
  std::string text() const;  // "NN", "TN", ...
};

struct GemmCase {
  GemmShape shape;
  GemmOp op;
  std::string text() const { return shape.text() + " " + op.text(); }
};

// "MxNxK[,MxNxK...]"; every size in 1..INT_MAX (cuBLAS takes int sizes).
std::vector<GemmShape> parse_gemm_shapes(OptionReader& reader, const std::string& text);
// "NN,TN,..." in either case.
std::vector<GemmOp> parse_gemm_ops(OptionReader& reader, const std::string& text);

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_GEMM_CASE_H
