// Matrices with more than 2^31 elements: every index into them needs 64-bit arithmetic.
// About 18 GiB of device memory each; skipped with the reason where less is free, or with
// AEGIS_TEST_SKIP_LARGE=1.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <iostream>
#include <string>

#include "aegis/aegis.h"
#include "gpu_test_util.h"

namespace aegis_test {
namespace {

constexpr int64_t kTwo31 = int64_t(1) << 31;

class SgemmLarge : public GpuTest {
 protected:
  // Skips unless `bytes` (plus 1 GiB of headroom) are free on the device.
  bool has_memory(size_t bytes) {
    size_t free_bytes = 0, total_bytes = 0;
    check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    return free_bytes >= bytes + (size_t(1) << 30);
  }
  void run(const SgemmCase& c, size_t bytes) {
    if (skip_large_cases()) GTEST_SKIP() << "AEGIS_TEST_SKIP_LARGE is set";
    if (!has_memory(bytes)) {
      size_t free_bytes = 0, total_bytes = 0;
      cudaMemGetInfo(&free_bytes, &total_bytes);
      GTEST_SKIP() << "needs " << (bytes >> 30) + 1 << " GiB of free device memory, "
                   << (free_bytes >> 30) << " GiB free";
    }
    std::string kernel;
    int split = 0;
    EXPECT_TRUE(run_sgemm_case(h_, c, seed_, &kernel, &split));
    std::cout << "[  AEGIS   ] " << c.describe() << ": " << kernel << ", split-K " << split
              << std::endl;
  }
};

// op(A) is 65539 x 32776: 2^31 + 622,616 elements (8.6 GB), plus its copy.
SgemmCase a_large(aegisOperation_t ta) {
  SgemmCase c;
  c.transa = ta;
  c.m = 65536 + 3;
  c.n = 4;
  c.k = 32768 + 8;
  c.alpha = ta == AEGIS_OP_N ? -1.5f : 1.0f;
  c.beta = ta == AEGIS_OP_N ? 0.5f : 0.0f;
  return c;
}

size_t a_bytes(const SgemmCase& c) { return size_t(2) * c.m * c.k * sizeof(float); }

TEST_F(SgemmLarge, AOver2e31Elements_NN) {
  const SgemmCase c = a_large(AEGIS_OP_N);
  ASSERT_GT(c.m * c.k, kTwo31);
  run(c, a_bytes(c));
}

TEST_F(SgemmLarge, AOver2e31Elements_TN) {
  const SgemmCase c = a_large(AEGIS_OP_T);
  ASSERT_GT(c.m * c.k, kTwo31);
  run(c, a_bytes(c));
}

TEST_F(SgemmLarge, COver2e31Elements) {
  // C is 46349 x 46349: 2^31 + 746,153 elements; beta = 0, so it starts as NaN.
  SgemmCase c;
  c.m = 46349;
  c.n = 46349;
  c.k = 8;
  c.alpha = 1.0f;
  c.beta = 0.0f;
  ASSERT_GT(c.m * c.n, kTwo31);
  run(c, size_t(2) * c.m * c.n * sizeof(float));
}

}  // namespace
}  // namespace aegis_test
