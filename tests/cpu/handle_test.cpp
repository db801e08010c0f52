// Handle lifetime and settings, status strings, introspection, and the C++ wrapper's error
// path. Runs with or without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <string>

#include "aegis/aegis.h"
#include "aegis/aegis.hpp"
#include "common/context.h"
#include "deviceless.h"

namespace aegis_test {
namespace {

bool cuda_device_present() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  cudaGetLastError();
  return err == cudaSuccess && count > 0;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// ---- aegisCreate / aegisDestroy ----------------------------------------------------------

TEST(HandleCreate, MatchesDevicePresence) {
  aegisHandle_t h = reinterpret_cast<aegisHandle_t>(0x1);  // must be overwritten
  const aegisStatus_t s = aegisCreate(&h);
  if (cuda_device_present()) {
    ASSERT_EQ(s, AEGIS_STATUS_SUCCESS) << aegisGetStatusName(s);
    ASSERT_NE(h, nullptr);
    EXPECT_STREQ(aegisGetLastErrorString(h), "");
    size_t bytes = 0;
    EXPECT_EQ(aegisGetWorkspaceSize(h, &bytes), AEGIS_STATUS_SUCCESS);
    EXPECT_GT(bytes, 0u) << "a handle on a device owns a split-K workspace";
    EXPECT_EQ(aegisDestroy(h), AEGIS_STATUS_SUCCESS);
  } else {
    EXPECT_EQ(s, AEGIS_STATUS_NO_DEVICE) << aegisGetStatusName(s);
    EXPECT_EQ(h, nullptr) << "aegisCreate must set the handle to NULL when it fails";
  }
}

TEST(HandleCreate, NullArgument) { EXPECT_EQ(aegisCreate(nullptr), AEGIS_STATUS_INVALID_VALUE); }

TEST(HandleCreate, CppHandleThrowsWithoutDevice) {
  if (cuda_device_present()) {
    aegis::Handle h;
    EXPECT_NE(h.get(), nullptr);
    aegis::Handle moved(std::move(h));
    EXPECT_EQ(h.get(), nullptr);
    EXPECT_NE(moved.get(), nullptr);
    return;
  }
  try {
    aegis::Handle h;
    FAIL() << "aegis::Handle() must throw where no GPU exists";
  } catch (const aegis::Error& e) {
    EXPECT_EQ(e.status(), AEGIS_STATUS_NO_DEVICE);
    EXPECT_NE(std::string(e.what()).find("AEGIS_STATUS_NO_DEVICE"), std::string::npos) << e.what();
  }
}

TEST(HandleNull, EveryEntryPointReportsNotInitialized) {
  cudaStream_t stream = nullptr;
  aegisPointerMode_t mode = AEGIS_POINTER_MODE_HOST;
  size_t bytes = 0;
  const char* config = nullptr;
  int split = 0;
  EXPECT_EQ(aegisDestroy(nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisSetStream(nullptr, nullptr), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetStream(nullptr, &stream), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisSetPointerMode(nullptr, AEGIS_POINTER_MODE_HOST), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetPointerMode(nullptr, &mode), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisSetWorkspace(nullptr, nullptr, 0), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetWorkspaceSize(nullptr, &bytes), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisSetSgemmOverride(nullptr, nullptr, 0), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisGetLastSgemmChoice(nullptr, &config, &split), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_NE(aegisGetLastErrorString(nullptr), nullptr);
  EXPECT_NE(aegisGetTuningTableName(nullptr), nullptr);
  EXPECT_EQ(aegisSetTuningTable(nullptr, "h200"), AEGIS_STATUS_NOT_INITIALIZED);
}

// ---- status strings and version ---------------------------------------------------------

TEST(Status, EveryStatusHasNameAndString) {
  const struct {
    aegisStatus_t status;
    const char* name;
  } all[] = {
      {AEGIS_STATUS_SUCCESS, "AEGIS_STATUS_SUCCESS"},
      {AEGIS_STATUS_NOT_INITIALIZED, "AEGIS_STATUS_NOT_INITIALIZED"},
      {AEGIS_STATUS_ALLOC_FAILED, "AEGIS_STATUS_ALLOC_FAILED"},
      {AEGIS_STATUS_INVALID_VALUE, "AEGIS_STATUS_INVALID_VALUE"},
      {AEGIS_STATUS_ARCH_MISMATCH, "AEGIS_STATUS_ARCH_MISMATCH"},
      {AEGIS_STATUS_EXECUTION_FAILED, "AEGIS_STATUS_EXECUTION_FAILED"},
      {AEGIS_STATUS_NOT_SUPPORTED, "AEGIS_STATUS_NOT_SUPPORTED"},
      {AEGIS_STATUS_NO_DEVICE, "AEGIS_STATUS_NO_DEVICE"},
      {AEGIS_STATUS_INTERNAL_ERROR, "AEGIS_STATUS_INTERNAL_ERROR"},
  };
  std::set<std::string> strings;
  for (const auto& s : all) {
    SCOPED_TRACE(s.name);
    ASSERT_NE(aegisGetStatusName(s.status), nullptr);
    EXPECT_STREQ(aegisGetStatusName(s.status), s.name);
    const char* text = aegisGetStatusString(s.status);
    ASSERT_NE(text, nullptr);
    EXPECT_GT(std::strlen(text), 0u);
    strings.insert(text);
  }
  EXPECT_EQ(strings.size(), sizeof(all) / sizeof(all[0])) << "status strings must differ";
}

TEST(Status, UnknownValue) {
  for (int v : {-1, 9, 1234}) {
    const auto s = static_cast<aegisStatus_t>(v);
    ASSERT_NE(aegisGetStatusName(s), nullptr);
    ASSERT_NE(aegisGetStatusString(s), nullptr);
    EXPECT_NE(lower(aegisGetStatusName(s)).find("unknown"), std::string::npos)
        << aegisGetStatusName(s);
    EXPECT_NE(lower(aegisGetStatusString(s)).find("unknown"), std::string::npos)
        << aegisGetStatusString(s);
  }
}

TEST(Status, Version) {
  EXPECT_EQ(aegisGetVersion(),
            AEGIS_VERSION_MAJOR * 10000 + AEGIS_VERSION_MINOR * 100 + AEGIS_VERSION_PATCH);
}

TEST(Status, CppErrorCarriesStatusAndDetail) {
  const aegis::Error e(AEGIS_STATUS_INVALID_VALUE, "aegisSgemm: parameter 8 (lda = 3) ...");
  EXPECT_EQ(e.status(), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(e.detail(), "aegisSgemm: parameter 8 (lda = 3) ...");
  EXPECT_EQ(std::string(e.what()),
            "AEGIS_STATUS_INVALID_VALUE: aegisSgemm: parameter 8 (lda = 3) ...");
  const aegis::Error bare(AEGIS_STATUS_EXECUTION_FAILED, "");
  EXPECT_EQ(std::string(bare.what()), std::string("AEGIS_STATUS_EXECUTION_FAILED: ") +
                                          aegisGetStatusString(AEGIS_STATUS_EXECUTION_FAILED));
}

// ---- settings on the deviceless handle ---------------------------------------------------

using HandleSettings = DevicelessHandle;

TEST_F(HandleSettings, PointerModeRoundTrip) {
  aegisPointerMode_t mode = AEGIS_POINTER_MODE_DEVICE;
  ASSERT_EQ(aegisGetPointerMode(h_, &mode), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(mode, AEGIS_POINTER_MODE_HOST) << "host pointer mode is the default";
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisGetPointerMode(h_, &mode), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(mode, AEGIS_POINTER_MODE_DEVICE);
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_HOST), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisGetPointerMode(h_, &mode), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(mode, AEGIS_POINTER_MODE_HOST);
}

TEST_F(HandleSettings, InvalidPointerMode) {
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(aegisSetPointerMode(h_, static_cast<aegisPointerMode_t>(9)),
            AEGIS_STATUS_INVALID_VALUE);
  EXPECT_PRED2(starts_with, last_error(), "aegisSetPointerMode: parameter 2 (mode = 9) ");
  aegisPointerMode_t mode = AEGIS_POINTER_MODE_HOST;
  ASSERT_EQ(aegisGetPointerMode(h_, &mode), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(mode, AEGIS_POINTER_MODE_DEVICE) << "a rejected mode must leave the setting alone";
  EXPECT_EQ(aegisGetPointerMode(h_, nullptr), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_PRED2(starts_with, last_error(), "aegisGetPointerMode: parameter 2 (");
}

TEST_F(HandleSettings, StreamRoundTrip) {
  cudaStream_t s = cudaStreamPerThread;
  ASSERT_EQ(aegisGetStream(h_, &s), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(s, nullptr) << "the legacy default stream is the default";
  // Special stream handles need no device to be stored and read back.
  ASSERT_EQ(aegisSetStream(h_, cudaStreamPerThread), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisGetStream(h_, &s), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(s, cudaStreamPerThread);
  ASSERT_EQ(aegisSetStream(h_, nullptr), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisGetStream(h_, &s), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(aegisGetStream(h_, nullptr), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_PRED2(starts_with, last_error(), "aegisGetStream: parameter 2 (");
}

TEST_F(HandleSettings, WorkspaceRoundTrip) {
  size_t own = 1;
  ASSERT_EQ(aegisGetWorkspaceSize(h_, &own), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(own, 0u) << "a handle without a device has no workspace of its own";
  // The deviceless handle never dereferences the workspace, so host memory stands in for it.
  alignas(16) static unsigned char storage[4096];
  ASSERT_EQ(aegisSetWorkspace(h_, storage, sizeof(storage)), AEGIS_STATUS_SUCCESS) << last_error();
  size_t bytes = 0;
  ASSERT_EQ(aegisGetWorkspaceSize(h_, &bytes), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(bytes, sizeof(storage));
  ASSERT_EQ(aegisSetWorkspace(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisGetWorkspaceSize(h_, &bytes), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(bytes, own) << "NULL, 0 returns to the handle's own workspace";
  EXPECT_EQ(aegisGetWorkspaceSize(h_, nullptr), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_PRED2(starts_with, last_error(), "aegisGetWorkspaceSize: parameter 2 (");
}

TEST_F(HandleSettings, InvalidWorkspace) {
  EXPECT_EQ(aegisSetWorkspace(h_, nullptr, 1024), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_PRED2(starts_with, last_error(), "aegisSetWorkspace: parameter ");
  alignas(16) static unsigned char storage[64];
  EXPECT_EQ(aegisSetWorkspace(h_, storage + 4, 32), AEGIS_STATUS_INVALID_VALUE)
      << "partial sums are stored as float4: the workspace must be 16-byte aligned";
  EXPECT_PRED2(starts_with, last_error(), "aegisSetWorkspace: parameter 2 (");
  size_t bytes = 1;
  ASSERT_EQ(aegisGetWorkspaceSize(h_, &bytes), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(bytes, 0u) << "a rejected workspace must not be installed";
}

TEST_F(HandleSettings, SgemmOverride) {
  ASSERT_GE(aegisSgemmConfigCount(), 1);
  const char* known = aegisSgemmConfigName(0);
  ASSERT_NE(known, nullptr);

  EXPECT_EQ(aegisSetSgemmOverride(h_, "sgemm_simt_no_such_config", 1), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(),
            "aegisSetSgemmOverride: parameter 2 (config = \"sgemm_simt_no_such_config\") is not "
            "an SGEMM configuration of this build");
  EXPECT_TRUE(h_->sgemm_override_config.empty()) << "a rejected name must not be installed";

  EXPECT_EQ(aegisSetSgemmOverride(h_, known, 1), AEGIS_STATUS_SUCCESS) << last_error();
  EXPECT_EQ(h_->sgemm_override_config, known);
  EXPECT_EQ(h_->sgemm_override_max_split, 1);

  EXPECT_EQ(aegisSetSgemmOverride(h_, known, -1), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_PRED2(starts_with, last_error(), "aegisSetSgemmOverride: parameter 3 (max_split = -1)");

  EXPECT_EQ(aegisSetSgemmOverride(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
  EXPECT_TRUE(h_->sgemm_override_config.empty()) << "NULL clears the override";

  // Every compiled configuration can be forced.
  for (int i = 0; i < aegisSgemmConfigCount(); ++i)
    EXPECT_EQ(aegisSetSgemmOverride(h_, aegisSgemmConfigName(i), 8), AEGIS_STATUS_SUCCESS)
        << aegisSgemmConfigName(i);
}

TEST_F(HandleSettings, LastSgemmChoiceStartsEmpty) {
  const char* config = "x";
  int split = -1;
  ASSERT_EQ(aegisGetLastSgemmChoice(h_, &config, &split), AEGIS_STATUS_SUCCESS);
  ASSERT_NE(config, nullptr);
  EXPECT_STREQ(config, "");
  EXPECT_EQ(split, 0);
  EXPECT_EQ(aegisGetLastSgemmChoice(h_, nullptr, nullptr), AEGIS_STATUS_SUCCESS);
}

TEST_F(HandleSettings, TuningTableName) {
  EXPECT_STREQ(aegisGetTuningTableName(h_), "default");
}

TEST_F(HandleSettings, TuningTableByName) {
  ASSERT_EQ(aegisSetTuningTable(h_, "h200"), AEGIS_STATUS_SUCCESS) << last_error();
  EXPECT_STREQ(aegisGetTuningTableName(h_), "h200");
  ASSERT_EQ(aegisSetTuningTable(h_, "default"), AEGIS_STATUS_SUCCESS) << last_error();
  EXPECT_STREQ(aegisGetTuningTableName(h_), "default");
  // NULL: back to the device's own table (the deviceless handle's is the default one).
  ASSERT_EQ(aegisSetTuningTable(h_, "h200"), AEGIS_STATUS_SUCCESS) << last_error();
  ASSERT_EQ(aegisSetTuningTable(h_, nullptr), AEGIS_STATUS_SUCCESS) << last_error();
  EXPECT_STREQ(aegisGetTuningTableName(h_), "default");
  // Names are exact; an unknown one leaves the table in use as it was.
  ASSERT_EQ(aegisSetTuningTable(h_, "h200"), AEGIS_STATUS_SUCCESS) << last_error();
  for (const char* bad : {"H200", "NVIDIA H200", "", "h100"}) {
    EXPECT_EQ(aegisSetTuningTable(h_, bad), AEGIS_STATUS_INVALID_VALUE) << bad;
    EXPECT_EQ(last_error(), std::string("aegisSetTuningTable: parameter 2 (name = \"") + bad +
                                "\") is not a tuning table of this build (h200, default)");
    EXPECT_STREQ(aegisGetTuningTableName(h_), "h200") << bad;
  }
}

TEST_F(HandleSettings, LastErrorStartsEmpty) { EXPECT_EQ(last_error(), ""); }

// ---- introspection ----------------------------------------------------------------------

TEST(Introspection, SgemmConfigNames) {
  const int count = aegisSgemmConfigCount();
  ASSERT_GE(count, 1);
  std::set<std::string> names;
  for (int i = 0; i < count; ++i) {
    const char* name = aegisSgemmConfigName(i);
    ASSERT_NE(name, nullptr) << "index " << i;
    EXPECT_PRED2(starts_with, std::string(name), "sgemm_simt_");
    names.insert(name);
  }
  EXPECT_EQ(static_cast<int>(names.size()), count) << "configuration names must be unique";
  EXPECT_EQ(aegisSgemmConfigName(-1), nullptr);
  EXPECT_EQ(aegisSgemmConfigName(count), nullptr);
}

TEST(Introspection, ShapeClassNames) {
  std::set<std::string> names;
  for (int c = 0; c < AEGIS_SHAPE_COUNT; ++c) {
    const char* name = aegisShapeClassName(static_cast<aegisShapeClass_t>(c));
    ASSERT_NE(name, nullptr);
    EXPECT_GT(std::strlen(name), 0u);
    names.insert(name);
  }
  EXPECT_EQ(static_cast<int>(names.size()), static_cast<int>(AEGIS_SHAPE_COUNT));
  EXPECT_STREQ(aegisShapeClassName(AEGIS_SHAPE_SMALL), "small");
  EXPECT_STREQ(aegisShapeClassName(AEGIS_SHAPE_HUGE), "huge");
  ASSERT_NE(aegisShapeClassName(AEGIS_SHAPE_COUNT), nullptr);
  EXPECT_NE(lower(aegisShapeClassName(static_cast<aegisShapeClass_t>(42))).find("unknown"),
            std::string::npos);
}

}  // namespace
}  // namespace aegis_test
