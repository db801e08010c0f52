#include "operand_patterns.h"

#include "device_kernels.h"

namespace aegis::inject {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t count) {
  int64_t blocks = (count + kThreads - 1) / kThreads;
  return unsigned(blocks > 65536 ? 65536 : blocks);  // grid-stride loops cover the rest
}

__device__ int64_t storage_index(const MatrixView& m, int64_t row, int64_t col) {
  return m.transposed ? col + row * m.ld : row + col * m.ld;
}

// u uniform in [-1, 1) becomes a value of the pattern (kScaled and kCancel start from
// uniform values and change them afterwards).
__device__ float transform(Pattern pattern, float u) {
  switch (pattern) {
    case Pattern::kNormal: {
      // Keep the probability inside (0, 1): the inverse CDF is infinite at the ends.
      float p = fminf(fmaxf(0.5f * (u + 1.0f), 0x1p-25f), 1.0f - 0x1p-25f);
      return normcdfinvf(p);
    }
    case Pattern::kPositive:
      return 0.5f * (u + 1.0f);
    case Pattern::kWide:
      return copysignf(exp10f(12.0f * fabsf(u) - 6.0f), u);
    case Pattern::kIntegers:
      return rintf(8.0f * u);
    case Pattern::kTiny:
      return u * 0x1p-66f;
    default:
      return u;
  }
}

__global__ void transform_kernel(float* data, int64_t count, Pattern pattern) {
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    data[i] = transform(pattern, data[i]);
}

// Scales line l of op(M) (a row when `rows`, else a column) by 10^(6 exponent[l]).
__global__ void scale_lines_kernel(MatrixView m, bool rows, const float* exponent) {
  int64_t count = m.rows * m.cols;
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < count; t += stride) {
    int64_t row = t % m.rows, col = t / m.rows;
    m.data[storage_index(m, row, col)] *= exp10f(6.0f * exponent[rows ? row : col]);
  }
}

// The second half of op(M)'s columns (`along_cols`) or rows becomes sign times the first
// half; an odd last line keeps its own values.
__global__ void mirror_half_kernel(MatrixView m, bool along_cols, float sign) {
  int64_t half = along_cols ? m.cols / 2 : m.rows / 2;
  int64_t count = along_cols ? m.rows * half : half * m.cols;
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < count; t += stride) {
    int64_t row, col, src_row, src_col;
    if (along_cols) {
      row = src_row = t % m.rows;
      src_col = t / m.rows;
      col = src_col + half;
    } else {
      src_row = t % half;
      row = src_row + half;
      col = src_col = t / half;
    }
    m.data[storage_index(m, row, col)] = sign * m.data[storage_index(m, src_row, src_col)];
  }
}

int64_t stored_count(const MatrixView& m) {
  return m.ld * (m.transposed ? m.rows : m.cols);
}

}  // namespace

const std::vector<PatternInfo>& all_patterns() {
  static const std::vector<PatternInfo> patterns = {
      {Pattern::kUniform, "uniform", "uniform in [-1, 1)"},
      {Pattern::kNormal, "normal", "standard normal"},
      {Pattern::kPositive, "positive", "uniform in [0, 1)"},
      {Pattern::kWide, "wide", "+-10^e, e uniform in [-6, 6]"},
      {Pattern::kScaled, "scaled", "rows of op(A), columns of op(B) scaled by 10^[-6, 6]"},
      {Pattern::kCancel, "cancel", "A = [X X], B = [Y; -Y]: C = 0 up to rounding"},
      {Pattern::kIntegers, "integers", "integers in [-8, 8]"},
      {Pattern::kTiny, "tiny", "uniform times 2^-66: subnormal products"},
  };
  return patterns;
}

const PatternInfo& pattern_info(Pattern pattern) {
  for (const PatternInfo& info : all_patterns())
    if (info.pattern == pattern) return info;
  return all_patterns().front();
}

cudaError_t fill_pattern(Pattern pattern, const MatrixView& a, const MatrixView& b,
                         float* scratch, uint64_t seed, uint64_t stream_id, cudaStream_t stream) {
  const MatrixView* operands[2] = {&a, &b};
  for (int i = 0; i < 2; ++i) {
    const MatrixView& m = *operands[i];
    cudaError_t err = bench::fill_uniform(m.data, stored_count(m), seed, stream_id + i, stream);
    if (err != cudaSuccess) return err;
    if (pattern == Pattern::kScaled) {
      // op(A) by rows, op(B) by columns: each element of C gets its own scale.
      const bool rows = i == 0;
      err = bench::fill_uniform(scratch, rows ? m.rows : m.cols, seed, stream_id + 2 + i, stream);
      if (err != cudaSuccess) return err;
      scale_lines_kernel<<<blocks_for(m.rows * m.cols), kThreads, 0, stream>>>(m, rows, scratch);
    } else if (pattern == Pattern::kCancel) {
      // op(A)'s columns repeat, op(B)'s rows repeat negated: the two halves of every dot
      // product cancel.
      const bool along_cols = i == 0;
      mirror_half_kernel<<<blocks_for(m.rows * m.cols), kThreads, 0, stream>>>(
          m, along_cols, along_cols ? 1.0f : -1.0f);
    } else if (pattern != Pattern::kUniform) {
      transform_kernel<<<blocks_for(stored_count(m)), kThreads, 0, stream>>>(
          m.data, stored_count(m), pattern);
    }
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace aegis::inject
