// Common machinery of the GPU suite: GPU detection and skipping, per-test seeds, device
// buffers, and SgemmProblem, which sets up one aegisSgemm call (random inputs, poisoned
// output, guard zones, odd leading dimensions, unaligned pointers) and verifies everything
// the contract promises about it.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "aegis/aegis.h"
#include "gpu_kernels.h"

namespace aegis_test {

// "" when the suite can run here, else why not ("no CUDA device: ..."). Computed once.
const std::string& gpu_unavailable_reason();

// Skips the current test, with the reason, where no usable GPU exists.
#define AEGIS_SKIP_WITHOUT_GPU()                                             \
  do {                                                                       \
    if (!::aegis_test::gpu_unavailable_reason().empty())                     \
      GTEST_SKIP() << ::aegis_test::gpu_unavailable_reason();                \
  } while (0)

// AEGIS_TEST_SEED (decimal or 0x hex) if set, else a fresh value from std::random_device.
uint64_t test_seed();
// A seed for the index-th case of a test, derived from the test's seed.
uint64_t case_seed(uint64_t test_seed, uint64_t index);
std::string hex(uint64_t v);
// True where AEGIS_TEST_SKIP_LARGE is set (and not "0"): skip the >2^31-element cases.
bool skip_large_cases();

void check_cuda(cudaError_t err, const char* what);

// Owning device allocation (at least one element, so the pointer is never NULL).
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&p_), (count > 0 ? count : 1) * sizeof(T)),
               "cudaMalloc");
  }
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(count_, o.count_);
    return *this;
  }
  T* get() const { return p_; }
  size_t size() const { return count_; }

 private:
  T* p_ = nullptr;
  size_t count_ = 0;
};

// Base fixture: skips without a GPU, owns a handle, a seed printed on failure.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::string last_error() const { return h_ ? aegisGetLastErrorString(h_) : ""; }

  aegisHandle_t h_ = nullptr;
  uint64_t seed_ = 0;
};

// Fixture of the compute-sanitizer subset (--gtest_filter='*Sanitizer*'): small sizes only.
// Its tests live in several files, so the fixture is one type.
using SgemmSmallSanitizer = GpuTest;

// ---- one SGEMM call ------------------------------------------------------------------------

struct SgemmCase {
  aegisOperation_t transa = AEGIS_OP_N, transb = AEGIS_OP_N;
  int64_t m = 1, n = 1, k = 1;
  float alpha = 1.0f, beta = 0.0f;
  bool padded_ld = false;   // ld = rows + 3 (odd, not a multiple of 4), else max(1, rows)
  bool unaligned = false;   // each matrix starts one float into its allocation (not 16B-aligned)
  bool nan_inputs = false;  // A and B hold NaN: for calls that must not read them
  int64_t col_step = 1;     // verify every column (1) or columns 0, step, 2 step, ..., n - 1
  std::string describe() const;
};

std::string op_letters(aegisOperation_t transa, aegisOperation_t transb);  // "NT"

class SgemmProblem {
 public:
  // Allocates and fills A, B, C (with guard zones) and copies of each. C is NaN everywhere
  // where beta == 0, random otherwise.
  SgemmProblem(const SgemmCase& c, uint64_t seed);

  // aegisSgemm on h, with alpha and beta from host or device memory according to the
  // handle's pointer mode. Inputs are ready on the device before the call.
  aegisStatus_t call(aegisHandle_t h) const;

  // Waits for the device, then checks: A, B and everything of C outside its m x n window are
  // bitwise unchanged; alpha = 0 or k = 0 gives exactly beta * C0; every checked element is
  // within the normalized error bound; with beta = 0 no element is left non-finite.
  ::testing::AssertionResult verify() const;
  // Waits for the device, then checks that A, B and C are all bitwise unchanged (for calls
  // that must fail or return early).
  ::testing::AssertionResult unchanged() const;

  const SgemmCase& spec() const { return c_; }
  uint64_t seed() const { return seed_; }
  const float* A() const { return a_.get() + offset_; }
  const float* B() const { return b_.get() + offset_; }
  float* C() const { return c_buf_.get() + offset_; }
  int64_t lda() const { return lda_; }
  int64_t ldb() const { return ldb_; }
  int64_t ldc() const { return ldc_; }
  const float* alpha_host() const { return &c_.alpha; }
  const float* beta_host() const { return &c_.beta; }
  const float* alpha_device() const { return scalars_.get(); }
  const float* beta_device() const { return scalars_.get() + 1; }
  std::string describe() const;

 private:
  SgemmCase c_;
  uint64_t seed_;
  int64_t lda_, ldb_, ldc_;
  size_t offset_;
  DeviceBuffer<float> a_, a0_, b_, b0_, c_buf_, c0_, scalars_;
};

// Runs one case end to end on h: problem, call, stream sync, verify. Reports the kernel and
// split-K factor the library chose.
::testing::AssertionResult run_sgemm_case(aegisHandle_t h, const SgemmCase& c, uint64_t seed,
                                          std::string* kernel = nullptr, int* split = nullptr);

// True when the kernel name reported by aegisGetLastSgemmChoice is an instance of `config`
// (it may add the transposes: "sgemm_simt_nt_128x..." for "sgemm_simt_128x...").
bool kernel_is_config(const std::string& kernel, const std::string& config);

// Registration of the test families whose names are made at run time (from main).
void register_sgemm_config_tests();
void register_sgemm_dispatch_tests();

}  // namespace aegis_test
