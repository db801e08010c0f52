// Shared fixture of the CPU suite: a handle bound to no device, so argument checks, quick
// returns and dispatch decisions run without a GPU. Anything that would launch work on it
// fails with AEGIS_STATUS_EXECUTION_FAILED, which is how the tests tell "reached the device"
// apart from "returned early".
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "aegis/aegis.h"
#include "common/context.h"

namespace aegis_test {

// SM count of an H200, the target machine.
constexpr int kDevicelessSmCount = 132;

class DevicelessHandle : public ::testing::Test {
 protected:
  void SetUp() override {
    h_ = aegis::detail::create_context_without_device(kDevicelessSmCount);
    ASSERT_NE(h_, nullptr);
  }
  void TearDown() override {
    if (h_) aegis::detail::destroy_context(h_);
    h_ = nullptr;
  }
  std::string last_error() const { return aegisGetLastErrorString(h_); }

  aegisHandle_t h_ = nullptr;
};

inline bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace aegis_test
