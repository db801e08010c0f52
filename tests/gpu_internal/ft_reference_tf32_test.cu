// The 3xTF32 reference GEMMs of the fused FT-SGEMM (gemm/simt/ft_reference_tf32.h), driven
// directly: every piece's partial sums against an FP64 reference within the error the rounding
// bound grants them ((520 + k/32 + 1) u S per piece), and the row-block sums of op(X) formed on
// the way (an FP32 sum of 128 terms); on fresh random data, NaN-poisoned outputs, both layouts
// of op(X), aligned and unaligned X, sizes around the 128 x 32 / 128 x 64 blocks and the
// 32-deep slices, and an empty last piece. A single TF32 product is off by up to 2^-11 |x||s|:
// the bound is ~10 times tighter, and random data stays far below it, so a lost low part fails.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <cuda_runtime_api.h>

#include "gemm/simt/ft_reference_tf32.h"
#include "sm90_test.h"

namespace {

using aegis::gemm::simt::launch_ft_reference_tf32;
using aegis::gemm::simt::Scalar;

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

class FtReferenceTf32 : public aegis_internal_test::Sm90Test {};

struct Case {
  bool trans_x;
  bool x_vec;  // false: X starts one float past an aligned address
  int64_t rows, width, k, kpp;
};

void run_case(const Case& c, std::mt19937_64& gen) {
  SCOPED_TRACE(::testing::Message() << "trans_x " << c.trans_x << " x_vec " << c.x_vec << " rows "
                                    << c.rows << " width " << c.width << " k " << c.k << " kpp "
                                    << c.kpp);
  // X: op(X) is rows x k; stored rows x k (column-major) or k x rows (trans), with an ld that is
  // a multiple of 4 past the contiguous extent (x_vec) or odd.
  const int64_t extent = c.trans_x ? c.k : c.rows;
  const int64_t ldx = c.x_vec ? (extent + 3) / 4 * 4 + 4 : extent + 3 - (extent % 2);
  const int64_t x_cols = c.trans_x ? c.rows : c.k;
  const int64_t sums_ld = (c.k + 3) / 4 * 4;
  const int pieces = static_cast<int>((c.k + c.kpp - 1) / c.kpp) + 1;  // the last one empty
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(ldx * x_cols) + 4);
  std::vector<float> sums(static_cast<size_t>(sums_ld * c.width), 0.0f);
  for (float& v : x) v = normal(gen);
  for (int64_t j = 0; j < c.width; ++j)
    for (int64_t kk = 0; kk < c.k; ++kk) sums[j * sums_ld + kk] = normal(gen) * 16.0f;
  const size_t offset = c.x_vec ? 0 : 1;
  auto op_x = [&](int64_t i, int64_t kk) {
    return x[offset + (c.trans_x ? kk + i * ldx : i + kk * ldx)];
  };

  float *d_x = nullptr, *d_sums = nullptr, *d_out = nullptr, *d_x_sums = nullptr;
  const size_t out_count = static_cast<size_t>(pieces * c.rows * c.width);
  const int64_t row_blocks = (c.rows + 127) / 128;
  const size_t x_sums_count = static_cast<size_t>(row_blocks * sums_ld);
  CUDA_OK(cudaMalloc(&d_x_sums, x_sums_count * sizeof(float)));
  CUDA_OK(cudaMemset(d_x_sums, 0xff, x_sums_count * sizeof(float)));  // NaN
  CUDA_OK(cudaMalloc(&d_x, x.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_sums, sums.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_out, out_count * sizeof(float)));
  CUDA_OK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_sums, sums.data(), sums.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_out, 0xff, out_count * sizeof(float)));  // NaN
  CUDA_OK(launch_ft_reference_tf32(c.trans_x, d_x + offset, ldx, c.x_vec, c.rows, d_sums, sums_ld,
                                   c.width, c.k, Scalar<float>{1.0f, nullptr}, pieces, c.kpp,
                                   d_out, d_x_sums, /*dependent=*/true, nullptr));
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> out(out_count), x_sums(x_sums_count);
  CUDA_OK(cudaMemcpy(out.data(), d_out, out_count * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(x_sums.data(), d_x_sums, x_sums_count * sizeof(float),
                     cudaMemcpyDeviceToHost));
  cudaFree(d_x_sums);
  cudaFree(d_x);
  cudaFree(d_sums);
  cudaFree(d_out);

  constexpr double u = 5.9604644775390625e-08;
  int bad = 0;
  for (int s = 0; s < pieces; ++s) {
    const int64_t k0 = s * c.kpp, k1 = std::min(c.k, k0 + c.kpp);
    const double allowed = 520.0 + static_cast<double>(std::max<int64_t>(0, k1 - k0)) / 32.0 + 1.0;
    for (int64_t j = 0; j < c.width; ++j)
      for (int64_t i = 0; i < c.rows; ++i) {
        double exact = 0.0, mag = 0.0;
        for (int64_t kk = k0; kk < k1; ++kk) {
          const double p = static_cast<double>(op_x(i, kk)) * sums[j * sums_ld + kk];
          exact += p;
          mag += std::fabs(p);
        }
        const float got = out[static_cast<size_t>(s * c.rows * c.width + i + j * c.rows)];
        if (!(std::fabs(got - exact) <= allowed * u * mag) && ++bad <= 5)
          ADD_FAILURE() << "piece " << s << " (" << i << ", " << j << "): " << got << " against "
                        << exact << ", |x||s| " << mag;
      }
  }
  EXPECT_EQ(bad, 0);

  // Row-block sums: an FP32 sum of at most 128 terms (gamma_127 of their magnitudes), then
  // zeros up to sums_ld.
  int bad_sums = 0;
  for (int64_t b = 0; b < row_blocks; ++b)
    for (int64_t kk = 0; kk < sums_ld; ++kk) {
      double exact = 0.0, mag = 0.0;
      for (int64_t i = b * 128; i < std::min(c.rows, (b + 1) * 128) && kk < c.k; ++i) {
        exact += op_x(i, kk);
        mag += std::fabs(op_x(i, kk));
      }
      const float got = x_sums[static_cast<size_t>(b * sums_ld + kk)];
      if (!(std::fabs(got - exact) <= 128.0 * u * mag) && ++bad_sums <= 5)
        ADD_FAILURE() << "row block " << b << " k " << kk << ": " << got << " against " << exact;
    }
  EXPECT_EQ(bad_sums, 0);
}

TEST_F(FtReferenceTf32, EveryPieceWithinItsBound) {
  std::mt19937_64 gen(std::random_device{}());
  for (bool trans_x : {false, true})
    for (bool x_vec : {true, false}) {
      for (int64_t rows : {1, 127, 129, 300})
        for (int64_t width : {1, 32, 33, 70}) run_case({trans_x, x_vec, rows, width, 97, 48}, gen);
      run_case({trans_x, x_vec, 128, 32, 1, 16}, gen);
      run_case({trans_x, x_vec, 256, 64, 1031, 256}, gen);
      run_case({trans_x, x_vec, 131, 17, 4096, 4096}, gen);
    }
}

TEST_F(FtReferenceTf32, ZeroGateReadsNothingAndWritesZeros) {
  // alpha = 0 through a device pointer: the operands may not be read (here: they do not exist).
  constexpr int64_t kRows = 200, kWidth = 40, kK = 100, kKpp = 64;
  constexpr int kPieces = 2;
  // Nor are the row-block sums written: the GEMM reads none.
  constexpr int64_t kSumsLd = 100;
  float *d_gate = nullptr, *d_out = nullptr, *d_x_sums = nullptr;
  CUDA_OK(cudaMalloc(&d_gate, sizeof(float)));
  CUDA_OK(cudaMalloc(&d_out, kPieces * kRows * kWidth * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_x_sums, 2 * kSumsLd * sizeof(float)));
  CUDA_OK(cudaMemset(d_gate, 0, sizeof(float)));
  CUDA_OK(cudaMemset(d_out, 0xff, kPieces * kRows * kWidth * sizeof(float)));
  CUDA_OK(cudaMemset(d_x_sums, 0xff, 2 * kSumsLd * sizeof(float)));
  CUDA_OK(launch_ft_reference_tf32(false, nullptr, kRows, true, kRows, nullptr, kSumsLd, kWidth,
                                   kK, Scalar<float>{1.0f, d_gate}, kPieces, kKpp, d_out,
                                   d_x_sums, /*dependent=*/false, nullptr));
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> out(kPieces * kRows * kWidth), x_sums(2 * kSumsLd);
  CUDA_OK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(x_sums.data(), d_x_sums, x_sums.size() * sizeof(float),
                     cudaMemcpyDeviceToHost));
  cudaFree(d_gate);
  cudaFree(d_out);
  cudaFree(d_x_sums);
  for (float v : out) ASSERT_EQ(v, 0.0f);
  for (float v : x_sums) ASSERT_TRUE(std::isnan(v));
}

}  // namespace
