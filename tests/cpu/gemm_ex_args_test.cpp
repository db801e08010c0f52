// aegisGemmEx / aegisHgemm argument checks and quick returns, the tensor-core kernel list and
// its override, on a handle bound to no device.
//
// Parameter positions follow reference BLAS with the handle not counted:
//   aegisGemmEx: 1 transa, 2 transb, 3 m, 4 n, 5 k, 6 alpha, 7 A, 8 Atype, 9 lda, 10 B,
//                11 Btype, 12 ldb, 13 beta, 14 C, 15 Ctype, 16 ldc, 17 computeType.
//   aegisHgemm:  1 transa, 2 transb, 3 m, 4 n, 5 k, 6 alpha, 7 A, 8 lda, 9 B, 10 ldb,
//                11 beta, 12 C, 13 ldc.
#include <gtest/gtest.h>

#include <cuda_fp16.h>

#include <cctype>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "aegis/aegis.h"
#include "common/context.h"
#include "deviceless.h"
#include "dispatch/gemm_dispatch.h"
#include "dispatch/gemm_ex_dispatch.h"
#include "dispatch/tuning_table.h"
#include "gemm/tc/tc_registry.h"

namespace aegis_test {
namespace {

// Host storage standing in for device buffers: the deviceless handle never dereferences
// matrix pointers, and argument checks must not either. 16-byte aligned, so TMA kernels can
// take calls on it in the dispatch tests.
alignas(16) float g_storage[256];
const float kOne = 1.0f, kZero = 0.0f, kHalf = 0.5f, kNegZero = -0.0f;
const __half kHOne = __float2half(1.0f), kHZero = __float2half(0.0f),
             kHHalf = __float2half(0.5f), kHNegZero = __float2half(-0.0f);

// A valid call: m = 4, n = 6, k = 5 (all different, so a message names the right one).
struct GemmExArgs {
  aegisOperation_t transa = AEGIS_OP_N, transb = AEGIS_OP_N;
  int64_t m = 4, n = 6, k = 5;
  const float* alpha = &kOne;
  const void* A = g_storage;
  aegisDataType_t Atype = AEGIS_R_16F;
  int64_t lda = 4;
  const void* B = g_storage;
  aegisDataType_t Btype = AEGIS_R_16F;
  int64_t ldb = 5;
  const float* beta = &kZero;
  void* C = g_storage;
  aegisDataType_t Ctype = AEGIS_R_16F;
  int64_t ldc = 4;
  aegisComputeType_t compute = AEGIS_COMPUTE_32F;

  aegisStatus_t call(aegisHandle_t h) const {
    return aegisGemmEx(h, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C,
                       Ctype, ldc, compute);
  }
};

// The same call through aegisHgemm (half scalars).
struct HgemmArgs {
  aegisOperation_t transa = AEGIS_OP_N, transb = AEGIS_OP_N;
  int64_t m = 4, n = 6, k = 5;
  const __half* alpha = &kHOne;
  const __half* A = reinterpret_cast<const __half*>(g_storage);
  int64_t lda = 4;
  const __half* B = reinterpret_cast<const __half*>(g_storage);
  int64_t ldb = 5;
  const __half* beta = &kHZero;
  __half* C = reinterpret_cast<__half*>(g_storage);
  int64_t ldc = 4;

  aegisStatus_t call(aegisHandle_t h) const {
    return aegisHgemm(h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
};

const aegisDataType_t kInputTypes[] = {AEGIS_R_16F, AEGIS_R_16BF};
const aegisDataType_t kOutputTypes[] = {AEGIS_R_16F, AEGIS_R_16BF, AEGIS_R_32F};
const aegisOperation_t kAllOps[] = {AEGIS_OP_N, AEGIS_OP_T, AEGIS_OP_C};

// What a call that passed every check and reached dispatch returns on the deviceless handle.
const char kNoDevice[] = "the handle has no device";

std::string last_choice(aegisHandle_t h) {
  const char* name = nullptr;
  EXPECT_EQ(aegisGetLastGemmExChoice(h, &name, nullptr), AEGIS_STATUS_SUCCESS);
  return name ? name : "(null)";
}

template <typename Args>
class ArgsFixture : public DevicelessHandle {
 protected:
  static const char* routine() {
    return std::is_same<Args, GemmExArgs>::value ? "aegisGemmEx" : "aegisHgemm";
  }
  static std::string prefix_of(int position) {
    return std::string(routine()) + ": parameter " + std::to_string(position) + " (";
  }
  // Expects INVALID_VALUE with exactly `message` as the handle's last error, and no kernel
  // recorded as the last choice.
  void expect_message(const Args& a, const std::string& message) {
    h_->last_gemm_ex_kernel = "stale";
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
    EXPECT_EQ(last_error(), message);
    EXPECT_EQ(last_choice(h_), "");
  }
  // Expects INVALID_VALUE and a last error that starts by naming `position`.
  void expect_position(const Args& a, int position) {
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
    EXPECT_PRED2(starts_with, last_error(), prefix_of(position));
  }
  // breakers[p - 1] makes parameter p (reference numbering) invalid. Alone, each is reported
  // at its own position; with any later one also broken, the earlier one is reported.
  void expect_breakers_reported(const std::vector<std::function<void(Args&)>>& breakers,
                                int params) {
    ASSERT_EQ(static_cast<int>(breakers.size()), params);
    for (int p = 1; p <= params; ++p) {
      SCOPED_TRACE("parameter " + std::to_string(p));
      Args a;
      breakers[p - 1](a);
      expect_position(a, p);
    }
    for (int p = 1; p <= params; ++p)
      for (int q = p + 1; q <= params; ++q) {
        SCOPED_TRACE("parameters " + std::to_string(p) + " and " + std::to_string(q));
        Args a;
        breakers[p - 1](a);
        breakers[q - 1](a);
        expect_position(a, p);
      }
  }
  // Expects the call to pass every check and reach the device.
  void expect_device_work(const Args& a) {
    h_->last_gemm_ex_kernel = "stale";
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_EXECUTION_FAILED);
    EXPECT_EQ(last_error(), std::string(routine()) + ": " + kNoDevice);
    EXPECT_EQ(last_choice(h_), "");
  }
  // Expects a quick return: SUCCESS without any device work (the deviceless handle would
  // fail anything else), no error text and no kernel recorded.
  void expect_quick_return(const Args& a) {
    h_->last_gemm_ex_kernel = "stale";
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
    EXPECT_EQ(last_error(), "");
    EXPECT_EQ(last_choice(h_), "");
  }
};

using GemmExArgsTest = ArgsFixture<GemmExArgs>;
using HgemmArgsTest = ArgsFixture<HgemmArgs>;

// ---- null handle -------------------------------------------------------------------------

TEST(GemmExNullHandle, IsNotInitialized) {
  GemmExArgs a;
  EXPECT_EQ(a.call(nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  a.lda = 0;  // even with bad arguments: there is no handle to report them on
  a.Atype = AEGIS_R_32F;
  EXPECT_EQ(a.call(nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  HgemmArgs b;
  EXPECT_EQ(b.call(nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  b.m = -1;
  EXPECT_EQ(b.call(nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisSetGemmExOverride(nullptr, nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisSetGemmExOverride(nullptr, "gemm_sm80_mma_sync"), AEGIS_STATUS_NOT_INITIALIZED);
  const char* name = "untouched";
  EXPECT_EQ(aegisGetLastGemmExChoice(nullptr, &name, nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_STREQ(name, "untouched");
}

// ---- aegisGemmEx: each parameter ------------------------------------------------------------

TEST_F(GemmExArgsTest, ValidArgumentsReachTheDevice) {
  // The baseline is valid: on the deviceless handle it fails only where it would launch.
  expect_device_work(GemmExArgs());
  for (aegisDataType_t ab : kInputTypes)
    for (aegisDataType_t c : kOutputTypes)
      for (aegisOperation_t ta : kAllOps)
        for (aegisOperation_t tb : kAllOps) {
          SCOPED_TRACE("Atype " + std::to_string(ab) + " Ctype " + std::to_string(c) +
                       " transa " + std::to_string(ta) + " transb " + std::to_string(tb));
          GemmExArgs b;
          b.Atype = b.Btype = ab;
          b.Ctype = c;
          b.transa = ta;
          b.transb = tb;
          b.lda = ta == AEGIS_OP_N ? b.m : b.k;
          b.ldb = tb == AEGIS_OP_N ? b.k : b.n;
          expect_device_work(b);
        }
  // Leading dimensions larger than needed, odd ones included, are valid.
  GemmExArgs c;
  c.lda = 7;
  c.ldb = 13;
  c.ldc = 5;
  expect_device_work(c);
  // Unaligned pointers are valid (they take the mma.sync path on the device).
  c.A = reinterpret_cast<const char*>(g_storage) + 2;
  c.B = reinterpret_cast<const char*>(g_storage) + 6;
  c.C = reinterpret_cast<char*>(g_storage) + 2;
  expect_device_work(c);
}

TEST_F(GemmExArgsTest, Param1Transa) {
  GemmExArgs a;
  a.transa = static_cast<aegisOperation_t>(7);
  expect_message(a, "aegisGemmEx: parameter 1 (transa = 7) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C");
  a.transa = static_cast<aegisOperation_t>(-1);
  expect_message(a, "aegisGemmEx: parameter 1 (transa = -1) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C");
  a.transa = static_cast<aegisOperation_t>(3);
  expect_position(a, 1);
}

TEST_F(GemmExArgsTest, Param2Transb) {
  GemmExArgs a;
  a.transb = static_cast<aegisOperation_t>(7);
  expect_message(a, "aegisGemmEx: parameter 2 (transb = 7) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C");
  a.transb = static_cast<aegisOperation_t>(-5);
  expect_position(a, 2);
}

TEST_F(GemmExArgsTest, Param3To5NegativeSizes) {
  GemmExArgs a;
  a.m = -1;
  expect_message(a, "aegisGemmEx: parameter 3 (m = -1) must be >= 0");
  a = GemmExArgs();
  a.n = -2;
  expect_message(a, "aegisGemmEx: parameter 4 (n = -2) must be >= 0");
  a = GemmExArgs();
  a.k = -3;
  expect_message(a, "aegisGemmEx: parameter 5 (k = -3) must be >= 0");
  a = GemmExArgs();
  a.k = INT64_MIN;
  expect_position(a, 5);
}

TEST_F(GemmExArgsTest, Param6AlphaNull) {
  GemmExArgs a;
  a.alpha = nullptr;
  expect_message(a, "aegisGemmEx: parameter 6 (alpha = NULL) must not be NULL");
  a.m = 0;  // checked before any quick return, as every argument is
  expect_position(a, 6);
}

TEST_F(GemmExArgsTest, Param7ANull) {
  GemmExArgs a;
  a.A = nullptr;
  expect_message(a, "aegisGemmEx: parameter 7 (A = NULL) must not be NULL when m, n, k > 0 and alpha != 0");
}

TEST_F(GemmExArgsTest, Param7ANullAllowedWhenNotRead) {
  // A is not referenced when alpha = 0 (host scalars, either sign) or m, n or k is 0.
  for (const float* zero : {&kZero, &kNegZero}) {
    GemmExArgs a;
    a.A = nullptr;
    a.alpha = zero;
    a.beta = &kOne;
    expect_quick_return(a);
    a.beta = &kHalf;  // C = beta C is device work, but A is still not needed
    expect_device_work(a);
  }
  GemmExArgs a;
  a.A = nullptr;
  a.k = 0;
  a.beta = &kOne;
  expect_quick_return(a);
  a = GemmExArgs();
  a.A = nullptr;
  a.n = 0;
  expect_quick_return(a);
}

TEST_F(GemmExArgsTest, Param7DeviceModeCannotSeeAlpha) {
  // In device pointer mode alpha is not read on the host, so it counts as nonzero.
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  GemmExArgs a;
  a.A = nullptr;
  a.alpha = &kZero;
  expect_position(a, 7);
  a = GemmExArgs();
  a.B = nullptr;
  a.alpha = &kZero;
  expect_position(a, 10);
}

TEST_F(GemmExArgsTest, Param8Atype) {
  GemmExArgs a;
  a.Atype = AEGIS_R_32F;
  a.Btype = AEGIS_R_32F;
  expect_message(a, "aegisGemmEx: parameter 8 (Atype = 2) must be AEGIS_R_16F or AEGIS_R_16BF");
  a.Atype = static_cast<aegisDataType_t>(-1);
  expect_message(a, "aegisGemmEx: parameter 8 (Atype = -1) must be AEGIS_R_16F or AEGIS_R_16BF");
  a.Atype = static_cast<aegisDataType_t>(99);
  expect_position(a, 8);
  // Checked even when A is not read.
  a = GemmExArgs();
  a.Atype = AEGIS_R_32F;
  a.m = 0;
  expect_position(a, 8);
  a = GemmExArgs();
  a.Atype = AEGIS_R_32F;
  a.alpha = &kZero;
  a.beta = &kOne;
  expect_position(a, 8);
}

TEST_F(GemmExArgsTest, Param9Lda) {
  GemmExArgs a;  // m = 4, k = 5
  a.lda = 3;
  expect_message(a, "aegisGemmEx: parameter 9 (lda = 3) must be >= max(1, m = 4)");
  a.transa = AEGIS_OP_T;
  a.lda = 4;  // enough for N, not for T (A is k x m)
  expect_message(a, "aegisGemmEx: parameter 9 (lda = 4) must be >= max(1, k = 5)");
  a.transa = AEGIS_OP_C;
  expect_message(a, "aegisGemmEx: parameter 9 (lda = 4) must be >= max(1, k = 5)");
  a = GemmExArgs();
  a.m = 0;
  a.lda = 0;  // reference BLAS: lda >= max(1, m) even when m = 0
  expect_message(a, "aegisGemmEx: parameter 9 (lda = 0) must be >= max(1, m = 0)");
  a = GemmExArgs();
  a.lda = -4;
  expect_position(a, 9);
  a = GemmExArgs();  // 64-bit sizes print in full
  a.m = 5000000000LL;
  a.lda = 3;
  expect_message(a, "aegisGemmEx: parameter 9 (lda = 3) must be >= max(1, m = 5000000000)");
  a = GemmExArgs();  // counted in elements, whatever the element size
  a.Atype = a.Btype = AEGIS_R_16BF;
  a.lda = 3;
  expect_position(a, 9);
}

TEST_F(GemmExArgsTest, Param10BNull) {
  GemmExArgs a;
  a.B = nullptr;
  expect_message(a, "aegisGemmEx: parameter 10 (B = NULL) must not be NULL when m, n, k > 0 and alpha != 0");
  a.alpha = &kZero;
  a.beta = &kOne;
  expect_quick_return(a);
}

TEST_F(GemmExArgsTest, Param11Btype) {
  GemmExArgs a;  // Atype = 16F
  a.Btype = AEGIS_R_16BF;
  expect_message(a, "aegisGemmEx: parameter 11 (Btype = 1) must equal Atype (AEGIS_R_16F = 0)");
  a.Btype = AEGIS_R_32F;
  expect_message(a, "aegisGemmEx: parameter 11 (Btype = 2) must equal Atype (AEGIS_R_16F = 0)");
  a.Atype = AEGIS_R_16BF;
  a.Btype = AEGIS_R_16F;
  expect_message(a, "aegisGemmEx: parameter 11 (Btype = 0) must equal Atype (AEGIS_R_16BF = 1)");
  a.Btype = static_cast<aegisDataType_t>(42);
  expect_position(a, 11);
  a = GemmExArgs();
  a.Btype = AEGIS_R_16BF;
  a.n = 0;
  expect_position(a, 11);
}

TEST_F(GemmExArgsTest, Param12Ldb) {
  GemmExArgs a;  // k = 5, n = 6
  a.ldb = 4;
  expect_message(a, "aegisGemmEx: parameter 12 (ldb = 4) must be >= max(1, k = 5)");
  a.transb = AEGIS_OP_T;
  a.ldb = 5;  // enough for N, not for T (B is n x k)
  expect_message(a, "aegisGemmEx: parameter 12 (ldb = 5) must be >= max(1, n = 6)");
  a.transb = AEGIS_OP_C;
  expect_position(a, 12);
  a = GemmExArgs();
  a.k = 0;
  a.ldb = 0;
  expect_message(a, "aegisGemmEx: parameter 12 (ldb = 0) must be >= max(1, k = 0)");
}

TEST_F(GemmExArgsTest, Param13BetaNull) {
  GemmExArgs a;
  a.beta = nullptr;
  expect_message(a, "aegisGemmEx: parameter 13 (beta = NULL) must not be NULL");
  a.n = 0;
  expect_position(a, 13);
}

TEST_F(GemmExArgsTest, Param14CNull) {
  GemmExArgs a;
  a.C = nullptr;
  expect_message(a, "aegisGemmEx: parameter 14 (C = NULL) must not be NULL when m, n > 0");
  a.k = 0;  // C is still written (C = beta C)
  expect_position(a, 14);
  a.alpha = &kZero;
  expect_position(a, 14);
  a = GemmExArgs();
  a.C = nullptr;
  a.m = 0;
  expect_quick_return(a);
}

TEST_F(GemmExArgsTest, Param15Ctype) {
  GemmExArgs a;
  a.Ctype = static_cast<aegisDataType_t>(3);
  expect_message(a, "aegisGemmEx: parameter 15 (Ctype = 3) must be AEGIS_R_16F, AEGIS_R_16BF or AEGIS_R_32F");
  a.Ctype = static_cast<aegisDataType_t>(-2);
  expect_message(a, "aegisGemmEx: parameter 15 (Ctype = -2) must be AEGIS_R_16F, AEGIS_R_16BF or AEGIS_R_32F");
  a = GemmExArgs();  // checked even when C is not referenced
  a.Ctype = static_cast<aegisDataType_t>(3);
  a.m = 0;
  expect_position(a, 15);
  // FP16 inputs may go to a BF16 or FP32 output and BF16 inputs to an FP16 one.
  for (aegisDataType_t ab : kInputTypes)
    for (aegisDataType_t c : kOutputTypes) {
      GemmExArgs b;
      b.Atype = b.Btype = ab;
      b.Ctype = c;
      expect_device_work(b);
    }
}

TEST_F(GemmExArgsTest, Param16Ldc) {
  GemmExArgs a;
  a.ldc = 3;
  expect_message(a, "aegisGemmEx: parameter 16 (ldc = 3) must be >= max(1, m = 4)");
  a.transa = AEGIS_OP_T;  // ldc depends on m only
  a.lda = 5;
  expect_message(a, "aegisGemmEx: parameter 16 (ldc = 3) must be >= max(1, m = 4)");
  a = GemmExArgs();
  a.m = 0;
  a.ldc = 0;
  expect_message(a, "aegisGemmEx: parameter 16 (ldc = 0) must be >= max(1, m = 0)");
  a = GemmExArgs();  // counted in elements, whatever the C type
  a.Ctype = AEGIS_R_32F;
  a.ldc = 2;
  expect_position(a, 16);
}

TEST_F(GemmExArgsTest, Param17ComputeType) {
  GemmExArgs a;
  a.compute = static_cast<aegisComputeType_t>(1);
  expect_message(a, "aegisGemmEx: parameter 17 (computeType = 1) must be AEGIS_COMPUTE_32F");
  a.compute = static_cast<aegisComputeType_t>(-1);
  expect_message(a, "aegisGemmEx: parameter 17 (computeType = -1) must be AEGIS_COMPUTE_32F");
  a.m = 0;  // still checked before the quick return
  expect_position(a, 17);
}

// Ways to make each parameter invalid, starting from the valid baseline.
const std::vector<std::function<void(GemmExArgs&)>>& gemm_ex_breakers() {
  static const std::vector<std::function<void(GemmExArgs&)>> b = {
      [](GemmExArgs& a) { a.transa = static_cast<aegisOperation_t>(7); },    // 1
      [](GemmExArgs& a) { a.transb = static_cast<aegisOperation_t>(9); },    // 2
      [](GemmExArgs& a) { a.m = -1; },                                       // 3
      [](GemmExArgs& a) { a.n = -1; },                                       // 4
      [](GemmExArgs& a) { a.k = -1; },                                       // 5
      [](GemmExArgs& a) { a.alpha = nullptr; },                              // 6
      [](GemmExArgs& a) { a.A = nullptr; },                                  // 7
      [](GemmExArgs& a) { a.Atype = AEGIS_R_32F; },                          // 8
      [](GemmExArgs& a) { a.lda = 0; },                                      // 9
      [](GemmExArgs& a) { a.B = nullptr; },                                  // 10
      [](GemmExArgs& a) { a.Btype = AEGIS_R_16BF; },                         // 11
      [](GemmExArgs& a) { a.ldb = 0; },                                      // 12
      [](GemmExArgs& a) { a.beta = nullptr; },                               // 13
      [](GemmExArgs& a) { a.C = nullptr; },                                  // 14
      [](GemmExArgs& a) { a.Ctype = static_cast<aegisDataType_t>(5); },     // 15
      [](GemmExArgs& a) { a.ldc = 0; },                                      // 16
      [](GemmExArgs& a) { a.compute = static_cast<aegisComputeType_t>(3); }, // 17
  };
  return b;
}

constexpr int kGemmExParams = 17;

TEST_F(GemmExArgsTest, EachParameterAloneAndTheFirstOfEveryPairIsReported) {
  expect_breakers_reported(gemm_ex_breakers(), kGemmExParams);
}

TEST_F(GemmExArgsTest, FirstFailingParameterIsReportedWhenAllAreBad) {
  // Everything bad; repairing the parameters one by one in reference order must move the
  // report to the next one each time, and the repaired call must reach the device.
  GemmExArgs a;
  for (const auto& b : gemm_ex_breakers()) b(a);
  const GemmExArgs good;
  const std::vector<std::function<void(GemmExArgs&)>> repair = {
      [&](GemmExArgs& x) { x.transa = good.transa; }, [&](GemmExArgs& x) { x.transb = good.transb; },
      [&](GemmExArgs& x) { x.m = good.m; },           [&](GemmExArgs& x) { x.n = good.n; },
      [&](GemmExArgs& x) { x.k = good.k; },           [&](GemmExArgs& x) { x.alpha = good.alpha; },
      [&](GemmExArgs& x) { x.A = good.A; },           [&](GemmExArgs& x) { x.Atype = good.Atype; },
      [&](GemmExArgs& x) { x.lda = good.lda; },       [&](GemmExArgs& x) { x.B = good.B; },
      [&](GemmExArgs& x) { x.Btype = good.Btype; },   [&](GemmExArgs& x) { x.ldb = good.ldb; },
      [&](GemmExArgs& x) { x.beta = good.beta; },     [&](GemmExArgs& x) { x.C = good.C; },
      [&](GemmExArgs& x) { x.Ctype = good.Ctype; },   [&](GemmExArgs& x) { x.ldc = good.ldc; },
      [&](GemmExArgs& x) { x.compute = good.compute; },
  };
  ASSERT_EQ(static_cast<int>(repair.size()), kGemmExParams);
  for (int p = 1; p <= kGemmExParams; ++p) {
    SCOPED_TRACE("parameters " + std::to_string(p) + ".." + std::to_string(kGemmExParams) +
                 " bad");
    expect_position(a, p);
    repair[p - 1](a);
  }
  expect_device_work(a);
}

TEST_F(GemmExArgsTest, ErrorTextNamesOnlyTheLatestFailure) {
  GemmExArgs a;
  a.lda = 3;
  ASSERT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
  a = GemmExArgs();
  a.ldc = 2;
  ASSERT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(), "aegisGemmEx: parameter 16 (ldc = 2) must be >= max(1, m = 4)");
  // A call that succeeds clears the text.
  a = GemmExArgs();
  a.m = 0;
  ASSERT_EQ(a.call(h_), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(last_error(), "");
}

// ---- aegisHgemm: each parameter ---------------------------------------------------------------

TEST_F(HgemmArgsTest, ValidArgumentsReachTheDevice) {
  expect_device_work(HgemmArgs());
  for (aegisOperation_t ta : kAllOps)
    for (aegisOperation_t tb : kAllOps) {
      SCOPED_TRACE("transa " + std::to_string(ta) + " transb " + std::to_string(tb));
      HgemmArgs b;
      b.transa = ta;
      b.transb = tb;
      b.lda = ta == AEGIS_OP_N ? b.m : b.k;
      b.ldb = tb == AEGIS_OP_N ? b.k : b.n;
      expect_device_work(b);
    }
}

TEST_F(HgemmArgsTest, Messages) {
  HgemmArgs a;
  a.transa = static_cast<aegisOperation_t>(7);
  expect_message(a, "aegisHgemm: parameter 1 (transa = 7) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C");
  a = HgemmArgs();
  a.transb = static_cast<aegisOperation_t>(4);
  expect_message(a, "aegisHgemm: parameter 2 (transb = 4) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C");
  a = HgemmArgs();
  a.m = -1;
  expect_message(a, "aegisHgemm: parameter 3 (m = -1) must be >= 0");
  a = HgemmArgs();
  a.n = -2;
  expect_message(a, "aegisHgemm: parameter 4 (n = -2) must be >= 0");
  a = HgemmArgs();
  a.k = -3;
  expect_message(a, "aegisHgemm: parameter 5 (k = -3) must be >= 0");
  a = HgemmArgs();
  a.alpha = nullptr;
  expect_message(a, "aegisHgemm: parameter 6 (alpha = NULL) must not be NULL");
  a = HgemmArgs();
  a.A = nullptr;
  expect_message(a, "aegisHgemm: parameter 7 (A = NULL) must not be NULL when m, n, k > 0 and alpha != 0");
  a = HgemmArgs();
  a.lda = 3;
  expect_message(a, "aegisHgemm: parameter 8 (lda = 3) must be >= max(1, m = 4)");
  a.transa = AEGIS_OP_T;
  a.lda = 4;
  expect_message(a, "aegisHgemm: parameter 8 (lda = 4) must be >= max(1, k = 5)");
  a = HgemmArgs();
  a.B = nullptr;
  expect_message(a, "aegisHgemm: parameter 9 (B = NULL) must not be NULL when m, n, k > 0 and alpha != 0");
  a = HgemmArgs();
  a.ldb = 4;
  expect_message(a, "aegisHgemm: parameter 10 (ldb = 4) must be >= max(1, k = 5)");
  a.transb = AEGIS_OP_C;
  a.ldb = 5;
  expect_message(a, "aegisHgemm: parameter 10 (ldb = 5) must be >= max(1, n = 6)");
  a = HgemmArgs();
  a.beta = nullptr;
  expect_message(a, "aegisHgemm: parameter 11 (beta = NULL) must not be NULL");
  a = HgemmArgs();
  a.C = nullptr;
  expect_message(a, "aegisHgemm: parameter 12 (C = NULL) must not be NULL when m, n > 0");
  a = HgemmArgs();
  a.ldc = 3;
  expect_message(a, "aegisHgemm: parameter 13 (ldc = 3) must be >= max(1, m = 4)");
}

TEST_F(HgemmArgsTest, NullInputsAllowedWhenNotRead) {
  // A half alpha of either zero counts as zero.
  for (const __half* zero : {&kHZero, &kHNegZero}) {
    HgemmArgs a;
    a.A = nullptr;
    a.B = nullptr;
    a.alpha = zero;
    a.beta = &kHOne;
    expect_quick_return(a);
    a.beta = &kHHalf;
    expect_device_work(a);
  }
  HgemmArgs a;
  a.A = a.B = nullptr;
  a.k = 0;
  a.beta = &kHOne;
  expect_quick_return(a);
  // Device pointer mode: alpha is not read on the host, so it counts as nonzero.
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  a = HgemmArgs();
  a.A = nullptr;
  a.alpha = &kHZero;
  expect_position(a, 7);
}

const std::vector<std::function<void(HgemmArgs&)>>& hgemm_breakers() {
  static const std::vector<std::function<void(HgemmArgs&)>> b = {
      [](HgemmArgs& a) { a.transa = static_cast<aegisOperation_t>(7); },  // 1
      [](HgemmArgs& a) { a.transb = static_cast<aegisOperation_t>(9); },  // 2
      [](HgemmArgs& a) { a.m = -1; },                                     // 3
      [](HgemmArgs& a) { a.n = -1; },                                     // 4
      [](HgemmArgs& a) { a.k = -1; },                                     // 5
      [](HgemmArgs& a) { a.alpha = nullptr; },                            // 6
      [](HgemmArgs& a) { a.A = nullptr; },                                // 7
      [](HgemmArgs& a) { a.lda = 0; },                                    // 8
      [](HgemmArgs& a) { a.B = nullptr; },                                // 9
      [](HgemmArgs& a) { a.ldb = 0; },                                    // 10
      [](HgemmArgs& a) { a.beta = nullptr; },                             // 11
      [](HgemmArgs& a) { a.C = nullptr; },                                // 12
      [](HgemmArgs& a) { a.ldc = 0; },                                    // 13
  };
  return b;
}

constexpr int kHgemmParams = 13;

TEST_F(HgemmArgsTest, EachParameterAloneAndTheFirstOfEveryPairIsReported) {
  expect_breakers_reported(hgemm_breakers(), kHgemmParams);
}

// ---- quick returns ---------------------------------------------------------------------
// On the deviceless handle SUCCESS proves that no device work was attempted.

using GemmExQuickReturn = GemmExArgsTest;
using HgemmQuickReturn = HgemmArgsTest;

TEST_F(GemmExQuickReturn, EmptyOutput) {
  GemmExArgs a;
  a.m = 0;
  expect_quick_return(a);
  a = GemmExArgs();
  a.n = 0;
  expect_quick_return(a);
  a = GemmExArgs();  // nothing is referenced at all
  a.m = 0;
  a.n = 0;
  a.A = a.B = nullptr;
  a.C = nullptr;
  a.lda = a.ldb = a.ldc = 5;
  expect_quick_return(a);
  // Device pointer mode: the sizes alone decide.
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  a = GemmExArgs();
  a.n = 0;
  expect_quick_return(a);
}

TEST_F(GemmExQuickReturn, NoProductAndBetaOne) {
  for (aegisDataType_t c : kOutputTypes) {
    GemmExArgs a;
    a.Ctype = c;
    a.alpha = &kZero;
    a.beta = &kOne;
    expect_quick_return(a);
    a = GemmExArgs();
    a.Ctype = c;
    a.k = 0;
    a.beta = &kOne;
    expect_quick_return(a);
    a.A = a.B = nullptr;
    expect_quick_return(a);
  }
}

TEST_F(GemmExQuickReturn, ScalingCIsDeviceWork) {
  // alpha = 0 or k = 0 with beta != 1 must still write beta * C.
  for (const float* beta : {&kZero, &kHalf, &kNegZero}) {
    SCOPED_TRACE("beta = " + std::to_string(*beta));
    GemmExArgs a;
    a.alpha = &kZero;
    a.beta = beta;
    expect_device_work(a);
    a = GemmExArgs();
    a.k = 0;
    a.beta = beta;
    expect_device_work(a);
  }
}

TEST_F(GemmExQuickReturn, ProductIsDeviceWork) {
  GemmExArgs a;
  a.m = a.n = a.k = 4;
  a.lda = a.ldb = a.ldc = 4;
  expect_device_work(a);
  a.beta = &kOne;  // beta = 1 alone is no quick return
  expect_device_work(a);
}

TEST_F(GemmExQuickReturn, DevicePointerMode) {
  // The scalars live in device memory: only the sizes can make a quick return.
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  GemmExArgs a;
  a.m = 0;
  expect_quick_return(a);
  a = GemmExArgs();
  a.alpha = &kZero;
  a.beta = &kOne;
  expect_device_work(a);
  a = GemmExArgs();
  a.k = 0;
  a.beta = &kOne;
  expect_device_work(a);
}

TEST_F(GemmExQuickReturn, DoesNotTouchC) {
  float c[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  GemmExArgs a;
  a.m = 2;
  a.n = 2;
  a.k = 0;
  a.lda = a.ldb = a.ldc = 2;
  a.C = c;
  a.Ctype = AEGIS_R_32F;
  a.beta = &kOne;
  expect_quick_return(a);
  EXPECT_EQ(c[0], 1.0f);
  EXPECT_EQ(c[3], 4.0f);
}

TEST_F(HgemmQuickReturn, HalfScalars) {
  HgemmArgs a;
  a.m = 0;
  expect_quick_return(a);
  a = HgemmArgs();
  a.alpha = &kHZero;
  a.beta = &kHOne;
  expect_quick_return(a);
  a = HgemmArgs();
  a.k = 0;
  a.beta = &kHOne;
  expect_quick_return(a);
  a.beta = &kHHalf;  // k = 0, beta != 1: C = beta C
  expect_device_work(a);
  a = HgemmArgs();
  a.beta = &kHOne;  // a product with beta = 1
  expect_device_work(a);
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  a = HgemmArgs();
  a.alpha = &kHZero;
  a.beta = &kHOne;
  expect_device_work(a);
}

// ---- kernel list and override ---------------------------------------------------------------

TEST(GemmExConfigs, ListMatchesTheRegistry) {
  int count = 0;
  const auto* const* all = aegis::gemm::tc::tc_instances(&count);
  ASSERT_GE(count, 1);
  ASSERT_EQ(aegisGemmExConfigCount(), count);
  std::set<std::string> names;
  for (int i = 0; i < count; ++i) {
    const char* name = aegisGemmExConfigName(i);
    ASSERT_NE(name, nullptr) << i;
    EXPECT_STREQ(name, all[i]->name);
    EXPECT_TRUE(names.insert(name).second) << "duplicate kernel name " << name;
    EXPECT_EQ(aegis::gemm::tc::find_tc_instance(name), all[i]);
  }
  EXPECT_EQ(aegisGemmExConfigName(count), nullptr);
  EXPECT_EQ(aegisGemmExConfigName(-1), nullptr);
  EXPECT_EQ(aegisGemmExConfigName(1 << 30), nullptr);
  // The fallback every misaligned call takes is always built.
  EXPECT_EQ(names.count("gemm_sm80_mma_sync"), 1u);
}

TEST(GemmExConfigs, TileMatchesTheRegistry) {
  int count = 0;
  const auto* const* all = aegis::gemm::tc::tc_instances(&count);
  for (int i = 0; i < count; ++i) {
    int tm = -1, tn = -1, per_sm = -1;
    ASSERT_EQ(aegisGemmExConfigTile(i, &tm, &tn, &per_sm), AEGIS_STATUS_SUCCESS) << i;
    EXPECT_EQ(tm, all[i]->tile_m) << all[i]->name;
    EXPECT_EQ(tn, all[i]->tile_n) << all[i]->name;
    EXPECT_EQ(per_sm, all[i]->blocks_per_sm) << all[i]->name;
  }
  int tm = 7, tn = 7, per_sm = 7;
  EXPECT_EQ(aegisGemmExConfigTile(count, &tm, &tn, &per_sm), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(aegisGemmExConfigTile(-1, &tm, &tn, &per_sm), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(aegisGemmExConfigTile(0, nullptr, &tn, &per_sm), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(aegisGemmExConfigTile(0, &tm, nullptr, &per_sm), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(aegisGemmExConfigTile(0, &tm, &tn, nullptr), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(tm, 7);  // a rejected call writes nothing
}

using GemmExOverride = DevicelessHandle;

TEST_F(GemmExOverride, EveryListedKernelIsAccepted) {
  for (int i = 0; i < aegisGemmExConfigCount(); ++i) {
    const char* name = aegisGemmExConfigName(i);
    ASSERT_EQ(aegisSetGemmExOverride(h_, name), AEGIS_STATUS_SUCCESS) << last_error();
    EXPECT_EQ(h_->gemm_ex_override_config, name);
  }
}

TEST_F(GemmExOverride, UnknownNameIsRejected) {
  ASSERT_EQ(aegisSetGemmExOverride(h_, "gemm_sm80_mma_sync"), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(aegisSetGemmExOverride(h_, "gemm_sm90_1x1x1_s1"), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(),
            "aegisSetGemmExOverride: parameter 2 (config = \"gemm_sm90_1x1x1_s1\") is not a "
            "tensor-core GEMM kernel of this build");
  // SGEMM configurations, prefixes and case variants of real names are not kernels either.
  const std::string first = aegisGemmExConfigName(0);
  const std::string upper = [&] {
    std::string s = first;
    for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return s;
  }();
  for (const std::string& bad :
       {std::string(""), first.substr(0, first.size() - 1), first + "_", upper,
        std::string(aegisSgemmConfigName(0))}) {
    SCOPED_TRACE("\"" + bad + "\"");
    EXPECT_EQ(aegisSetGemmExOverride(h_, bad.c_str()), AEGIS_STATUS_INVALID_VALUE);
    EXPECT_PRED2(starts_with, last_error(), "aegisSetGemmExOverride: parameter 2 (config = \"");
  }
  // A rejected name leaves the override as it was.
  EXPECT_EQ(h_->gemm_ex_override_config, "gemm_sm80_mma_sync");
}

TEST_F(GemmExOverride, NullClears) {
  ASSERT_EQ(aegisSetGemmExOverride(h_, aegisGemmExConfigName(0)), AEGIS_STATUS_SUCCESS);
  ASSERT_FALSE(h_->gemm_ex_override_config.empty());
  EXPECT_EQ(aegisSetGemmExOverride(h_, nullptr), AEGIS_STATUS_SUCCESS);
  EXPECT_TRUE(h_->gemm_ex_override_config.empty());
  EXPECT_EQ(aegisSetGemmExOverride(h_, nullptr), AEGIS_STATUS_SUCCESS);  // clearing twice is fine
  EXPECT_TRUE(h_->gemm_ex_override_config.empty());
}

TEST_F(GemmExOverride, LastChoiceStartsEmpty) {
  EXPECT_EQ(last_choice(h_), "");
  EXPECT_EQ(aegisGetLastGemmExChoice(h_, nullptr, nullptr), AEGIS_STATUS_SUCCESS);  // NULL out is allowed
  h_->last_gemm_ex_kernel = "gemm_sm80_mma_sync";
  EXPECT_EQ(last_choice(h_), "gemm_sm80_mma_sync");
}

// ---- what the override makes dispatch choose (white box: plan_gemm_ex) ------------------------
// The GPU suite relies on this: a forced kernel runs every aligned call, and misaligned calls
// fall back to mma.sync.

class GemmExPlan : public DevicelessHandle {
 protected:
  void SetUp() override {
    DevicelessHandle::SetUp();
    h_->cc_major = 9;  // an H200, as far as dispatch can tell
    h_->cc_minor = 0;
  }
  // A call that every kernel of the build can run: 16-byte aligned operands, ld multiples of 8.
  static aegis::gemm::tc::TcGemmParams aligned_call(int64_t m, int64_t n, int64_t k) {
    aegis::gemm::tc::TcGemmParams p{};
    p.m = m;
    p.n = n;
    p.k = k;
    p.ab_type = aegis::gemm::tc::DType::F16;
    p.c_type = aegis::gemm::tc::DType::F32;
    p.A = g_storage;
    p.lda = 8 * ((m + 7) / 8);
    p.B = g_storage;
    p.ldb = 8 * ((k + 7) / 8);
    p.C = g_storage;
    p.ldc = m;
    p.alpha = {1.0f, nullptr, false};
    p.beta = {0.0f, nullptr, false};
    return p;
  }
  std::string planned(const aegis::gemm::tc::TcGemmParams& p) const {
    const auto* inst = aegis::dispatch::plan_gemm_ex(*h_, p);
    return inst ? inst->name : "(none)";
  }
};

TEST_F(GemmExPlan, OverrideRunsAlignedCallsAndMisalignedFallBack) {
  const int64_t sizes[][3] = {{1, 1, 1}, {129, 67, 97}, {4096, 4096, 4096}};
  for (int i = 0; i < aegisGemmExConfigCount(); ++i) {
    const std::string name = aegisGemmExConfigName(i);
    SCOPED_TRACE(name);
    ASSERT_EQ(aegisSetGemmExOverride(h_, name.c_str()), AEGIS_STATUS_SUCCESS);
    for (const auto& s : sizes) {
      const auto p = aligned_call(s[0], s[1], s[2]);
      EXPECT_EQ(planned(p), name);
      for (bool trans_a : {false, true})
        for (bool trans_b : {false, true}) {
          auto q = p;
          q.trans_a = trans_a;
          q.trans_b = trans_b;
          q.lda = 8 * 300;
          q.ldb = 8 * 300;
          q.ab_type = aegis::gemm::tc::DType::BF16;
          EXPECT_EQ(planned(q), name);
        }
      // One element off, or an odd leading dimension: only mma.sync can run it.
      auto a_off = p;
      a_off.A = reinterpret_cast<const char*>(g_storage) + 2;
      EXPECT_EQ(planned(a_off), "gemm_sm80_mma_sync");
      auto b_off = p;
      b_off.B = reinterpret_cast<const char*>(g_storage) + 2;
      EXPECT_EQ(planned(b_off), "gemm_sm80_mma_sync");
      auto lda_odd = p;
      lda_odd.lda += 1;
      EXPECT_EQ(planned(lda_odd), "gemm_sm80_mma_sync");
      auto ldb_odd = p;
      ldb_odd.ldb += 1;
      EXPECT_EQ(planned(ldb_odd), "gemm_sm80_mma_sync");
    }
  }
}

TEST_F(GemmExPlan, OverrideClearedFollowsTheTable) {
  const auto p = aligned_call(4096, 4096, 4096);
  ASSERT_EQ(aegisSetGemmExOverride(h_, "gemm_sm80_mma_sync"), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(planned(p), "gemm_sm80_mma_sync");
  ASSERT_EQ(aegisSetGemmExOverride(h_, nullptr), AEGIS_STATUS_SUCCESS);
  const std::string cleared = planned(p);
  EXPECT_NE(cleared, "(none)");
  // Same as a handle that never had an override.
  aegisContext* fresh = aegis::detail::create_context_without_device(kDevicelessSmCount);
  ASSERT_NE(fresh, nullptr);
  fresh->cc_major = 9;
  const auto* inst = aegis::dispatch::plan_gemm_ex(*fresh, p);
  EXPECT_EQ(cleared, inst ? inst->name : "(none)");
  aegis::detail::destroy_context(fresh);
}

// Below half a wave the table's kernel would split K; up to kFewTilesMaxK the class's
// few-tiles kernel (few_tiles_config) runs the call unsplit instead, when its tiles fill the
// SMs. Deeper K keeps the split, and an override is never replaced.
TEST_F(GemmExPlan, FewTilesTakeTheFewTilesKernelInsteadOfASplit) {
  using aegis::dispatch::choose_split_k;
  using aegis::dispatch::gemm_shape_class;
  h_->tuning = aegis::dispatch::find_tuning_table("NVIDIA H200");  // the committed H200 table
  ASSERT_NE(h_->tuning, nullptr);
  h_->own_workspace_bytes = size_t{64} << 20;  // room for split-K partial sums, as on a GPU
  // A kernel that splits K across its own cluster is never split by dispatch.
  auto split_of = [&](const aegis::gemm::tc::TcInstance& inst,
                      const aegis::gemm::tc::TcGemmParams& p) {
    if (!inst.needs.split_k) return 1;
    return choose_split_k(p.m, p.n, p.k, inst.tile_m, inst.tile_n, inst.stage_k, 16,
                          h_->sm_count, h_->workspace_bytes());
  };
  int rerouted = 0, kept_split = 0, rerouted_deep = 0, kept_past_limit = 0;
  const int64_t shapes[][3] = {{1024, 1024, 1024},   {128, 4096, 4096},  {4096, 128, 4096},
                               {1024, 1024, 131072}, {128, 128, 8192},   {4096, 4096, 4096},
                               {4096, 128, 16384},   {128, 4096, 65536}};
  for (const auto& s : shapes) {
    SCOPED_TRACE(testing::Message() << s[0] << "x" << s[1] << "x" << s[2]);
    const auto p = aligned_call(s[0], s[1], s[2]);
    const auto* row = aegis::dispatch::gemm_ex_row(*h_->tuning, gemm_shape_class(s[0], s[1], s[2]));
    ASSERT_NE(row, nullptr);
    const auto* table = aegis::gemm::tc::find_tc_instance(row->config);
    ASSERT_NE(table, nullptr);
    const auto* few = aegis::gemm::tc::find_tc_instance(
        aegis::dispatch::few_tiles_config(*h_->tuning, gemm_shape_class(s[0], s[1], s[2])));
    ASSERT_NE(few, nullptr);
    const int table_split = split_of(*table, p);
    const auto plan = aegis::dispatch::plan_gemm_ex_call(*h_, p);
    ASSERT_NE(plan.instance, nullptr);
    const bool deep = s[2] > 4096;
    if (table_split > 1 && s[2] <= aegis::dispatch::kFewTilesMaxK && table != few &&
        split_of(*few, p) == 1) {
      EXPECT_EQ(plan.instance, few);
      EXPECT_EQ(plan.split_k, 1);
      ++rerouted;
      rerouted_deep += deep;
    } else {
      EXPECT_EQ(plan.instance, table);
      EXPECT_EQ(plan.split_k, table_split);
      kept_split += table_split > 1;
      kept_past_limit += table_split > 1 && s[2] > aegis::dispatch::kFewTilesMaxK;
    }
    // A forced kernel keeps its own split.
    ASSERT_EQ(aegisSetGemmExOverride(h_, table->name), AEGIS_STATUS_SUCCESS);
    const auto forced = aegis::dispatch::plan_gemm_ex_call(*h_, p);
    EXPECT_EQ(forced.instance, table);
    EXPECT_EQ(forced.split_k, table_split);
    ASSERT_EQ(aegisSetGemmExOverride(h_, nullptr), AEGIS_STATUS_SUCCESS);
  }
  // The shapes cover both sides of the rule with the committed H200 table, and K deeper than
  // 4096 on either side of kFewTilesMaxK (16384, not 65536).
  EXPECT_GT(rerouted, 0);
  EXPECT_GT(rerouted_deep, 0);
  EXPECT_GT(kept_split, 0);
  EXPECT_GT(kept_past_limit, 0);
}

// A row's one-wave kernel runs the calls whose tiles under it all fit in one wave of the
// SMs; the row's kernel runs the others.
TEST_F(GemmExPlan, OneWaveKernelWhereItsTilesFitOneWave) {
  using aegis::dispatch::GemmExTuningRow;
  int count = 0;
  const auto* const* all = aegis::gemm::tc::tc_instances(&count);
  // The narrowest and the widest TMA kernels of the build.
  const aegis::gemm::tc::TcInstance *narrow = nullptr, *wide = nullptr;
  for (int i = 0; i < count; ++i) {
    if (!all[i]->needs.tma_operands) continue;
    const int area = all[i]->tile_m * all[i]->tile_n;
    if (!narrow || area < narrow->tile_m * narrow->tile_n) narrow = all[i];
    if (!wide || area > wide->tile_m * wide->tile_n) wide = all[i];
  }
  ASSERT_NE(narrow, nullptr);
  const GemmExTuningRow rows[] = {
      {AEGIS_SHAPE_SMALL, wide->name, nullptr, narrow->name},
      {AEGIS_SHAPE_MEDIUM, wide->name, nullptr, narrow->name},
  };
  aegis::dispatch::TuningTable table{"test", "", nullptr, 0, nullptr, 0, rows, 2};
  h_->tuning = &table;
  const int64_t slots = int64_t{kDevicelessSmCount} * narrow->blocks_per_sm;
  // Exactly one wave of narrow tiles, and one tile more.
  const int64_t m = narrow->tile_m, n = narrow->tile_n * slots;
  EXPECT_EQ(planned(aligned_call(m, n, 64)), narrow->name);
  EXPECT_EQ(planned(aligned_call(m, n + 1, 64)), wide->name);
  EXPECT_EQ(planned(aligned_call(1, 1, 1)), narrow->name);
  // A call the narrow kernel cannot take (misaligned B) does not get it.
  auto misaligned = aligned_call(1, 1, 1);
  misaligned.B = reinterpret_cast<const char*>(g_storage) + 2;
  EXPECT_EQ(planned(misaligned), "gemm_sm80_mma_sync");
  // The override still wins.
  ASSERT_EQ(aegisSetGemmExOverride(h_, wide->name), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(planned(aligned_call(1, 1, 1)), wide->name);
  ASSERT_EQ(aegisSetGemmExOverride(h_, nullptr), AEGIS_STATUS_SUCCESS);
  h_->tuning = nullptr;
}

TEST_F(GemmExPlan, ArchitectureLimitsTheOverride) {
  const auto p = aligned_call(256, 256, 256);
  for (int i = 0; i < aegisGemmExConfigCount(); ++i) {
    const std::string name = aegisGemmExConfigName(i);
    ASSERT_EQ(aegisSetGemmExOverride(h_, name.c_str()), AEGIS_STATUS_SUCCESS);
    const auto* inst = aegis::gemm::tc::find_tc_instance(name.c_str());
    ASSERT_NE(inst, nullptr);
    h_->cc_major = 8;  // an A100: Hopper kernels cannot run there
    EXPECT_EQ(planned(p), inst->needs.min_cc_major <= 8 ? name : "gemm_sm80_mma_sync") << name;
    h_->cc_major = 7;  // no tensor-core path at all
    EXPECT_EQ(planned(p), "(none)") << name;
    h_->cc_major = 9;
  }
}

}  // namespace
}  // namespace aegis_test
