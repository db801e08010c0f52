// aegisSgemm argument checks and quick returns, on a handle bound to no device.
//
// Parameter positions follow reference BLAS with the handle not counted:
//   1 transa, 2 transb, 3 m, 4 n, 5 k, 6 alpha, 7 A, 8 lda, 9 B, 10 ldb, 11 beta, 12 C, 13 ldc.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "deviceless.h"

namespace aegis_test {
namespace {

// Host storage standing in for device buffers: the deviceless handle never dereferences
// matrix pointers, and argument checks must not either.
float g_storage[256];
const float kOne = 1.0f, kZero = 0.0f, kHalf = 0.5f;

// A valid call: m = 4, n = 6, k = 5 (all different, so a message names the right one).
struct SgemmArgs {
  aegisOperation_t transa = AEGIS_OP_N, transb = AEGIS_OP_N;
  int64_t m = 4, n = 6, k = 5;
  const float* alpha = &kOne;
  const float* A = g_storage;
  int64_t lda = 4;
  const float* B = g_storage;
  int64_t ldb = 5;
  const float* beta = &kZero;
  float* C = g_storage;
  int64_t ldc = 4;

  aegisStatus_t call(aegisHandle_t h) const {
    return aegisSgemm(h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
};

std::string prefix_of(int position) {
  return "aegisSgemm: parameter " + std::to_string(position) + " (";
}

class SgemmArgsTest : public DevicelessHandle {
 protected:
  // Expects INVALID_VALUE with exactly `message` as the handle's last error.
  void expect_message(const SgemmArgs& a, const std::string& message) {
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
    EXPECT_EQ(last_error(), message);
  }
  // Expects INVALID_VALUE and a last error that starts by naming `position`.
  void expect_position(const SgemmArgs& a, int position) {
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
    EXPECT_PRED2(starts_with, last_error(), prefix_of(position));
  }
};

TEST(SgemmNullHandle, IsNotInitialized) {
  SgemmArgs a;
  EXPECT_EQ(a.call(nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  a.lda = 0;  // even with bad arguments: there is no handle to report them on
  EXPECT_EQ(a.call(nullptr), AEGIS_STATUS_NOT_INITIALIZED);
}

TEST_F(SgemmArgsTest, ValidArgumentsReachTheDevice) {
  // The baseline is valid: on the deviceless handle it fails only where it would launch.
  SgemmArgs a;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_EXECUTION_FAILED);
  EXPECT_PRED2(starts_with, last_error(), "aegisSgemm: ");
  for (aegisOperation_t ta : {AEGIS_OP_N, AEGIS_OP_T, AEGIS_OP_C})
    for (aegisOperation_t tb : {AEGIS_OP_N, AEGIS_OP_T, AEGIS_OP_C}) {
      SgemmArgs b;
      b.transa = ta;
      b.transb = tb;
      b.lda = ta == AEGIS_OP_N ? b.m : b.k;
      b.ldb = tb == AEGIS_OP_N ? b.k : b.n;
      EXPECT_EQ(b.call(h_), AEGIS_STATUS_EXECUTION_FAILED) << "transa " << ta << " transb " << tb;
    }
}

TEST_F(SgemmArgsTest, Param1Transa) {
  SgemmArgs a;
  a.transa = static_cast<aegisOperation_t>(7);
  expect_message(a, "aegisSgemm: parameter 1 (transa = 7) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C");
  a.transa = static_cast<aegisOperation_t>(-1);
  expect_message(a, "aegisSgemm: parameter 1 (transa = -1) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C");
  a.transa = static_cast<aegisOperation_t>(3);
  expect_position(a, 1);
}

TEST_F(SgemmArgsTest, Param2Transb) {
  SgemmArgs a;
  a.transb = static_cast<aegisOperation_t>(7);
  expect_message(a, "aegisSgemm: parameter 2 (transb = 7) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C");
  a.transb = static_cast<aegisOperation_t>(-5);
  expect_position(a, 2);
}

TEST_F(SgemmArgsTest, Param3To5NegativeSizes) {
  SgemmArgs a;
  a.m = -1;
  expect_message(a, "aegisSgemm: parameter 3 (m = -1) must be >= 0");
  a = SgemmArgs();
  a.n = -2;
  expect_message(a, "aegisSgemm: parameter 4 (n = -2) must be >= 0");
  a = SgemmArgs();
  a.k = -3;
  expect_message(a, "aegisSgemm: parameter 5 (k = -3) must be >= 0");
  a = SgemmArgs();
  a.k = INT64_MIN;
  expect_position(a, 5);
}

TEST_F(SgemmArgsTest, Param6AlphaNull) {
  SgemmArgs a;
  a.alpha = nullptr;
  expect_message(a, "aegisSgemm: parameter 6 (alpha = NULL) must not be NULL");
  // Checked before any quick return, as every argument is.
  a.m = 0;
  expect_position(a, 6);
}

TEST_F(SgemmArgsTest, Param7ANull) {
  SgemmArgs a;
  a.A = nullptr;
  expect_message(a, "aegisSgemm: parameter 7 (A = NULL) must not be NULL when m, n, k > 0 and alpha != 0");
}

TEST_F(SgemmArgsTest, Param7ANullAllowedWhenNotRead) {
  // A is not referenced when alpha = 0 (host scalars) or m, n or k is 0.
  SgemmArgs a;
  a.A = nullptr;
  a.alpha = &kZero;
  a.beta = &kOne;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
  a = SgemmArgs();
  a.A = nullptr;
  a.k = 0;
  a.beta = &kOne;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
  a = SgemmArgs();
  a.A = nullptr;
  a.n = 0;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
}

TEST_F(SgemmArgsTest, Param7DeviceModeCannotSeeAlpha) {
  // In device pointer mode alpha is not read on the host, so it counts as nonzero.
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  SgemmArgs a;
  a.A = nullptr;
  a.alpha = &kZero;
  expect_position(a, 7);
}

TEST_F(SgemmArgsTest, Param8Lda) {
  SgemmArgs a;  // m = 4, k = 5
  a.lda = 3;
  expect_message(a, "aegisSgemm: parameter 8 (lda = 3) must be >= max(1, m = 4)");
  a.transa = AEGIS_OP_T;
  a.lda = 4;  // enough for N, not for T (A is k x m)
  expect_message(a, "aegisSgemm: parameter 8 (lda = 4) must be >= max(1, k = 5)");
  a.transa = AEGIS_OP_C;
  expect_message(a, "aegisSgemm: parameter 8 (lda = 4) must be >= max(1, k = 5)");
  a = SgemmArgs();
  a.m = 0;
  a.lda = 0;  // reference BLAS: lda >= max(1, m) even when m = 0
  expect_message(a, "aegisSgemm: parameter 8 (lda = 0) must be >= max(1, m = 0)");
  a = SgemmArgs();
  a.lda = -4;
  expect_position(a, 8);
  a = SgemmArgs();  // 64-bit sizes print in full
  a.m = 5000000000LL;
  a.lda = 3;
  expect_message(a, "aegisSgemm: parameter 8 (lda = 3) must be >= max(1, m = 5000000000)");
}

TEST_F(SgemmArgsTest, Param9BNull) {
  SgemmArgs a;
  a.B = nullptr;
  expect_message(a, "aegisSgemm: parameter 9 (B = NULL) must not be NULL when m, n, k > 0 and alpha != 0");
  a.alpha = &kZero;
  a.beta = &kOne;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
}

TEST_F(SgemmArgsTest, Param10Ldb) {
  SgemmArgs a;  // k = 5, n = 6
  a.ldb = 4;
  expect_message(a, "aegisSgemm: parameter 10 (ldb = 4) must be >= max(1, k = 5)");
  a.transb = AEGIS_OP_T;
  a.ldb = 5;  // enough for N, not for T (B is n x k)
  expect_message(a, "aegisSgemm: parameter 10 (ldb = 5) must be >= max(1, n = 6)");
  a.transb = AEGIS_OP_C;
  expect_position(a, 10);
  a = SgemmArgs();
  a.k = 0;
  a.ldb = 0;
  expect_message(a, "aegisSgemm: parameter 10 (ldb = 0) must be >= max(1, k = 0)");
}

TEST_F(SgemmArgsTest, Param11BetaNull) {
  SgemmArgs a;
  a.beta = nullptr;
  expect_message(a, "aegisSgemm: parameter 11 (beta = NULL) must not be NULL");
  a.n = 0;
  expect_position(a, 11);
}

TEST_F(SgemmArgsTest, Param12CNull) {
  SgemmArgs a;
  a.C = nullptr;
  expect_message(a, "aegisSgemm: parameter 12 (C = NULL) must not be NULL when m, n > 0");
  a.k = 0;  // C is still written (C = beta C)
  expect_position(a, 12);
  a = SgemmArgs();
  a.C = nullptr;
  a.m = 0;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
}

TEST_F(SgemmArgsTest, Param13Ldc) {
  SgemmArgs a;
  a.ldc = 3;
  expect_message(a, "aegisSgemm: parameter 13 (ldc = 3) must be >= max(1, m = 4)");
  a.transa = AEGIS_OP_T;  // ldc depends on m only
  a.lda = 5;
  expect_message(a, "aegisSgemm: parameter 13 (ldc = 3) must be >= max(1, m = 4)");
  a = SgemmArgs();
  a.m = 0;
  a.ldc = 0;
  expect_message(a, "aegisSgemm: parameter 13 (ldc = 0) must be >= max(1, m = 0)");
}

// Ways to make each parameter invalid, starting from the valid baseline.
const std::vector<std::function<void(SgemmArgs&)>>& breakers() {
  static const std::vector<std::function<void(SgemmArgs&)>> b = {
      [](SgemmArgs& a) { a.transa = static_cast<aegisOperation_t>(7); },  // 1
      [](SgemmArgs& a) { a.transb = static_cast<aegisOperation_t>(9); },  // 2
      [](SgemmArgs& a) { a.m = -1; },                                     // 3
      [](SgemmArgs& a) { a.n = -1; },                                     // 4
      [](SgemmArgs& a) { a.k = -1; },                                     // 5
      [](SgemmArgs& a) { a.alpha = nullptr; },                            // 6
      [](SgemmArgs& a) { a.A = nullptr; },                                // 7
      [](SgemmArgs& a) { a.lda = 0; },                                    // 8
      [](SgemmArgs& a) { a.B = nullptr; },                                // 9
      [](SgemmArgs& a) { a.ldb = 0; },                                    // 10
      [](SgemmArgs& a) { a.beta = nullptr; },                             // 11
      [](SgemmArgs& a) { a.C = nullptr; },                                // 12
      [](SgemmArgs& a) { a.ldc = 0; },                                    // 13
  };
  return b;
}

TEST_F(SgemmArgsTest, EachParameterAloneIsReported) {
  for (int p = 1; p <= 13; ++p) {
    SCOPED_TRACE("parameter " + std::to_string(p));
    SgemmArgs a;
    breakers()[p - 1](a);
    expect_position(a, p);
  }
}

TEST_F(SgemmArgsTest, FirstFailingParameterIsReportedForEveryPair) {
  for (int p = 1; p <= 13; ++p)
    for (int q = p + 1; q <= 13; ++q) {
      SCOPED_TRACE("parameters " + std::to_string(p) + " and " + std::to_string(q));
      SgemmArgs a;
      breakers()[p - 1](a);
      breakers()[q - 1](a);
      expect_position(a, p);
    }
}

TEST_F(SgemmArgsTest, FirstFailingParameterIsReportedWhenAllAreBad) {
  // Everything bad; repairing the parameters one by one in reference order must move the
  // report to the next one each time, and the repaired call must reach the device.
  SgemmArgs a;
  for (const auto& b : breakers()) b(a);
  const SgemmArgs good;
  const std::vector<std::function<void(SgemmArgs&)>> repair = {
      [&](SgemmArgs& x) { x.transa = good.transa; }, [&](SgemmArgs& x) { x.transb = good.transb; },
      [&](SgemmArgs& x) { x.m = good.m; },           [&](SgemmArgs& x) { x.n = good.n; },
      [&](SgemmArgs& x) { x.k = good.k; },           [&](SgemmArgs& x) { x.alpha = good.alpha; },
      [&](SgemmArgs& x) { x.A = good.A; },           [&](SgemmArgs& x) { x.lda = good.lda; },
      [&](SgemmArgs& x) { x.B = good.B; },           [&](SgemmArgs& x) { x.ldb = good.ldb; },
      [&](SgemmArgs& x) { x.beta = good.beta; },     [&](SgemmArgs& x) { x.C = good.C; },
      [&](SgemmArgs& x) { x.ldc = good.ldc; },
  };
  for (int p = 1; p <= 13; ++p) {
    SCOPED_TRACE("parameters " + std::to_string(p) + "..13 bad");
    expect_position(a, p);
    repair[p - 1](a);
  }
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_EXECUTION_FAILED);
}

TEST_F(SgemmArgsTest, ErrorTextNamesOnlyTheLatestFailure) {
  SgemmArgs a;
  a.lda = 3;
  ASSERT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
  a = SgemmArgs();
  a.ldc = 2;
  ASSERT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(), "aegisSgemm: parameter 13 (ldc = 2) must be >= max(1, m = 4)");
}

// ---- quick returns ---------------------------------------------------------------------
// On the deviceless handle SUCCESS proves that no device work was attempted.

using SgemmQuickReturn = DevicelessHandle;

TEST_F(SgemmQuickReturn, EmptyOutput) {
  SgemmArgs a;
  a.m = 0;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
  a = SgemmArgs();
  a.n = 0;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
  a = SgemmArgs();  // nothing is referenced at all
  a.m = 0;
  a.n = 0;
  a.A = a.B = nullptr;
  a.C = nullptr;
  a.lda = a.ldb = a.ldc = 5;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
}

TEST_F(SgemmQuickReturn, NoProductAndBetaOne) {
  SgemmArgs a;
  a.alpha = &kZero;
  a.beta = &kOne;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
  a = SgemmArgs();
  a.k = 0;
  a.beta = &kOne;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
  a.A = a.B = nullptr;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
}

TEST_F(SgemmQuickReturn, ScalingCIsDeviceWork) {
  // alpha = 0 or k = 0 with beta != 1 must still write beta * C.
  for (const float* beta : {&kZero, &kHalf}) {
    SgemmArgs a;
    a.alpha = &kZero;
    a.beta = beta;
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_EXECUTION_FAILED) << "alpha = 0, beta = " << *beta;
    a = SgemmArgs();
    a.k = 0;
    a.beta = beta;
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_EXECUTION_FAILED) << "k = 0, beta = " << *beta;
  }
}

TEST_F(SgemmQuickReturn, ProductIsDeviceWork) {
  SgemmArgs a;
  a.m = a.n = a.k = 4;
  a.lda = a.ldb = a.ldc = 4;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_EXECUTION_FAILED);
  EXPECT_FALSE(last_error().empty());
  a.beta = &kOne;  // beta = 1 alone is no quick return
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_EXECUTION_FAILED);
}

TEST_F(SgemmQuickReturn, DevicePointerMode) {
  // The scalars live in device memory: only the sizes can make a quick return.
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  SgemmArgs a;
  a.m = 0;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
  a = SgemmArgs();
  a.n = 0;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
  a = SgemmArgs();
  a.alpha = &kZero;
  a.beta = &kOne;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_EXECUTION_FAILED);
  a = SgemmArgs();
  a.k = 0;
  a.beta = &kOne;
  EXPECT_EQ(a.call(h_), AEGIS_STATUS_EXECUTION_FAILED);
}

TEST_F(SgemmQuickReturn, DoesNotTouchC) {
  float c[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  SgemmArgs a;
  a.m = 2;
  a.n = 2;
  a.k = 0;
  a.lda = a.ldb = a.ldc = 2;
  a.C = c;
  a.beta = &kOne;
  ASSERT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(c[0], 1.0f);
  EXPECT_EQ(c[3], 4.0f);
}

}  // namespace
}  // namespace aegis_test
