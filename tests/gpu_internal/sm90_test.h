// Base fixture of the white-box device tests: skipped, with the reason, where no device runs
// the library's sm_90a code.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

namespace aegis_internal_test {

class Sm90Test : public ::testing::Test {
 protected:
  void SetUp() override {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      cudaGetLastError();
      GTEST_SKIP() << "no CUDA device on this machine";
    }
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    if (prop.major < 9) GTEST_SKIP() << "the library is built for sm_90a";
    sm_count_ = prop.multiProcessorCount;
  }
  int sm_count_ = 0;
};

}  // namespace aegis_internal_test
