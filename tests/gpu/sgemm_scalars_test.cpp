// alpha / beta semantics of aegisSgemm: the grid alpha in {1, -1.5, 0} x beta in {0, 1, 0.5,
// -2}; beta = 0 never reads C (C starts NaN); alpha = 0 and k = 0 give exactly beta * C
// without reading A and B (they hold NaN); quick returns leave C alone; device pointer mode.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "aegis/aegis.h"
#include "gpu_test_util.h"

namespace aegis_test {
namespace {

const float kAlphas[] = {1.0f, -1.5f, 0.0f};
const float kBetas[] = {0.0f, 1.0f, 0.5f, -2.0f};

struct Shape {
  aegisOperation_t ta, tb;
  int64_t m, n, k;
  bool padded, unaligned;
};
const Shape kGridShapes[] = {
    {AEGIS_OP_N, AEGIS_OP_N, 129, 65, 33, true, false},
    {AEGIS_OP_T, AEGIS_OP_N, 64, 640, 257, false, true},
    {AEGIS_OP_N, AEGIS_OP_T, 640, 64, 1031, true, true},
};

SgemmCase make_case(const Shape& s, float alpha, float beta) {
  SgemmCase c;
  c.transa = s.ta;
  c.transb = s.tb;
  c.m = s.m;
  c.n = s.n;
  c.k = s.k;
  c.alpha = alpha;
  c.beta = beta;
  c.padded_ld = s.padded;
  c.unaligned = s.unaligned;
  c.nan_inputs = alpha == 0.0f;  // alpha = 0 must not read A or B
  return c;
}

// Runs the whole alpha x beta grid on h (in its current pointer mode and override).
void run_grid(aegisHandle_t h, uint64_t seed, const Shape* shapes, size_t count) {
  int index = 0;
  for (size_t s = 0; s < count; ++s)
    for (float alpha : kAlphas)
      for (float beta : kBetas)
        EXPECT_TRUE(run_sgemm_case(h, make_case(shapes[s], alpha, beta), case_seed(seed, index++)));
}

using SgemmScalars = GpuTest;

TEST_F(SgemmScalars, AlphaBetaGrid) { run_grid(h_, seed_, kGridShapes, 3); }

TEST_F(SgemmScalars, AlphaBetaGridSplitK) {
  // Split-K applies alpha and beta in its reduction: the same promises must hold there.
  ASSERT_EQ(aegisSetSgemmOverride(h_, aegisSgemmConfigName(0), 8), AEGIS_STATUS_SUCCESS);
  const Shape deep[] = {{AEGIS_OP_N, AEGIS_OP_N, 65, 63, 2053, false, false},
                        {AEGIS_OP_T, AEGIS_OP_T, 33, 31, 1031, true, true}};
  run_grid(h_, seed_, deep, 2);
  // Make sure the split path really ran.
  std::string kernel;
  int split = 0;
  ASSERT_TRUE(run_sgemm_case(h_, make_case(deep[0], 1.0f, 0.0f), seed_, &kernel, &split));
  EXPECT_GT(split, 1) << kernel;
}

TEST_F(SgemmScalars, KZeroGivesBetaC) {
  int index = 0;
  for (float alpha : {1.0f, -1.5f})
    for (float beta : kBetas) {
      SgemmCase c;
      c.m = 65;
      c.n = 33;
      c.k = 0;
      c.alpha = alpha;
      c.beta = beta;
      c.nan_inputs = true;
      c.padded_ld = index % 2 == 1;
      EXPECT_TRUE(run_sgemm_case(h_, c, case_seed(seed_, index++)));
    }
}

TEST_F(SgemmScalars, QuickReturnsLeaveCUntouched) {
  // Every element of C (and its guard zone) is compared bitwise with its copy.
  auto make = [](int64_t m, int64_t n, int64_t k, float alpha, float beta) {
    SgemmCase c;
    c.m = m;
    c.n = n;
    c.k = k;
    c.alpha = alpha;
    c.beta = beta;
    c.nan_inputs = alpha == 0.0f || k == 0;
    return c;
  };
  const SgemmCase cases[] = {
      make(0, 17, 9, 1.0f, 0.0f),  make(17, 0, 9, 1.0f, 0.0f),  make(0, 0, 0, 1.0f, 0.0f),
      make(31, 17, 9, 0.0f, 1.0f),  // alpha = 0, beta = 1
      make(31, 17, 0, 2.0f, 1.0f),  // k = 0, beta = 1
  };
  int index = 0;
  for (const SgemmCase& c : cases) EXPECT_TRUE(run_sgemm_case(h_, c, case_seed(seed_, index++)));
}

TEST_F(SgemmScalars, NullInputsWhenAlphaIsZero) {
  SgemmCase c;
  c.m = 70;
  c.n = 40;
  c.k = 20;
  c.alpha = 0.0f;
  c.beta = 0.5f;
  const SgemmProblem p(c, seed_);
  ASSERT_EQ(aegisSgemm(h_, AEGIS_OP_N, AEGIS_OP_N, c.m, c.n, c.k, &c.alpha, nullptr, p.lda(),
                       nullptr, p.ldb(), &c.beta, p.C(), p.ldc()),
            AEGIS_STATUS_SUCCESS)
      << last_error();
  EXPECT_TRUE(p.verify());
}

TEST_F(SgemmScalars, DevicePointerMode) {
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  const Shape shapes[] = {{AEGIS_OP_N, AEGIS_OP_T, 129, 65, 33, false, false},
                          {AEGIS_OP_T, AEGIS_OP_N, 33, 257, 131, true, true}};
  run_grid(h_, seed_, shapes, 2);
  // k = 0 in device mode: C = beta * C without reading A, B.
  SgemmCase c;
  c.m = 40;
  c.n = 30;
  c.k = 0;
  c.beta = 0.5f;
  c.nan_inputs = true;
  EXPECT_TRUE(run_sgemm_case(h_, c, seed_ ^ 1));
  c.beta = 0.0f;
  EXPECT_TRUE(run_sgemm_case(h_, c, seed_ ^ 2));
}

TEST_F(SgemmScalars, DevicePointerModeSplitK) {
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisSetSgemmOverride(h_, aegisSgemmConfigName(0), 8), AEGIS_STATUS_SUCCESS);
  const Shape deep[] = {{AEGIS_OP_N, AEGIS_OP_N, 65, 63, 2053, false, false}};
  run_grid(h_, seed_, deep, 1);
}

TEST_F(SgemmSmallSanitizer, ScalarPathsAndDeviceMode) {
  const Shape small[] = {{AEGIS_OP_T, AEGIS_OP_N, 33, 31, 65, true, true}};
  run_grid(h_, seed_, small, 1);
  SgemmCase k0;
  k0.m = 33;
  k0.n = 17;
  k0.k = 0;
  k0.beta = 0.5f;
  k0.nan_inputs = true;
  EXPECT_TRUE(run_sgemm_case(h_, k0, seed_ ^ 7));
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  const Shape device_shapes[] = {{AEGIS_OP_N, AEGIS_OP_T, 31, 33, 65, false, true}};
  for (float alpha : {1.0f, 0.0f})
    for (float beta : {0.0f, 0.5f})
      EXPECT_TRUE(run_sgemm_case(h_, make_case(device_shapes[0], alpha, beta), seed_ ^ 11));
  ASSERT_EQ(aegisSetSgemmOverride(h_, aegisSgemmConfigName(0), 8), AEGIS_STATUS_SUCCESS);
  const Shape deep = {AEGIS_OP_N, AEGIS_OP_N, 33, 31, 1031, true, false};
  for (float alpha : {-1.5f, 0.0f})
    for (float beta : {0.0f, -2.0f})
      EXPECT_TRUE(run_sgemm_case(h_, make_case(deep, alpha, beta), seed_ ^ 13));
}

}  // namespace
}  // namespace aegis_test
