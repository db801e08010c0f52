// Fault-tolerance API of the handle (src/api/ft.cpp) on a handle bound to no device:
// argument checks and their messages, set/get round trips, unsupported levels, the limits
// on armed faults (64 per handle, 8 per call), aegisClearFaults, null handles; white-box
// checks of what is armed (aegisContext::ft_armed) and that calls which launch nothing
// consume nothing.
//
// Parameter positions, handle not counted as in reference BLAS: every setter and getter has
// its value at 2; aegisInjectFaults: 2 faults (every field of faults[i] reports as 2),
// 3 count.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "common/context.h"
#include "deviceless.h"

namespace aegis_test {
namespace {

// A valid fault: an ADD into the accumulator of C(3, 4) after K tile 2 of the next call.
aegisFault_t valid_fault(int64_t call = 0) {
  aegisFault_t f{};
  f.call = call;
  f.row = 3;
  f.col = 4;
  f.k_step = 2;
  f.kind = AEGIS_FAULT_ADD;
  f.target = AEGIS_FAULT_TARGET_ACCUMULATOR;
  f.bit = 0;
  f.value = 1000.0f;
  return f;
}

class FtApiTest : public DevicelessHandle {
 protected:
  // Expects INVALID_VALUE with exactly `message` as the last error, and nothing armed.
  void expect_inject_message(const std::vector<aegisFault_t>& faults, const std::string& message) {
    const size_t before = h_->ft_armed.size();
    EXPECT_EQ(aegisInjectFaults(h_, faults.data(), static_cast<int>(faults.size())),
              AEGIS_STATUS_INVALID_VALUE);
    EXPECT_EQ(last_error(), message);
    EXPECT_EQ(h_->ft_armed.size(), before) << "a rejected batch must arm nothing";
  }
  void expect_inject_position(const std::vector<aegisFault_t>& faults, int position) {
    const size_t before = h_->ft_armed.size();
    EXPECT_EQ(aegisInjectFaults(h_, faults.data(), static_cast<int>(faults.size())),
              AEGIS_STATUS_INVALID_VALUE);
    EXPECT_PRED2(starts_with, last_error(),
                 "aegisInjectFaults: parameter " + std::to_string(position) + " (");
    EXPECT_EQ(h_->ft_armed.size(), before) << "a rejected batch must arm nothing";
  }
  aegisStatus_t inject(const std::vector<aegisFault_t>& faults) {
    return aegisInjectFaults(h_, faults.data(), static_cast<int>(faults.size()));
  }
};

// ---- null handle -----------------------------------------------------------------------

TEST(FtApiNullHandle, EveryEntryPointReportsNotInitialized) {
  aegisFtMode_t mode = AEGIS_FT_OFF;
  aegisFtLevel_t level = AEGIS_FT_LEVEL_BLOCK;
  int64_t interval = 0;
  aegisFtStats_t stats{};
  const aegisFault_t f = valid_fault();
  EXPECT_EQ(aegisSetFtMode(nullptr, AEGIS_FT_CORRECT), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetFtMode(nullptr, &mode), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisSetFtLevel(nullptr, AEGIS_FT_LEVEL_BLOCK), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetFtLevel(nullptr, &level), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisSetFtVerifyInterval(nullptr, 4), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetFtVerifyInterval(nullptr, &interval), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisInjectFaults(nullptr, &f, 1), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisClearFaults(nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetFtStatsSync(nullptr, &stats), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisResetFtStats(nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  // Also with bad arguments: there is no handle to report them on.
  EXPECT_EQ(aegisSetFtMode(nullptr, static_cast<aegisFtMode_t>(9)), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetFtMode(nullptr, nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisSetFtLevel(nullptr, AEGIS_FT_LEVEL_WARP), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetFtLevel(nullptr, nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisSetFtVerifyInterval(nullptr, -1), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetFtVerifyInterval(nullptr, nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisInjectFaults(nullptr, nullptr, -1), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetFtStatsSync(nullptr, nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_STREQ(aegisGetLastErrorString(nullptr), "aegis: null handle");
}

// ---- mode ------------------------------------------------------------------------------

TEST_F(FtApiTest, DefaultsAreOffBlockAndEndOnlyChecks) {
  aegisFtMode_t mode = AEGIS_FT_CORRECT;
  aegisFtLevel_t level = AEGIS_FT_LEVEL_NONFUSED;
  int64_t interval = -7;
  ASSERT_EQ(aegisGetFtMode(h_, &mode), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisGetFtLevel(h_, &level), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisGetFtVerifyInterval(h_, &interval), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(mode, AEGIS_FT_OFF);
  EXPECT_EQ(level, AEGIS_FT_LEVEL_BLOCK);
  EXPECT_EQ(interval, 0);
  EXPECT_TRUE(h_->ft_armed.empty());
  EXPECT_EQ(h_->ft_serial, 0);
}

TEST_F(FtApiTest, ModeRoundTrip) {
  for (aegisFtMode_t m : {AEGIS_FT_DETECT, AEGIS_FT_CORRECT, AEGIS_FT_OFF, AEGIS_FT_CORRECT}) {
    ASSERT_EQ(aegisSetFtMode(h_, m), AEGIS_STATUS_SUCCESS) << m;
    aegisFtMode_t got = static_cast<aegisFtMode_t>(-1);
    ASSERT_EQ(aegisGetFtMode(h_, &got), AEGIS_STATUS_SUCCESS);
    EXPECT_EQ(got, m);
  }
}

TEST_F(FtApiTest, SetModeRejectsUnknownValues) {
  ASSERT_EQ(aegisSetFtMode(h_, AEGIS_FT_DETECT), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(aegisSetFtMode(h_, static_cast<aegisFtMode_t>(3)), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(),
            "aegisSetFtMode: parameter 2 (mode = 3) must be AEGIS_FT_OFF, AEGIS_FT_DETECT or "
            "AEGIS_FT_CORRECT");
  EXPECT_EQ(aegisSetFtMode(h_, static_cast<aegisFtMode_t>(-1)), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_PRED2(starts_with, last_error(), "aegisSetFtMode: parameter 2 (mode = -1)");
  aegisFtMode_t got = AEGIS_FT_OFF;
  ASSERT_EQ(aegisGetFtMode(h_, &got), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(got, AEGIS_FT_DETECT) << "a rejected mode must leave the previous one";
}

TEST_F(FtApiTest, GetModeNull) {
  EXPECT_EQ(aegisGetFtMode(h_, nullptr), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(), "aegisGetFtMode: parameter 2 (mode = NULL) must not be NULL");
}

// ---- level -----------------------------------------------------------------------------

TEST_F(FtApiTest, LevelRoundTrip) {
  for (aegisFtLevel_t l : {AEGIS_FT_LEVEL_NONFUSED, AEGIS_FT_LEVEL_WARP, AEGIS_FT_LEVEL_THREAD,
                           AEGIS_FT_LEVEL_BLOCK, AEGIS_FT_LEVEL_NONFUSED}) {
    ASSERT_EQ(aegisSetFtLevel(h_, l), AEGIS_STATUS_SUCCESS) << l;
    aegisFtLevel_t got = static_cast<aegisFtLevel_t>(-1);
    ASSERT_EQ(aegisGetFtLevel(h_, &got), AEGIS_STATUS_SUCCESS);
    EXPECT_EQ(got, l);
  }
}

TEST_F(FtApiTest, SetLevelRejectsUnknownValues) {
  EXPECT_EQ(aegisSetFtLevel(h_, static_cast<aegisFtLevel_t>(4)), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(), "aegisSetFtLevel: parameter 2 (level = 4) is not an aegisFtLevel_t");
  EXPECT_EQ(aegisSetFtLevel(h_, static_cast<aegisFtLevel_t>(-2)), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_PRED2(starts_with, last_error(), "aegisSetFtLevel: parameter 2 (level = -2)");
  aegisFtLevel_t got = AEGIS_FT_LEVEL_NONFUSED;
  ASSERT_EQ(aegisGetFtLevel(h_, &got), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(got, AEGIS_FT_LEVEL_BLOCK);
}

TEST_F(FtApiTest, GetLevelNull) {
  EXPECT_EQ(aegisGetFtLevel(h_, nullptr), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(), "aegisGetFtLevel: parameter 2 (level = NULL) must not be NULL");
}

// ---- verify interval ---------------------------------------------------------------------

TEST_F(FtApiTest, VerifyIntervalRoundTrip) {
  for (int64_t v : {int64_t(1), int64_t(7), int64_t(INT32_MAX), int64_t(0), int64_t(64)}) {
    ASSERT_EQ(aegisSetFtVerifyInterval(h_, v), AEGIS_STATUS_SUCCESS) << v;
    int64_t got = -1;
    ASSERT_EQ(aegisGetFtVerifyInterval(h_, &got), AEGIS_STATUS_SUCCESS);
    EXPECT_EQ(got, v);
  }
}

TEST_F(FtApiTest, VerifyIntervalRange) {
  ASSERT_EQ(aegisSetFtVerifyInterval(h_, 5), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(aegisSetFtVerifyInterval(h_, -1), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(),
            "aegisSetFtVerifyInterval: parameter 2 (k_tiles = -1) must be in 0..2^31-1");
  EXPECT_EQ(aegisSetFtVerifyInterval(h_, int64_t(INT32_MAX) + 1), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(),
            "aegisSetFtVerifyInterval: parameter 2 (k_tiles = 2147483648) must be in 0..2^31-1");
  EXPECT_EQ(aegisSetFtVerifyInterval(h_, INT64_MIN), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_PRED2(starts_with, last_error(), "aegisSetFtVerifyInterval: parameter 2 (");
  int64_t got = 0;
  ASSERT_EQ(aegisGetFtVerifyInterval(h_, &got), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(got, 5) << "a rejected interval must leave the previous one";
}

TEST_F(FtApiTest, GetVerifyIntervalNull) {
  EXPECT_EQ(aegisGetFtVerifyInterval(h_, nullptr), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(),
            "aegisGetFtVerifyInterval: parameter 2 (k_tiles = NULL) must not be NULL");
}

// ---- aegisInjectFaults: arguments ----------------------------------------------------------

TEST_F(FtApiTest, InjectCountAndArray) {
  EXPECT_EQ(aegisInjectFaults(h_, nullptr, -1), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(), "aegisInjectFaults: parameter 3 (count = -1) must be >= 0");
  const aegisFault_t f = valid_fault();
  EXPECT_EQ(aegisInjectFaults(h_, &f, -5), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_PRED2(starts_with, last_error(), "aegisInjectFaults: parameter 3 (count = -5)");
  EXPECT_EQ(aegisInjectFaults(h_, nullptr, 2), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(),
            "aegisInjectFaults: parameter 2 (faults = NULL) must not be NULL when count > 0");
  // Nothing to arm: NULL is fine.
  EXPECT_EQ(aegisInjectFaults(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(aegisInjectFaults(h_, &f, 0), AEGIS_STATUS_SUCCESS);
  EXPECT_TRUE(h_->ft_armed.empty());
}

TEST_F(FtApiTest, InjectFieldCallRowColumn) {
  aegisFault_t f = valid_fault();
  f.call = -1;
  expect_inject_message({f}, "aegisInjectFaults: parameter 2 (faults[0].call = -1) must be >= 0");
  f = valid_fault();
  f.row = -3;
  expect_inject_message({f}, "aegisInjectFaults: parameter 2 (faults[0].row = -3) must be >= 0");
  f = valid_fault();
  f.col = -4;
  expect_inject_message({f}, "aegisInjectFaults: parameter 2 (faults[0].col = -4) must be >= 0");
  f = valid_fault();
  f.col = INT64_MIN;
  expect_inject_position({f}, 2);
}

TEST_F(FtApiTest, InjectFieldKStep) {
  aegisFault_t f = valid_fault();
  f.k_step = -2;
  expect_inject_message({f},
                        "aegisInjectFaults: parameter 2 (faults[0].k_step = -2) must be >= 0 or "
                        "AEGIS_FAULT_K_EPILOGUE");
  f.k_step = INT64_MIN;
  expect_inject_position({f}, 2);
  // Epilogue faults hit the output value: there is no checksum to hit there.
  for (aegisFaultTarget_t t :
       {AEGIS_FAULT_TARGET_COLUMN_CHECKSUM, AEGIS_FAULT_TARGET_ROW_CHECKSUM}) {
    f = valid_fault();
    f.k_step = AEGIS_FAULT_K_EPILOGUE;
    f.target = t;
    expect_inject_message({f},
                          "aegisInjectFaults: parameter 2 (faults[0].k_step = "
                          "AEGIS_FAULT_K_EPILOGUE) applies only to AEGIS_FAULT_TARGET_ACCUMULATOR");
  }
  // Valid: the epilogue of the accumulator, step 0, a step far past any K loop (the last).
  for (int64_t k : {int64_t(AEGIS_FAULT_K_EPILOGUE), int64_t(0), int64_t(1) << 40}) {
    f = valid_fault();
    f.k_step = k;
    EXPECT_EQ(inject({f}), AEGIS_STATUS_SUCCESS) << "k_step " << k << ": " << last_error();
  }
  EXPECT_EQ(h_->ft_armed.size(), 3u);
}

TEST_F(FtApiTest, InjectFieldKindTargetBit) {
  aegisFault_t f = valid_fault();
  f.kind = static_cast<aegisFaultKind_t>(2);
  expect_inject_message({f},
                        "aegisInjectFaults: parameter 2 (faults[0].kind = 2) must be "
                        "AEGIS_FAULT_BITFLIP or AEGIS_FAULT_ADD");
  f.kind = static_cast<aegisFaultKind_t>(-1);
  expect_inject_position({f}, 2);
  f = valid_fault();
  f.target = static_cast<aegisFaultTarget_t>(3);
  expect_inject_message({f},
                        "aegisInjectFaults: parameter 2 (faults[0].target = 3) is not an "
                        "aegisFaultTarget_t");
  f.target = static_cast<aegisFaultTarget_t>(-1);
  expect_inject_position({f}, 2);
  f = valid_fault();
  f.kind = AEGIS_FAULT_BITFLIP;
  for (int bit : {-1, 32, 1000}) {
    f.bit = bit;
    expect_inject_message({f}, "aegisInjectFaults: parameter 2 (faults[0].bit = " +
                                   std::to_string(bit) + ") must be in 0..31");
  }
  // bit is read only for bit flips.
  f = valid_fault();
  f.kind = AEGIS_FAULT_ADD;
  f.bit = 1000;
  EXPECT_EQ(inject({f}), AEGIS_STATUS_SUCCESS) << last_error();
  // Every valid kind, target and bit.
  h_->ft_armed.clear();
  for (aegisFaultTarget_t t : {AEGIS_FAULT_TARGET_ACCUMULATOR, AEGIS_FAULT_TARGET_COLUMN_CHECKSUM,
                               AEGIS_FAULT_TARGET_ROW_CHECKSUM})
    for (int bit : {0, 10, 23, 30, 31}) {
      f = valid_fault(bit % 7);  // spread over calls: at most 8 per call
      f.kind = AEGIS_FAULT_BITFLIP;
      f.target = t;
      f.bit = bit;
      EXPECT_EQ(inject({f}), AEGIS_STATUS_SUCCESS)
          << "target " << t << " bit " << bit << ": " << last_error();
    }
  EXPECT_EQ(h_->ft_armed.size(), 15u);
}

TEST_F(FtApiTest, InjectNamesTheIndexOfTheBadFault) {
  std::vector<aegisFault_t> batch = {valid_fault(0), valid_fault(1), valid_fault(2)};
  batch[2].row = -9;
  expect_inject_message(batch, "aegisInjectFaults: parameter 2 (faults[2].row = -9) must be >= 0");
  batch[2].row = 1;
  batch[1].kind = AEGIS_FAULT_BITFLIP;
  batch[1].bit = 40;
  expect_inject_message(batch,
                        "aegisInjectFaults: parameter 2 (faults[1].bit = 40) must be in 0..31");
  batch[1].bit = 4;
  EXPECT_EQ(inject(batch), AEGIS_STATUS_SUCCESS) << last_error();
  EXPECT_EQ(h_->ft_armed.size(), 3u);
}

// ---- aegisInjectFaults: what is armed --------------------------------------------------------

TEST_F(FtApiTest, ArmedFaultsKeepTheirFieldsAndAbsoluteCall) {
  // White-box: each armed fault carries the absolute index of the FT call it fires in.
  h_->ft_serial = 5;  // as if five FT calls had run
  aegisFault_t f = valid_fault(2);
  f.row = 100;
  f.col = 200;
  f.k_step = 9;
  f.kind = AEGIS_FAULT_BITFLIP;
  f.target = AEGIS_FAULT_TARGET_ROW_CHECKSUM;
  f.bit = 30;
  f.value = -2.5f;
  ASSERT_EQ(inject({valid_fault(0), f}), AEGIS_STATUS_SUCCESS) << last_error();
  ASSERT_EQ(h_->ft_armed.size(), 2u);
  EXPECT_EQ(h_->ft_armed[0].serial, 5);
  EXPECT_EQ(h_->ft_armed[1].serial, 7);
  const aegisFault_t& a = h_->ft_armed[1].fault;
  EXPECT_EQ(a.call, 2);
  EXPECT_EQ(a.row, 100);
  EXPECT_EQ(a.col, 200);
  EXPECT_EQ(a.k_step, 9);
  EXPECT_EQ(a.kind, AEGIS_FAULT_BITFLIP);
  EXPECT_EQ(a.target, AEGIS_FAULT_TARGET_ROW_CHECKSUM);
  EXPECT_EQ(a.bit, 30);
  EXPECT_EQ(a.value, -2.5f);
}

TEST_F(FtApiTest, SixtyFourArmedAtMost) {
  // 8 faults for each of the next 8 calls: 64, the limit.
  for (int64_t call = 0; call < 8; ++call) {
    std::vector<aegisFault_t> batch(8, valid_fault(call));
    ASSERT_EQ(inject(batch), AEGIS_STATUS_SUCCESS) << "call " << call << ": " << last_error();
  }
  ASSERT_EQ(h_->ft_armed.size(), 64u);
  expect_inject_message({valid_fault(20)},
                        "aegisInjectFaults: parameter 3 (count = 1) exceeds the 0 faults still "
                        "free to arm");
  aegisClearFaults(h_);
  ASSERT_TRUE(h_->ft_armed.empty());
  // One batch larger than the limit, with at most 8 per call (so only the total is wrong).
  std::vector<aegisFault_t> big;
  for (int64_t i = 0; i < 65; ++i) big.push_back(valid_fault(i / 8));
  expect_inject_message(big,
                        "aegisInjectFaults: parameter 3 (count = 65) exceeds the 64 faults still "
                        "free to arm");
  big.pop_back();
  EXPECT_EQ(inject(big), AEGIS_STATUS_SUCCESS) << last_error();
  EXPECT_EQ(h_->ft_armed.size(), 64u);
  // Partly full: the message names what is left.
  aegisClearFaults(h_);
  ASSERT_EQ(inject(std::vector<aegisFault_t>(5, valid_fault(0))), AEGIS_STATUS_SUCCESS);
  std::vector<aegisFault_t> rest;
  for (int64_t i = 0; i < 60; ++i) rest.push_back(valid_fault(1 + i / 8));
  expect_inject_message(rest,
                        "aegisInjectFaults: parameter 3 (count = 60) exceeds the 59 faults still "
                        "free to arm");
  rest.pop_back();
  EXPECT_EQ(inject(rest), AEGIS_STATUS_SUCCESS) << last_error();
  EXPECT_EQ(h_->ft_armed.size(), 64u);
}

TEST_F(FtApiTest, EightPerCallAtMost) {
  // Nine in one batch for the same call.
  expect_inject_message(std::vector<aegisFault_t>(9, valid_fault(3)),
                        "aegisInjectFaults: parameter 2 (faults[0].call = 3) would get more than 8 "
                        "faults");
  // Eight is fine; a ninth in a later batch for the same call is not, for another call it is.
  ASSERT_EQ(inject(std::vector<aegisFault_t>(8, valid_fault(3))), AEGIS_STATUS_SUCCESS)
      << last_error();
  expect_inject_position({valid_fault(3)}, 2);
  EXPECT_NE(last_error().find("would get more than 8"), std::string::npos) << last_error();
  EXPECT_EQ(inject({valid_fault(2), valid_fault(4)}), AEGIS_STATUS_SUCCESS) << last_error();
  // The bad fault is named even when it is not the first of its batch.
  std::vector<aegisFault_t> batch = {valid_fault(0), valid_fault(3)};
  expect_inject_message(batch,
                        "aegisInjectFaults: parameter 2 (faults[1].call = 3) would get more than 8 "
                        "faults");
  EXPECT_EQ(h_->ft_armed.size(), 10u);
}

TEST_F(FtApiTest, PerCallLimitCountsAbsoluteCalls) {
  // Armed while 4 FT calls had run: call 3 is absolute call 7. After one more FT call, the
  // same absolute call is call 2: its faults add up.
  h_->ft_serial = 4;
  ASSERT_EQ(inject(std::vector<aegisFault_t>(6, valid_fault(3))), AEGIS_STATUS_SUCCESS);
  h_->ft_serial = 5;
  ASSERT_EQ(inject(std::vector<aegisFault_t>(2, valid_fault(2))), AEGIS_STATUS_SUCCESS)
      << last_error();
  expect_inject_position({valid_fault(2)}, 2);
  EXPECT_EQ(inject({valid_fault(3)}), AEGIS_STATUS_SUCCESS) << "absolute call 8: " << last_error();
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(h_->ft_armed[i].serial, 7) << i;
  EXPECT_EQ(h_->ft_armed[8].serial, 8);
}

TEST_F(FtApiTest, ClearFaults) {
  EXPECT_EQ(aegisClearFaults(h_), AEGIS_STATUS_SUCCESS) << "clearing nothing is fine";
  ASSERT_EQ(inject({valid_fault(0), valid_fault(1), valid_fault(9)}), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(h_->ft_armed.size(), 3u);
  EXPECT_EQ(aegisClearFaults(h_), AEGIS_STATUS_SUCCESS);
  EXPECT_TRUE(h_->ft_armed.empty());
  // The full budget is free again, 8 for the call that had faults.
  EXPECT_EQ(inject(std::vector<aegisFault_t>(8, valid_fault(0))), AEGIS_STATUS_SUCCESS)
      << last_error();
  // Clearing leaves settings alone.
  ASSERT_EQ(aegisSetFtMode(h_, AEGIS_FT_DETECT), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisSetFtVerifyInterval(h_, 3), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(aegisClearFaults(h_), AEGIS_STATUS_SUCCESS);
  aegisFtMode_t mode = AEGIS_FT_OFF;
  int64_t interval = 0;
  aegisGetFtMode(h_, &mode);
  aegisGetFtVerifyInterval(h_, &interval);
  EXPECT_EQ(mode, AEGIS_FT_DETECT);
  EXPECT_EQ(interval, 3);
}

// ---- statistics on a handle without a device -------------------------------------------------

TEST_F(FtApiTest, StatsNeedADevice) {
  EXPECT_EQ(aegisGetFtStatsSync(h_, nullptr), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(), "aegisGetFtStatsSync: parameter 2 (stats = NULL) must not be NULL");
  aegisFtStats_t stats{};
  EXPECT_EQ(aegisGetFtStatsSync(h_, &stats), AEGIS_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(last_error(), "aegisGetFtStatsSync: the handle has no device");
  // Reset has nothing to zero here and succeeds.
  EXPECT_EQ(aegisResetFtStats(h_), AEGIS_STATUS_SUCCESS);
}

// ---- aegisSgemm under FT: calls that launch nothing consume nothing ---------------------------

TEST_F(FtApiTest, SgemmThatLaunchesNothingConsumesNoFault) {
  float storage[64] = {};
  const float one = 1.0f, zero = 0.0f;
  ASSERT_EQ(aegisSetFtMode(h_, AEGIS_FT_CORRECT), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(inject({valid_fault(0)}), AEGIS_STATUS_SUCCESS);
  // A bad argument.
  EXPECT_EQ(aegisSgemm(h_, AEGIS_OP_N, AEGIS_OP_N, 4, 4, 4, &one, storage, 2, storage, 4, &zero,
                       storage, 4),
            AEGIS_STATUS_INVALID_VALUE);
  // Quick returns: empty C; alpha = 0 and beta = 1.
  EXPECT_EQ(aegisSgemm(h_, AEGIS_OP_N, AEGIS_OP_N, 0, 4, 4, &one, storage, 1, storage, 4, &zero,
                       storage, 1),
            AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(aegisSgemm(h_, AEGIS_OP_N, AEGIS_OP_N, 4, 4, 4, &zero, storage, 4, storage, 4, &one,
                       storage, 4),
            AEGIS_STATUS_SUCCESS);
  // A valid call that reaches the (missing) device.
  EXPECT_EQ(aegisSgemm(h_, AEGIS_OP_N, AEGIS_OP_T, 4, 4, 4, &one, storage, 4, storage, 4, &zero,
                       storage, 4),
            AEGIS_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(h_->ft_serial, 0) << "no FT GEMM ran";
  ASSERT_EQ(h_->ft_armed.size(), 1u) << "the armed fault waits for an FT GEMM that runs";
  EXPECT_EQ(h_->ft_armed[0].serial, 0);
}

}  // namespace
}  // namespace aegis_test
