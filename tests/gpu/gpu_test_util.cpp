#include "gpu_test_util.h"

#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>

namespace aegis_test {

void check_cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": CUDA error " + cudaGetErrorName(err) + " (" +
                             cudaGetErrorString(err) + ")");
}

const std::string& gpu_unavailable_reason() {
  static const std::string reason = [] {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    cudaGetLastError();
    if (err != cudaSuccess)
      return std::string("no CUDA device: cudaGetDeviceCount failed with ") +
             cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
    if (count == 0) return std::string("no CUDA device: cudaGetDeviceCount reports 0 devices");
    const std::string probe = probe_test_kernel();
    if (!probe.empty()) {
      cudaDeviceProp prop{};
      int dev = 0;
      cudaGetDevice(&dev);
      cudaGetDeviceProperties(&prop, dev);
      return "no usable CUDA device: this build's kernels do not run on " +
             std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
             std::to_string(prop.minor) + "; add it to AEGIS_EXTRA_CUDA_ARCHS): " + probe;
    }
    return std::string();
  }();
  return reason;
}

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

uint64_t test_seed() {
  if (const char* s = std::getenv("AEGIS_TEST_SEED"); s && *s)
    return std::strtoull(s, nullptr, 0);
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

uint64_t case_seed(uint64_t test_seed, uint64_t index) {
  uint64_t x = test_seed + 0x9E3779B97F4A7C15ull * (index + 1);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

bool skip_large_cases() {
  const char* s = std::getenv("AEGIS_TEST_SKIP_LARGE");
  return s && *s && std::string(s) != "0";
}

void GpuTest::SetUp() {
  AEGIS_SKIP_WITHOUT_GPU();
  seed_ = test_seed();
  RecordProperty("seed", hex(seed_));
  const aegisStatus_t s = aegisCreate(&h_);
  ASSERT_EQ(s, AEGIS_STATUS_SUCCESS) << "aegisCreate: " << aegisGetStatusName(s);
}

void GpuTest::TearDown() {
  if (h_) {
    EXPECT_EQ(aegisDestroy(h_), AEGIS_STATUS_SUCCESS);
    h_ = nullptr;
  }
  if (HasFailure() && seed_)
    std::cout << "[   SEED   ] reproduce with AEGIS_TEST_SEED=" << hex(seed_) << std::endl;
}

// ---- SgemmProblem ----------------------------------------------------------------------

namespace {

// Floats after each matrix that must stay untouched.
constexpr size_t kGuard = 37;

int64_t max1(int64_t v) { return v > 1 ? v : 1; }

}  // namespace

std::string op_letters(aegisOperation_t transa, aegisOperation_t transb) {
  auto letter = [](aegisOperation_t op) {
    return op == AEGIS_OP_N ? 'N' : op == AEGIS_OP_T ? 'T' : op == AEGIS_OP_C ? 'C' : '?';
  };
  return std::string{letter(transa), letter(transb)};
}

std::string SgemmCase::describe() const {
  std::ostringstream os;
  os << op_letters(transa, transb) << " m=" << m << " n=" << n << " k=" << k
     << " alpha=" << alpha << " beta=" << beta;
  if (padded_ld) os << " ld=rows+3";
  if (unaligned) os << " unaligned";
  if (nan_inputs) os << " NaN-inputs";
  if (col_step > 1) os << " col_step=" << col_step;
  return os.str();
}

std::string SgemmProblem::describe() const {
  std::ostringstream os;
  os << c_.describe() << " (lda=" << lda_ << " ldb=" << ldb_ << " ldc=" << ldc_
     << " offset=" << offset_ << " case seed=" << hex(seed_) << ")";
  return os.str();
}

SgemmProblem::SgemmProblem(const SgemmCase& c, uint64_t seed) : c_(c), seed_(seed) {
  const bool ta = c.transa != AEGIS_OP_N, tb = c.transb != AEGIS_OP_N;
  const int64_t rows_a = ta ? c.k : c.m, cols_a = ta ? c.m : c.k;
  const int64_t rows_b = tb ? c.n : c.k, cols_b = tb ? c.k : c.n;
  const int64_t pad = c.padded_ld ? 3 : 0;
  lda_ = max1(rows_a) + pad;
  ldb_ = max1(rows_b) + pad;
  ldc_ = max1(c.m) + pad;
  offset_ = c.unaligned ? 1 : 0;
  const size_t na = offset_ + static_cast<size_t>(lda_) * cols_a + kGuard;
  const size_t nb = offset_ + static_cast<size_t>(ldb_) * cols_b + kGuard;
  const size_t nc = offset_ + static_cast<size_t>(ldc_) * c.n + kGuard;
  a_ = DeviceBuffer<float>(na);
  a0_ = DeviceBuffer<float>(na);
  b_ = DeviceBuffer<float>(nb);
  b0_ = DeviceBuffer<float>(nb);
  c_buf_ = DeviceBuffer<float>(nc);
  c0_ = DeviceBuffer<float>(nc);
  scalars_ = DeviceBuffer<float>(2);

  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (c.nan_inputs) {
    fill_constant(a_.get(), na, nan);
    fill_constant(b_.get(), nb, nan);
  } else {
    fill_uniform(a_.get(), na, case_seed(seed, 1), -1.0f, 1.0f);
    fill_uniform(b_.get(), nb, case_seed(seed, 2), -1.0f, 1.0f);
  }
  if (c.beta == 0.0f)
    fill_constant(c_buf_.get(), nc, nan);  // beta = 0 must not read C: NaN must not survive
  else
    fill_uniform(c_buf_.get(), nc, case_seed(seed, 3), -1.0f, 1.0f);
  check_cuda(cudaMemcpy(a0_.get(), a_.get(), na * sizeof(float), cudaMemcpyDeviceToDevice),
             "copy A");
  check_cuda(cudaMemcpy(b0_.get(), b_.get(), nb * sizeof(float), cudaMemcpyDeviceToDevice),
             "copy B");
  check_cuda(cudaMemcpy(c0_.get(), c_buf_.get(), nc * sizeof(float), cudaMemcpyDeviceToDevice),
             "copy C");
  const float scalars[2] = {c.alpha, c.beta};
  check_cuda(cudaMemcpy(scalars_.get(), scalars, sizeof(scalars), cudaMemcpyHostToDevice),
             "copy scalars");
  // The handle's stream may not be ordered after the legacy stream (non-blocking streams).
  check_cuda(cudaDeviceSynchronize(), "prepare SGEMM problem");
}

aegisStatus_t SgemmProblem::call(aegisHandle_t h) const {
  aegisPointerMode_t mode = AEGIS_POINTER_MODE_HOST;
  aegisGetPointerMode(h, &mode);
  const bool device = mode == AEGIS_POINTER_MODE_DEVICE;
  return aegisSgemm(h, c_.transa, c_.transb, c_.m, c_.n, c_.k,
                    device ? alpha_device() : alpha_host(), A(), lda_, B(), ldb_,
                    device ? beta_device() : beta_host(), C(), ldc_);
}

::testing::AssertionResult SgemmProblem::verify() const {
  check_cuda(cudaDeviceSynchronize(), "after aegisSgemm");
  const SgemmCase& c = c_;
  if (const uint64_t n = count_changed(a_.get(), a0_.get(), a_.size()))
    return ::testing::AssertionFailure() << describe() << ": " << n << " elements of A changed";
  if (const uint64_t n = count_changed(b_.get(), b0_.get(), b_.size()))
    return ::testing::AssertionFailure() << describe() << ": " << n << " elements of B changed";
  if (const uint64_t n =
          count_changed(c_buf_.get(), c0_.get(), c_buf_.size(), offset_, ldc_, c.m, c.n))
    return ::testing::AssertionFailure()
           << describe() << ": " << n
           << " elements outside the m x n window of C changed (padding rows or guard zone)";
  if (c.alpha == 0.0f || c.k == 0) {
    if (const uint64_t n = count_not_scaled(C(), c0_.get() + offset_, ldc_, c.m, c.n, c.beta))
      return ::testing::AssertionFailure()
             << describe() << ": " << n << " elements of C are not exactly beta * C";
  }
  GemmCheckArgs args;
  args.trans_a = c.transa != AEGIS_OP_N;
  args.trans_b = c.transb != AEGIS_OP_N;
  args.m = c.m;
  args.n = c.n;
  args.k = c.k;
  args.alpha = c.alpha;
  args.beta = c.beta;
  args.A = A();
  args.lda = lda_;
  args.B = B();
  args.ldb = ldb_;
  args.C0 = c0_.get() + offset_;
  args.C = C();
  args.ldc = ldc_;
  args.col_step = c.col_step;
  const GemmCheckResult r = check_gemm(args);
  if (r.failures)
    return ::testing::AssertionFailure()
           << describe() << ": " << r.failures << " of " << r.checked
           << " checked elements exceed the error bound (largest normalized error, NaN aside: "
           << r.max_error << "); first at (" << r.fail_i << ", " << r.fail_j
           << "): got " << r.fail_value << ", reference " << r.fail_ref << ", allowed error "
           << r.fail_denominator;
  if (c.col_step > 1 && c.beta == 0.0f) {
    // Sampled check: still make sure every element was written.
    if (const uint64_t n = count_nonfinite(C(), ldc_, c.m, c.n))
      return ::testing::AssertionFailure()
             << describe() << ": " << n << " elements of C are not finite (not written?)";
  }
  return ::testing::AssertionSuccess() << describe() << ": max normalized error "
                                       << r.max_error;
}

::testing::AssertionResult SgemmProblem::unchanged() const {
  check_cuda(cudaDeviceSynchronize(), "after aegisSgemm");
  const struct {
    const char* name;
    const DeviceBuffer<float>& now;
    const DeviceBuffer<float>& before;
  } all[] = {{"A", a_, a0_}, {"B", b_, b0_}, {"C", c_buf_, c0_}};
  for (const auto& x : all)
    if (const uint64_t n = count_changed(x.now.get(), x.before.get(), x.now.size()))
      return ::testing::AssertionFailure()
             << describe() << ": " << n << " elements of " << x.name << " changed";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult run_sgemm_case(aegisHandle_t h, const SgemmCase& c, uint64_t seed,
                                          std::string* kernel, int* split) {
  const SgemmProblem p(c, seed);
  const aegisStatus_t s = p.call(h);
  if (s != AEGIS_STATUS_SUCCESS)
    return ::testing::AssertionFailure() << p.describe() << ": aegisSgemm returned "
                                         << aegisGetStatusName(s) << ": "
                                         << aegisGetLastErrorString(h);
  cudaStream_t stream = nullptr;
  aegisGetStream(h, &stream);
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize after aegisSgemm");
  const char* name = nullptr;
  int k_split = 0;
  aegisGetLastSgemmChoice(h, &name, &k_split);
  if (kernel) *kernel = name ? name : "";
  if (split) *split = k_split;
  ::testing::AssertionResult r = p.verify();
  if (!r) r << " [kernel " << (name ? name : "?") << ", split-K " << k_split << "]";
  return r;
}

bool kernel_is_config(const std::string& kernel, const std::string& config) {
  static const std::string kFamily = "sgemm_simt";
  if (kernel == config) return true;
  if (config.compare(0, kFamily.size(), kFamily) != 0) return false;
  const std::string tiles = config.substr(kFamily.size());  // "_128x128x8_w32x64_t8x8"
  return kernel.size() > tiles.size() &&
         kernel.compare(0, kFamily.size(), kFamily) == 0 &&
         kernel.compare(kernel.size() - tiles.size(), tiles.size(), tiles) == 0;
}

}  // namespace aegis_test
