// Operands of the clean runs: data chosen to make a checksum threshold misfire. Every
// pattern starts from the harness's uniform fill, so the same (seed, stream) gives the
// same operands on any launch shape.
#ifndef AEGIS_INJECT_OPERAND_PATTERNS_H
#define AEGIS_INJECT_OPERAND_PATTERNS_H

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aegis::inject {

enum class Pattern {
  kUniform,   // [-1, 1)
  kNormal,    // standard normal
  kPositive,  // [0, 1): no cancellation, the largest checksums
  kWide,      // +-10^e, e uniform in [-6, 6]: magnitudes over 12 decades in every dot product
  kScaled,    // rows of op(A) and columns of op(B) scaled by 10^e, e in [-6, 6]: tiles whose
              // lines differ by up to 24 decades
  kCancel,    // A = [X X], B = [Y; -Y]: C is rounding noise around 0 while |A||B| is not
  kIntegers,  // integers in [-8, 8]: exact products and sums, zero rounding error
  kTiny,      // uniform times 2^-66: products in the subnormal range
};

struct PatternInfo {
  Pattern pattern;
  const char* name;
  const char* description;
};

const std::vector<PatternInfo>& all_patterns();
const PatternInfo& pattern_info(Pattern pattern);

// op(M) is rows x cols; M is column-major with leading dimension ld, stored rows x cols,
// or cols x rows when `transposed`.
struct MatrixView {
  float* data;
  bool transposed;
  int64_t rows, cols, ld;
};

// Fills op(A) (m x k) and op(B) (k x n) with the pattern. `scratch` holds max(m, n) floats
// (the scale exponents of kScaled). stream_id as for fill_uniform; B uses stream_id + 1.
cudaError_t fill_pattern(Pattern pattern, const MatrixView& a, const MatrixView& b,
                         float* scratch, uint64_t seed, uint64_t stream_id, cudaStream_t stream);

}  // namespace aegis::inject

#endif  // AEGIS_INJECT_OPERAND_PATTERNS_H
