// Entry point of the GPU suite.
//
// Where no usable GPU exists every test reports itself SKIPPED with the reason (never fails,
// never passes silently). The environment below prints what the suite runs on.
//
// Subset for compute-sanitizer, the suite SgemmSmallSanitizer (small sizes: every config and
// transpose, split-K, alpha/beta paths, device scalars):
//   compute-sanitizer --tool memcheck build/tests/aegis_gpu_tests --gtest_filter='*Sanitizer*'
// Reproduce a failure with the seed it prints: AEGIS_TEST_SEED=0x... --gtest_filter=<test>.
// AEGIS_TEST_SKIP_LARGE=1 skips the cases with more than 2^31 elements (about 18 GiB).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <iostream>

#include "aegis/aegis.h"
#include "gpu_test_util.h"

namespace {

class GpuEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const std::string& reason = aegis_test::gpu_unavailable_reason();
    if (!reason.empty()) {
      std::cout << "[  AEGIS   ] " << reason << "\n[  AEGIS   ] every GPU test will be skipped"
                << std::endl;
      return;
    }
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, dev);
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    std::string table = "?";
    aegisHandle_t h = nullptr;
    if (aegisCreate(&h) == AEGIS_STATUS_SUCCESS) {
      table = aegisGetTuningTableName(h);
      aegisDestroy(h);
    }
    const int v = aegisGetVersion();
    std::cout << "[  AEGIS   ] device " << dev << ": " << prop.name << " (sm_" << prop.major
              << prop.minor << ", " << prop.multiProcessorCount << " SMs, "
              << (free_bytes >> 20) << " of " << (total_bytes >> 20) << " MiB free)"
              << "; aegis " << v / 10000 << "." << v / 100 % 100 << "." << v % 100 << ", "
              << aegisSgemmConfigCount() << " SGEMM configs, tuning table \"" << table << "\""
              << std::endl;
  }
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  aegis_test::register_sgemm_config_tests();
  aegis_test::register_sgemm_dispatch_tests();
  ::testing::AddGlobalTestEnvironment(new GpuEnvironment);
  return RUN_ALL_TESTS();
}
