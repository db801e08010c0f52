// Tensor-core GEMM (aegisGemmEx, aegisHgemm) on the device.
//
// Every kernel of the build (aegisGemmExConfigName) is forced with aegisSetGemmExOverride and
// must be the one aegisGetLastGemmExChoice reports whenever the call is aligned (A and B
// 16-byte aligned, lda and ldb multiples of 8); misaligned calls must report the mma.sync
// fallback. Inputs are fresh random values exact in their type (gemm_ex_kernels.h), with NaN
// in every element of A's and B's allocations outside the matrices; C is NaN where beta = 0;
// A, B and C outside its window must come back bitwise unchanged; the result is checked
// element by element against an FP64 reference with the bound derived in gemm_ex_kernels.cu.
//
// Tests:
//   GemmEx/GemmExKernelTypes.<test>/<kernel>_<A,B type>_<C type>, e.g.
//   GemmEx/GemmExKernelTypes.EdgeSizes/gemm_sm90_128x256x64_s4_bf16_f32
//     EdgeSizes   1..257 around the tile edges, primes, k below a tile (1, 8, 17) and deep
//                 (4096), 1:10 and 10:1 aspects, ld above the minimum; all four transposes
//     Misaligned  A or B one element off, odd lda / ldb: the mma.sync fallback runs them;
//                 C one element off, odd ldc: the forced kernel does
//     AlphaBeta   alpha {1, -1.5, 0} x beta {0, 1, 0.5, -2}, host and device scalars
//     Large       one product of more tiles than the GPU has SMs (sampled columns)
//   GemmEx/GemmExKernel.<test>/<kernel>
//     Hgemm                         aegisHgemm, half scalars on the host and on the device
//     DeviceAlphaZeroIgnoresInputs  device alpha = 0 with NaN in A and B: C = beta C
//     SameBitsEveryRun              two calls with split K give C bit for bit the same
//   GemmExScalars.*    k = 0, quick returns, NULL inputs, errors (default dispatch)
//   GemmExDispatch.*   the default choice, the override cleared, OP_C, a non-blocking stream
//   GemmExCppApi.*     aegis::gemm overloads for __half / __nv_bfloat16
//   GemmExChecker.*    the error bound catches a product missing from every element
//   GemmExSanitizer.*  the compute-sanitizer subset (tiny calls, every kernel and transpose)
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "aegis/aegis.hpp"
#include "gemm_ex_kernels.h"
#include "gpu_test_util.h"

namespace aegis_test {
namespace {

const char kMmaSync[] = "gemm_sm80_mma_sync";

// Elements after each matrix that must stay untouched.
constexpr size_t kGuard = 37;

int64_t max1(int64_t v) { return v > 1 ? v : 1; }
int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// Compute capability major of the current device (0 if unknown).
int device_cc_major() {
  static const int major = [] {
    int dev = 0, value = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&value, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return value;
  }();
  return major;
}

// The architecture a kernel's name says it needs: "gemm_sm90_..." -> 9, "gemm_sm80_..." -> 8.
int kernel_min_cc_major(const std::string& kernel) {
  const size_t at = kernel.find("_sm");
  if (at == std::string::npos) return 0;
  int digits = 0;
  size_t i = at + 3;
  while (i < kernel.size() && kernel[i] >= '0' && kernel[i] <= '9')
    digits = digits * 10 + (kernel[i++] - '0');
  return digits / 10;
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (int i = 0; i < aegisGemmExConfigCount(); ++i) names.push_back(aegisGemmExConfigName(i));
  return names;
}

bool is_listed_kernel(const std::string& name) {
  for (const std::string& k : kernel_names())
    if (k == name) return true;
  return false;
}

// ---- one call -------------------------------------------------------------------------------

// Leading dimension of a matrix with `rows` rows.
enum class Ld {
  Tight,    // max(1, rows)
  Aligned,  // max(1, rows) rounded up to a multiple of 8 elements (what TMA needs)
  Padded,   // that plus 8: larger than the minimum, still aligned
  Odd       // an odd value > rows: no TMA kernel can take it
};

int64_t leading_dim(Ld ld, int64_t rows) {
  const int64_t r = max1(rows);
  switch (ld) {
    case Ld::Tight: return r;
    case Ld::Aligned: return round_up(r, 8);
    case Ld::Padded: return round_up(r, 8) + 8;
    case Ld::Odd: return r % 2 == 0 ? r + 1 : r + 2;
  }
  return r;
}

struct GemmExCase {
  aegisDataType_t ab = AEGIS_R_16F, c = AEGIS_R_32F;
  aegisOperation_t transa = AEGIS_OP_N, transb = AEGIS_OP_N;
  int64_t m = 1, n = 1, k = 1;
  float alpha = 1.0f, beta = 0.0f;
  Ld ld_a = Ld::Aligned, ld_b = Ld::Aligned;
  int64_t ldc_extra = 0;  // ldc = max(1, m) + ldc_extra
  // Elements between the start of each allocation (256-byte aligned) and its matrix.
  int64_t a_offset = 0, b_offset = 0, c_offset = 0;
  bool grid = false;        // TypedFill::Grid inputs (exact FP32 sums), else Uniform
  bool nan_inputs = false;  // A and B hold NaN: for calls that must not read them
  bool hgemm = false;       // through aegisHgemm: ab = c = 16F, half scalars
  int64_t col_step = 1;     // verify every column (1) or a sample

  int64_t lda() const { return leading_dim(ld_a, transa == AEGIS_OP_N ? m : k); }
  int64_t ldb() const { return leading_dim(ld_b, transb == AEGIS_OP_N ? k : n); }
  int64_t ldc() const { return max1(m) + ldc_extra; }
  // What a TMA kernel needs of the call: A and B 16-byte aligned, lda and ldb multiples of
  // 16 bytes.
  bool aligned() const {
    const int64_t e = static_cast<int64_t>(data_type_bytes(hgemm ? AEGIS_R_16F : ab));
    return (a_offset * e) % 16 == 0 && (b_offset * e) % 16 == 0 && (lda() * e) % 16 == 0 &&
           (ldb() * e) % 16 == 0;
  }
  std::string describe() const {
    std::ostringstream os;
    os << (hgemm ? "Hgemm " : "") << data_type_tag(hgemm ? AEGIS_R_16F : ab) << "->"
       << data_type_tag(hgemm ? AEGIS_R_16F : c) << " " << op_letters(transa, transb)
       << " m=" << m << " n=" << n << " k=" << k << " alpha=" << alpha << " beta=" << beta
       << " lda=" << lda() << " ldb=" << ldb() << " ldc=" << ldc();
    if (a_offset || b_offset || c_offset)
      os << " offsets(A,B,C)=" << a_offset << "," << b_offset << "," << c_offset;
    os << (grid ? " grid-values" : "") << (nan_inputs ? " NaN-inputs" : "");
    if (col_step > 1) os << " col_step=" << col_step;
    return os.str();
  }
};

// The kernel aegisGetLastGemmExChoice must report after c ran on a handle whose override is
// `forced` ("" for none); nullopt: any kernel of the build.
std::optional<std::string> expected_kernel(const GemmExCase& c, const std::string& forced,
                                           bool device_scalars) {
  if (c.m == 0 || c.n == 0 || c.k == 0) return std::string();
  if (!device_scalars && c.alpha == 0.0f) return std::string();  // C = beta C only
  if (!c.aligned()) return std::string(kMmaSync);
  if (forced.empty()) return std::nullopt;
  if (device_cc_major() < kernel_min_cc_major(forced)) return std::string(kMmaSync);
  return forced;
}

class GemmExProblem {
 public:
  // Allocates and fills A, B, C (with guard zones) and copies of each.
  GemmExProblem(const GemmExCase& spec, uint64_t seed) : c_(spec), seed_(seed) {
    if (c_.hgemm) c_.ab = c_.c = AEGIS_R_16F;
    const bool ta = c_.transa != AEGIS_OP_N, tb = c_.transb != AEGIS_OP_N;
    rows_a_ = ta ? c_.k : c_.m;
    cols_a_ = ta ? c_.m : c_.k;
    rows_b_ = tb ? c_.n : c_.k;
    cols_b_ = tb ? c_.k : c_.n;
    lda_ = c_.lda();
    ldb_ = c_.ldb();
    ldc_ = c_.ldc();
    na_ = static_cast<size_t>(c_.a_offset + lda_ * cols_a_) + kGuard;
    nb_ = static_cast<size_t>(c_.b_offset + ldb_ * cols_b_) + kGuard;
    nc_ = static_cast<size_t>(c_.c_offset + ldc_ * c_.n) + kGuard;
    const size_t ab_bytes = data_type_bytes(c_.ab), c_bytes = data_type_bytes(c_.c);
    a_ = DeviceBuffer<unsigned char>(na_ * ab_bytes);
    a0_ = DeviceBuffer<unsigned char>(na_ * ab_bytes);
    b_ = DeviceBuffer<unsigned char>(nb_ * ab_bytes);
    b0_ = DeviceBuffer<unsigned char>(nb_ * ab_bytes);
    c_buf_ = DeviceBuffer<unsigned char>(nc_ * c_bytes);
    c0_ = DeviceBuffer<unsigned char>(nc_ * c_bytes);
    scalars_ = DeviceBuffer<unsigned char>(16);

    // Every element of A's and B's allocations outside the matrices is NaN: a kernel that
    // lets one of them into a result fails.
    const TypedFill input =
        c_.nan_inputs ? TypedFill::NaN : c_.grid ? TypedFill::Grid : TypedFill::Uniform;
    fill_typed(a_.get(), c_.ab, na_, c_.a_offset, lda_, rows_a_, cols_a_, input, TypedFill::NaN,
               case_seed(seed, 1));
    fill_typed(b_.get(), c_.ab, nb_, c_.b_offset, ldb_, rows_b_, cols_b_, input, TypedFill::NaN,
               case_seed(seed, 2));
    // beta = 0 must not read C: NaN there must not survive. Outside the window C holds
    // random values that must come back unchanged.
    fill_typed(c_buf_.get(), c_.c, nc_, c_.c_offset, ldc_, c_.m, c_.n,
               c_.beta == 0.0f ? TypedFill::NaN : TypedFill::Uniform, TypedFill::Uniform,
               case_seed(seed, 3));
    check_cuda(cudaMemcpy(a0_.get(), a_.get(), na_ * ab_bytes, cudaMemcpyDeviceToDevice), "copy A");
    check_cuda(cudaMemcpy(b0_.get(), b_.get(), nb_ * ab_bytes, cudaMemcpyDeviceToDevice), "copy B");
    check_cuda(cudaMemcpy(c0_.get(), c_buf_.get(), nc_ * c_bytes, cudaMemcpyDeviceToDevice),
               "copy C");

    alpha_h_ = __float2half(c_.alpha);
    beta_h_ = __float2half(c_.beta);
    if (c_.hgemm && (__half2float(alpha_h_) != c_.alpha || __half2float(beta_h_) != c_.beta))
      throw std::invalid_argument("Hgemm test case with alpha or beta not exact in FP16");
    unsigned char scalars[16] = {};
    std::memcpy(scalars, &c_.alpha, 4);
    std::memcpy(scalars + 4, &c_.beta, 4);
    std::memcpy(scalars + 8, &alpha_h_, 2);
    std::memcpy(scalars + 10, &beta_h_, 2);
    check_cuda(cudaMemcpy(scalars_.get(), scalars, sizeof(scalars), cudaMemcpyHostToDevice),
               "copy scalars");
    // The handle's stream may not be ordered after the legacy stream (non-blocking streams).
    check_cuda(cudaDeviceSynchronize(), "prepare GemmEx problem");
  }

  // aegisGemmEx (or aegisHgemm) on h, with alpha and beta from host or device memory
  // according to the handle's pointer mode.
  aegisStatus_t call(aegisHandle_t h) const {
    const bool device = device_scalars(h);
    if (c_.hgemm)
      return aegisHgemm(h, c_.transa, c_.transb, c_.m, c_.n, c_.k,
                        device ? alpha_device_half() : &alpha_h_, A<__half>(), lda_,
                        B<__half>(), ldb_, device ? beta_device_half() : &beta_h_, C<__half>(),
                        ldc_);
    return aegisGemmEx(h, c_.transa, c_.transb, c_.m, c_.n, c_.k,
                       device ? alpha_device() : &c_.alpha, A(), c_.ab, lda_, B(), c_.ab, ldb_,
                       device ? beta_device() : &c_.beta, C(), c_.c, ldc_, AEGIS_COMPUTE_32F);
  }

  // Waits for the device, then checks: A, B and everything of C outside its m x n window are
  // bitwise unchanged; alpha = 0 or k = 0 gives exactly beta * C0; every checked element is
  // within the error bound; with beta = 0 no element is left non-finite.
  ::testing::AssertionResult verify() const {
    check_cuda(cudaDeviceSynchronize(), "after the GemmEx call");
    if (const uint64_t n = count_changed_typed(a_.get(), a0_.get(), c_.ab, na_))
      return ::testing::AssertionFailure() << describe() << ": " << n << " elements of A changed";
    if (const uint64_t n = count_changed_typed(b_.get(), b0_.get(), c_.ab, nb_))
      return ::testing::AssertionFailure() << describe() << ": " << n << " elements of B changed";
    if (const uint64_t n = count_changed_typed(c_buf_.get(), c0_.get(), c_.c, nc_, c_.c_offset,
                                               ldc_, c_.m, c_.n))
      return ::testing::AssertionFailure()
             << describe() << ": " << n
             << " elements outside the m x n window of C changed (padding rows or guard zone)";
    if (c_.alpha == 0.0f || c_.k == 0) {
      if (const uint64_t n =
              count_not_scaled_typed(C(), C0(), c_.c, ldc_, c_.m, c_.n, c_.beta))
        return ::testing::AssertionFailure()
               << describe() << ": " << n << " elements of C are not exactly beta * C";
    }
    const GemmCheckResult r = check();
    if (r.failures)
      return ::testing::AssertionFailure()
             << describe() << ": " << r.failures << " of " << r.checked
             << " checked elements exceed the error bound (largest error / bound, NaN aside: "
             << r.max_error << "); first at (" << r.fail_i << ", " << r.fail_j << "): got "
             << r.fail_value << ", reference " << r.fail_ref << ", bound " << r.fail_denominator;
    if (c_.col_step > 1 && c_.beta == 0.0f) {
      if (const uint64_t n = count_nonfinite_typed(C(), c_.c, ldc_, c_.m, c_.n))
        return ::testing::AssertionFailure()
               << describe() << ": " << n << " elements of C are not finite (not written?)";
    }
    return ::testing::AssertionSuccess() << describe() << ": max error / bound " << r.max_error;
  }

  // The comparison with the FP64 reference alone (the device must be idle).
  GemmCheckResult check() const {
    GemmExCheckArgs args;
    args.trans_a = c_.transa != AEGIS_OP_N;
    args.trans_b = c_.transb != AEGIS_OP_N;
    args.m = c_.m;
    args.n = c_.n;
    args.k = c_.k;
    args.alpha = c_.alpha;
    args.beta = c_.beta;
    args.ab_type = c_.ab;
    args.c_type = c_.c;
    args.A = A();
    args.lda = lda_;
    args.B = B();
    args.ldb = ldb_;
    args.C0 = C0();
    args.C = C();
    args.ldc = ldc_;
    args.exact_sums = c_.grid && c_.k <= kExactSumMaxK;
    args.col_step = c_.col_step;
    return check_gemm_ex(args);
  }

  // Waits for the device, then checks that A, B and C are all bitwise unchanged.
  ::testing::AssertionResult unchanged() const {
    check_cuda(cudaDeviceSynchronize(), "after the GemmEx call");
    if (const uint64_t n = count_changed_typed(a_.get(), a0_.get(), c_.ab, na_))
      return ::testing::AssertionFailure() << describe() << ": " << n << " elements of A changed";
    if (const uint64_t n = count_changed_typed(b_.get(), b0_.get(), c_.ab, nb_))
      return ::testing::AssertionFailure() << describe() << ": " << n << " elements of B changed";
    if (const uint64_t n = count_changed_typed(c_buf_.get(), c0_.get(), c_.c, nc_))
      return ::testing::AssertionFailure() << describe() << ": " << n << " elements of C changed";
    return ::testing::AssertionSuccess();
  }

  const GemmExCase& spec() const { return c_; }
  template <typename T = void>
  const T* A() const {
    return reinterpret_cast<const T*>(a_.get() + c_.a_offset * data_type_bytes(c_.ab));
  }
  template <typename T = void>
  const T* B() const {
    return reinterpret_cast<const T*>(b_.get() + c_.b_offset * data_type_bytes(c_.ab));
  }
  template <typename T = void>
  T* C() const {
    return reinterpret_cast<T*>(c_buf_.get() + c_.c_offset * data_type_bytes(c_.c));
  }
  const void* C0() const { return c0_.get() + c_.c_offset * data_type_bytes(c_.c); }
  int64_t lda() const { return lda_; }
  int64_t ldb() const { return ldb_; }
  int64_t ldc() const { return ldc_; }
  const float* alpha_device() const { return reinterpret_cast<const float*>(scalars_.get()); }
  const float* beta_device() const { return reinterpret_cast<const float*>(scalars_.get() + 4); }
  const __half* alpha_device_half() const {
    return reinterpret_cast<const __half*>(scalars_.get() + 8);
  }
  const __half* beta_device_half() const {
    return reinterpret_cast<const __half*>(scalars_.get() + 10);
  }
  std::string describe() const {
    return c_.describe() + " (case seed " + hex(seed_) + ")";
  }

  static bool device_scalars(aegisHandle_t h) {
    aegisPointerMode_t mode = AEGIS_POINTER_MODE_HOST;
    aegisGetPointerMode(h, &mode);
    return mode == AEGIS_POINTER_MODE_DEVICE;
  }

 private:
  GemmExCase c_;
  uint64_t seed_;
  int64_t rows_a_ = 0, cols_a_ = 0, rows_b_ = 0, cols_b_ = 0;
  int64_t lda_ = 1, ldb_ = 1, ldc_ = 1;
  size_t na_ = 0, nb_ = 0, nc_ = 0;
  __half alpha_h_, beta_h_;
  DeviceBuffer<unsigned char> a_, a0_, b_, b0_, c_buf_, c0_, scalars_;
};

std::string last_choice(aegisHandle_t h) {
  const char* name = nullptr;
  if (aegisGetLastGemmExChoice(h, &name, nullptr) != AEGIS_STATUS_SUCCESS) return "(error)";
  return name ? name : "(null)";
}

// Runs one case end to end on h: problem, call, stream sync, verify, and the kernel reported
// against what the override `forced` ("" none) must give.
::testing::AssertionResult run_gemm_ex_case(aegisHandle_t h, const GemmExCase& c, uint64_t seed,
                                            const std::string& forced,
                                            std::string* kernel = nullptr) {
  const GemmExProblem p(c, seed);
  const aegisStatus_t s = p.call(h);
  if (s != AEGIS_STATUS_SUCCESS)
    return ::testing::AssertionFailure() << p.describe() << ": returned "
                                         << aegisGetStatusName(s) << ": "
                                         << aegisGetLastErrorString(h);
  cudaStream_t stream = nullptr;
  aegisGetStream(h, &stream);
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize after the GemmEx call");
  const std::string ran = last_choice(h);
  if (kernel) *kernel = ran;
  ::testing::AssertionResult r = p.verify();
  if (!r) return r << " [kernel \"" << ran << "\"]";
  const std::optional<std::string> want =
      expected_kernel(p.spec(), forced, GemmExProblem::device_scalars(h));
  if (want && ran != *want)
    return ::testing::AssertionFailure() << p.describe() << ": ran \"" << ran << "\", expected \""
                                         << *want << "\" (override \"" << forced << "\")";
  if (!want && !is_listed_kernel(ran))
    return ::testing::AssertionFailure() << p.describe() << ": ran \"" << ran
                                         << "\", which is no kernel of this build";
  return r << " [kernel " << ran << "]";
}

const aegisOperation_t kOps[] = {AEGIS_OP_N, AEGIS_OP_T};
const aegisDataType_t kInputTypes[] = {AEGIS_R_16F, AEGIS_R_16BF};
const aegisDataType_t kOutputTypes[] = {AEGIS_R_16F, AEGIS_R_16BF, AEGIS_R_32F};

struct Mnk {
  int64_t m, n, k;
};

struct Scalars {
  float alpha, beta;
};
// Rotated over the cases; all exact in FP16 (aegisHgemm uses them too).
const Scalars kScalars[] = {{1.0f, 0.0f}, {-1.5f, 0.5f}, {1.0f, -2.0f}, {0.5f, 1.0f}};

// Stops a test after this many failed cases: one bug in a kernel fails most of them.
constexpr int kMaxFailedCases = 6;

// ---- every kernel x A/B type x C type ------------------------------------------------------

struct KernelTypes {
  std::string kernel;
  aegisDataType_t ab, c;
};

// How GoogleTest prints the parameter (--gtest_list_tests, failures).
void PrintTo(const KernelTypes& p, std::ostream* os) {
  *os << p.kernel << ", " << data_type_tag(p.ab) << " -> " << data_type_tag(p.c);
}

std::vector<KernelTypes> kernel_types() {
  std::vector<KernelTypes> all;
  for (const std::string& k : kernel_names())
    for (aegisDataType_t ab : kInputTypes)
      for (aegisDataType_t c : kOutputTypes) all.push_back({k, ab, c});
  return all;
}

class GemmExKernelTypes : public GpuTest, public ::testing::WithParamInterface<KernelTypes> {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_EQ(aegisSetGemmExOverride(h_, GetParam().kernel.c_str()), AEGIS_STATUS_SUCCESS)
        << last_error();
  }
  // Runs c with the parameter's types; false once too many cases failed.
  bool run(GemmExCase c) {
    c.ab = GetParam().ab;
    c.c = GetParam().c;
    const ::testing::AssertionResult r =
        run_gemm_ex_case(h_, c, case_seed(seed_, index_++), GetParam().kernel);
    EXPECT_TRUE(r);
    if (!r) ++failed_;
    if (failed_ >= kMaxFailedCases) {
      ADD_FAILURE() << "stopping after " << failed_ << " failed cases";
      return false;
    }
    return true;
  }
  uint64_t index_ = 0;
  int failed_ = 0;
};

// Around the edges of every tile in use (64 and 128 rows, 16 to 256 columns, clusters of
// narrow tiles over 64 columns, 64-deep k tiles; mma.sync tiles of 128), primes, k below one
// k tile and far deeper than m and n, and 10:1 / 1:10 aspects.
const Mnk kEdgeSizes[] = {
    {1, 1, 1},       {1, 1, 64},      {1, 63, 17},     {63, 1, 17},
    {63, 63, 63},    {64, 64, 64},    {65, 65, 65},    {64, 63, 65},
    {127, 127, 127}, {128, 128, 128}, {129, 129, 129}, {127, 129, 128},
    {255, 255, 255}, {256, 256, 256}, {257, 257, 257}, {255, 257, 64},
    {131, 67, 97},   {67, 131, 97},   {129, 257, 1},   {256, 255, 8},
    {65, 129, 17},   {128, 128, 17},  {64, 48, 4096},  {17, 9, 4096},
    {129, 65, 1031}, {1280, 128, 64}, {128, 1280, 64}, {630, 63, 65},
    {63, 630, 65},   {65, 16, 65},    {63, 33, 129},   {129, 97, 200},
};

TEST_P(GemmExKernelTypes, EdgeSizes) {
  size_t index = 0;
  for (const Mnk& s : kEdgeSizes)
    for (aegisOperation_t ta : kOps)
      for (aegisOperation_t tb : kOps) {
        GemmExCase c;
        c.transa = ta;
        c.transb = tb;
        c.m = s.m;
        c.n = s.n;
        c.k = s.k;
        c.alpha = kScalars[index % 4].alpha;
        c.beta = kScalars[index % 4].beta;
        c.ld_a = index % 2 ? Ld::Padded : Ld::Aligned;
        c.ld_b = index / 2 % 2 ? Ld::Padded : Ld::Aligned;
        c.ldc_extra = index % 3 == 1 ? 5 : 0;
        // Deep products take exact-sum inputs, where a single wrong product shows.
        c.grid = s.k >= 1024 || index % 3 == 2;
        ++index;
        if (!run(c)) return;
      }
}

TEST_P(GemmExKernelTypes, Misaligned) {
  struct Variant {
    aegisOperation_t ta, tb;
    Mnk size;
    int64_t a_offset, b_offset, c_offset;
    Ld ld_a, ld_b;
    int64_t ldc_extra;
  };
  const Variant variants[] = {
      // No TMA kernel can take these: mma.sync runs them.
      {AEGIS_OP_N, AEGIS_OP_N, {129, 67, 97}, 1, 0, 0, Ld::Aligned, Ld::Aligned, 0},
      {AEGIS_OP_T, AEGIS_OP_N, {64, 64, 64}, 0, 1, 0, Ld::Aligned, Ld::Aligned, 0},
      {AEGIS_OP_N, AEGIS_OP_T, {65, 63, 33}, 0, 0, 0, Ld::Odd, Ld::Aligned, 0},
      {AEGIS_OP_T, AEGIS_OP_T, {127, 129, 65}, 0, 0, 0, Ld::Aligned, Ld::Odd, 0},
      {AEGIS_OP_N, AEGIS_OP_N, {63, 65, 31}, 0, 0, 0, Ld::Tight, Ld::Tight, 0},
      {AEGIS_OP_T, AEGIS_OP_T, {257, 131, 9}, 1, 1, 1, Ld::Odd, Ld::Odd, 2},
      // C is not a TMA operand: the forced kernel must store to any C.
      {AEGIS_OP_N, AEGIS_OP_T, {129, 131, 64}, 0, 0, 1, Ld::Aligned, Ld::Aligned, 0},
      {AEGIS_OP_T, AEGIS_OP_N, {128, 96, 72}, 0, 0, 0, Ld::Aligned, Ld::Aligned, 1},
      {AEGIS_OP_N, AEGIS_OP_N, {64, 64, 64}, 0, 0, 3, Ld::Tight, Ld::Tight, 3},
  };
  size_t index = 0;
  for (const Variant& v : variants) {
    GemmExCase c;
    c.transa = v.ta;
    c.transb = v.tb;
    c.m = v.size.m;
    c.n = v.size.n;
    c.k = v.size.k;
    c.a_offset = v.a_offset;
    c.b_offset = v.b_offset;
    c.c_offset = v.c_offset;
    c.ld_a = v.ld_a;
    c.ld_b = v.ld_b;
    c.ldc_extra = v.ldc_extra;
    c.alpha = kScalars[index % 4].alpha;
    c.beta = kScalars[index % 4].beta;
    c.grid = index % 2 == 1;
    ++index;
    if (!run(c)) return;
  }
}

TEST_P(GemmExKernelTypes, AlphaBeta) {
  const struct {
    bool device;
    aegisOperation_t ta, tb;
    Mnk size;
  } shapes[] = {{false, AEGIS_OP_N, AEGIS_OP_T, {131, 67, 97}},
                {true, AEGIS_OP_T, AEGIS_OP_N, {65, 129, 33}},
                // Few tiles, deep k: where dispatch splits K, the reduction applies the scalars.
                {false, AEGIS_OP_T, AEGIS_OP_T, {33, 40, 4096}},
                {true, AEGIS_OP_N, AEGIS_OP_N, {64, 48, 2048}}};
  for (const auto& s : shapes) {
    ASSERT_EQ(aegisSetPointerMode(h_, s.device ? AEGIS_POINTER_MODE_DEVICE
                                               : AEGIS_POINTER_MODE_HOST),
              AEGIS_STATUS_SUCCESS);
    for (float alpha : {1.0f, -1.5f, 0.0f})
      for (float beta : {0.0f, 1.0f, 0.5f, -2.0f}) {
        GemmExCase c;
        c.transa = s.ta;
        c.transb = s.tb;
        c.m = s.size.m;
        c.n = s.size.n;
        c.k = s.size.k;
        c.alpha = alpha;
        c.beta = beta;
        c.ld_b = Ld::Padded;
        // Host alpha = 0 must not read A or B. (Device alpha = 0: see
        // GemmExKernel.DeviceAlphaZeroIgnoresInputs.)
        c.nan_inputs = !s.device && alpha == 0.0f;
        c.grid = beta != 0.0f || c.k >= 1024;
        if (!run(c)) return;
      }
  }
}

TEST_P(GemmExKernelTypes, Large) {
  // 18 x 9 tiles of 128 x 256 (18 x 17 of 128 x 128): more than one wave of 132 SMs, with a
  // partial tile in both directions.
  GemmExCase c;
  const size_t type_index = static_cast<size_t>(GetParam().ab) * 3 + GetParam().c;
  c.transa = kOps[type_index % 2];
  c.transb = kOps[type_index / 2 % 2];
  c.m = 2305;
  c.n = 2056;
  c.k = 520;
  c.alpha = -1.5f;
  c.beta = type_index % 2 ? 0.5f : 0.0f;
  c.grid = true;
  c.col_step = 15;
  run(c);
}

TEST_P(GemmExKernelTypes, LargeOneKTile) {
  // As Large, with a K of one k-tile: a CTA's next tile has fewer k-steps than the boxes
  // the previous one deferred (Sm90Config::kDeferredStoreBoxes), so they are stored after it.
  GemmExCase c;
  const size_t type_index = static_cast<size_t>(GetParam().ab) * 3 + GetParam().c;
  c.transa = kOps[type_index / 2 % 2];
  c.transb = kOps[type_index % 2];
  c.m = 2305;
  c.n = 2056;
  c.k = 40;
  c.alpha = 1.0f;
  c.beta = 0.0f;
  c.grid = true;
  c.col_step = 15;
  run(c);
}

std::string kernel_types_name(const ::testing::TestParamInfo<KernelTypes>& info) {
  return info.param.kernel + "_" + data_type_tag(info.param.ab) + "_" +
         data_type_tag(info.param.c);
}

INSTANTIATE_TEST_SUITE_P(GemmEx, GemmExKernelTypes, ::testing::ValuesIn(kernel_types()),
                         kernel_types_name);

// ---- every kernel ---------------------------------------------------------------------------

class GemmExKernel : public GpuTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_EQ(aegisSetGemmExOverride(h_, GetParam().c_str()), AEGIS_STATUS_SUCCESS)
        << last_error();
  }
  bool run(const GemmExCase& c) {
    const ::testing::AssertionResult r =
        run_gemm_ex_case(h_, c, case_seed(seed_, index_++), GetParam());
    EXPECT_TRUE(r);
    if (!r) ++failed_;
    if (failed_ >= kMaxFailedCases) {
      ADD_FAILURE() << "stopping after " << failed_ << " failed cases";
      return false;
    }
    return true;
  }
  uint64_t index_ = 0;
  int failed_ = 0;
};

TEST_P(GemmExKernel, Hgemm) {
  const Mnk sizes[] = {{1, 1, 1}, {65, 63, 64}, {129, 131, 97}, {256, 128, 17}, {64, 48, 2048}};
  const Scalars scalars[] = {{1.0f, 0.0f}, {-1.5f, 0.5f}, {1.0f, -2.0f}, {0.5f, 1.0f},
                             {0.0f, 0.5f}};
  size_t index = 0;
  for (const Mnk& s : sizes)
    for (aegisOperation_t ta : kOps)
      for (aegisOperation_t tb : kOps) {
        GemmExCase c;
        c.hgemm = true;
        c.transa = ta;
        c.transb = tb;
        c.m = s.m;
        c.n = s.n;
        c.k = s.k;
        c.alpha = scalars[index % 5].alpha;
        c.beta = scalars[index % 5].beta;
        c.nan_inputs = c.alpha == 0.0f;
        c.ld_a = index % 2 ? Ld::Padded : Ld::Aligned;
        c.grid = s.k >= 1024 || index % 2 == 0;
        ++index;
        if (!run(c)) return;
      }
  // Half scalars read by the kernel from device memory.
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  for (aegisOperation_t ta : kOps)
    for (aegisOperation_t tb : kOps)
      for (const Scalars& sc : {Scalars{-1.5f, 0.5f}, Scalars{1.0f, 0.0f}}) {
        GemmExCase c;
        c.hgemm = true;
        c.transa = ta;
        c.transb = tb;
        c.m = 129;
        c.n = 65;
        c.k = 33;
        c.alpha = sc.alpha;
        c.beta = sc.beta;
        if (!run(c)) return;
      }
  // Misaligned by one element: the fallback, in both pointer modes.
  GemmExCase c;
  c.hgemm = true;
  c.m = 67;
  c.n = 65;
  c.k = 63;
  c.a_offset = 1;
  c.alpha = -1.5f;
  c.beta = 0.5f;
  if (!run(c)) return;
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_HOST), AEGIS_STATUS_SUCCESS);
  c.a_offset = 0;
  c.b_offset = 1;
  run(c);
}

TEST_P(GemmExKernel, DeviceAlphaZeroIgnoresInputs) {
  // Reference-BLAS semantics: alpha = 0 does not reference A and B, so NaN there must not
  // reach C, also when the kernel only sees alpha on the device.
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  for (const Mnk& s : {Mnk{129, 67, 97}, Mnk{64, 48, 4096}})  // the second may split K
    for (aegisDataType_t ctype : {AEGIS_R_16BF, AEGIS_R_32F})
      for (float beta : {0.0f, 0.5f, 1.0f}) {
        GemmExCase c;
        c.ab = AEGIS_R_16F;
        c.c = ctype;
        c.transa = AEGIS_OP_T;
        c.m = s.m;
        c.n = s.n;
        c.k = s.k;
        c.alpha = 0.0f;
        c.beta = beta;
        c.nan_inputs = true;
        if (!run(c)) return;
      }
  GemmExCase h;
  h.hgemm = true;
  h.m = 65;
  h.n = 64;
  h.k = 129;
  h.alpha = 0.0f;
  h.beta = -2.0f;
  h.nan_inputs = true;
  run(h);
}

TEST_P(GemmExKernel, SameBitsEveryRun) {
  // Deep K with few tiles: where K is split (through the workspace, or across a cluster), the
  // slices must still be added in one fixed order. Two calls on the same inputs, into C
  // buffers poisoned differently, must agree bit for bit.
  const Mnk sizes[] = {{128, 256, 4096}, {257, 129, 3001}};
  for (const Mnk& s : sizes) {
    SCOPED_TRACE(testing::Message() << s.m << "x" << s.n << "x" << s.k);
    DeviceBuffer<uint16_t> A(static_cast<size_t>(s.m * s.k)), B(static_cast<size_t>(s.k * s.n));
    const size_t c_count = static_cast<size_t>(s.m * s.n);
    DeviceBuffer<float> C1(c_count), C2(c_count);
    fill_typed(A.get(), AEGIS_R_16F, A.size(), 0, s.m, s.m, s.k, TypedFill::Uniform,
               TypedFill::Uniform, case_seed(seed_, 1));
    fill_typed(B.get(), AEGIS_R_16F, B.size(), 0, s.k, s.k, s.n, TypedFill::Uniform,
               TypedFill::Uniform, case_seed(seed_, 2));
    check_cuda(cudaMemset(C1.get(), 0xFF, c_count * sizeof(float)), "cudaMemset");
    check_cuda(cudaMemset(C2.get(), 0x7F, c_count * sizeof(float)), "cudaMemset");
    const float alpha = 1.0f, beta = 0.0f;
    for (float* C : {C1.get(), C2.get()})
      ASSERT_EQ(aegisGemmEx(h_, AEGIS_OP_N, AEGIS_OP_N, s.m, s.n, s.k, &alpha, A.get(),
                            AEGIS_R_16F, s.m, B.get(), AEGIS_R_16F, s.k, &beta, C, AEGIS_R_32F,
                            s.m, AEGIS_COMPUTE_32F),
                AEGIS_STATUS_SUCCESS)
          << last_error();
    std::vector<float> h1(c_count), h2(c_count);
    check_cuda(cudaMemcpy(h1.data(), C1.get(), c_count * sizeof(float), cudaMemcpyDeviceToHost),
               "cudaMemcpy");
    check_cuda(cudaMemcpy(h2.data(), C2.get(), c_count * sizeof(float), cudaMemcpyDeviceToHost),
               "cudaMemcpy");
    size_t differ = 0, nonfinite = 0;
    for (size_t i = 0; i < c_count; ++i) {
      differ += std::memcmp(&h1[i], &h2[i], sizeof(float)) != 0;
      nonfinite += !std::isfinite(h1[i]);
    }
    EXPECT_EQ(differ, 0u) << "elements whose bits differ between two identical calls";
    EXPECT_EQ(nonfinite, 0u) << "poison left in C";
  }
}

std::string kernel_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(GemmEx, GemmExKernel, ::testing::ValuesIn(kernel_names()), kernel_name);

// ---- scalars, quick returns and errors (default dispatch) -----------------------------------

using GemmExScalars = GpuTest;

TEST_F(GemmExScalars, KZeroGivesBetaC) {
  int index = 0;
  for (aegisDataType_t ctype : kOutputTypes)
    for (float alpha : {1.0f, -1.5f})
      for (float beta : {0.0f, 1.0f, 0.5f, -2.0f}) {
        GemmExCase c;
        c.ab = index % 2 ? AEGIS_R_16BF : AEGIS_R_16F;
        c.c = ctype;
        c.m = 65;
        c.n = 33;
        c.k = 0;
        c.alpha = alpha;
        c.beta = beta;
        c.nan_inputs = true;
        c.ldc_extra = index % 2 ? 3 : 0;
        EXPECT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, index++), ""));
      }
}

TEST_F(GemmExScalars, AlphaZeroGivesBetaCWithoutAKernel) {
  int index = 0;
  for (aegisDataType_t ctype : kOutputTypes)
    for (float beta : {0.0f, 0.5f, -2.0f}) {
      GemmExCase c;
      c.ab = AEGIS_R_16BF;
      c.c = ctype;
      c.transb = AEGIS_OP_T;
      c.m = 130;
      c.n = 70;
      c.k = 90;
      c.alpha = 0.0f;
      c.beta = beta;
      c.nan_inputs = true;
      // Reports "" (expected_kernel): only C = beta C ran.
      EXPECT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, index++), ""));
    }
}

TEST_F(GemmExScalars, QuickReturnsLeaveCUntouched) {
  auto make = [](int64_t m, int64_t n, int64_t k, float alpha, float beta) {
    GemmExCase c;
    c.m = m;
    c.n = n;
    c.k = k;
    c.alpha = alpha;
    c.beta = beta;
    c.nan_inputs = alpha == 0.0f || k == 0;
    return c;
  };
  const GemmExCase cases[] = {
      make(0, 17, 9, 1.0f, 0.0f),  make(17, 0, 9, 1.0f, 0.0f), make(0, 0, 0, 1.0f, 0.0f),
      make(31, 17, 9, 0.0f, 1.0f),  // alpha = 0, beta = 1
      make(31, 17, 0, 2.0f, 1.0f),  // k = 0, beta = 1
  };
  int index = 0;
  for (aegisDataType_t ctype : kOutputTypes)
    for (GemmExCase c : cases) {
      c.c = ctype;
      // A product first, so that a stale choice would show.
      GemmExCase product;
      product.m = product.n = product.k = 64;
      ASSERT_TRUE(run_gemm_ex_case(h_, product, case_seed(seed_, 1000 + index), ""));
      ASSERT_NE(last_choice(h_), "");
      const GemmExProblem p(c, case_seed(seed_, index++));
      ASSERT_EQ(p.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
      EXPECT_TRUE(p.unchanged());
      EXPECT_EQ(last_choice(h_), "") << c.describe();
    }
  // The same through aegisHgemm.
  for (GemmExCase c : cases) {
    c.hgemm = true;
    const GemmExProblem p(c, case_seed(seed_, index++));
    ASSERT_EQ(p.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
    EXPECT_TRUE(p.unchanged());
  }
}

TEST_F(GemmExScalars, NullInputsWhenAlphaIsZero) {
  GemmExCase c;
  c.c = AEGIS_R_16F;
  c.m = 70;
  c.n = 40;
  c.k = 20;
  c.alpha = 0.0f;
  c.beta = 0.5f;
  const GemmExProblem p(c, seed_);
  ASSERT_EQ(aegisGemmEx(h_, AEGIS_OP_N, AEGIS_OP_N, c.m, c.n, c.k, &c.alpha, nullptr,
                        AEGIS_R_16F, p.lda(), nullptr, AEGIS_R_16F, p.ldb(), &c.beta, p.C(),
                        AEGIS_R_16F, p.ldc(), AEGIS_COMPUTE_32F),
            AEGIS_STATUS_SUCCESS)
      << last_error();
  EXPECT_TRUE(p.verify());
  const __half alpha = __float2half(0.0f), beta = __float2half(0.5f);
  GemmExCase h = c;
  h.hgemm = true;
  const GemmExProblem q(h, seed_ ^ 1);
  ASSERT_EQ(aegisHgemm(h_, AEGIS_OP_N, AEGIS_OP_N, h.m, h.n, h.k, &alpha, nullptr, q.lda(),
                       nullptr, q.ldb(), &beta, q.C<__half>(), q.ldc()),
            AEGIS_STATUS_SUCCESS)
      << last_error();
  EXPECT_TRUE(q.verify());
}

TEST_F(GemmExScalars, DevicePointerModeKZero) {
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  int index = 0;
  for (aegisDataType_t ctype : kOutputTypes)
    for (float beta : {0.0f, 0.5f, 1.0f}) {
      GemmExCase c;
      c.c = ctype;
      c.m = 40;
      c.n = 30;
      c.k = 0;
      c.beta = beta;
      c.nan_inputs = true;
      EXPECT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, index++), ""));
    }
  GemmExCase h;
  h.hgemm = true;
  h.m = 33;
  h.n = 17;
  h.k = 0;
  h.beta = -2.0f;
  h.nan_inputs = true;
  EXPECT_TRUE(run_gemm_ex_case(h_, h, case_seed(seed_, index++), ""));
}

TEST_F(GemmExScalars, InvalidCallLeavesEverythingUntouched) {
  GemmExCase c;
  c.c = AEGIS_R_16BF;
  c.ab = AEGIS_R_16BF;
  c.m = 40;
  c.n = 30;
  c.k = 20;
  c.beta = 0.5f;
  ASSERT_TRUE(run_gemm_ex_case(h_, c, seed_, ""));  // leaves a kernel as the last choice
  const GemmExProblem p(c, seed_ ^ 1);
  EXPECT_EQ(aegisGemmEx(h_, AEGIS_OP_N, AEGIS_OP_N, c.m, c.n, c.k, &c.alpha, p.A(), c.ab,
                        c.m - 1, p.B(), c.ab, p.ldb(), &c.beta, p.C(), c.c, p.ldc(),
                        AEGIS_COMPUTE_32F),
            AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(), "aegisGemmEx: parameter 9 (lda = 39) must be >= max(1, m = 40)");
  EXPECT_EQ(last_choice(h_), "");
  EXPECT_TRUE(p.unchanged());
  EXPECT_EQ(aegisGemmEx(h_, AEGIS_OP_N, AEGIS_OP_N, c.m, c.n, c.k, &c.alpha, p.A(), c.ab,
                        p.lda(), p.B(), AEGIS_R_16F, p.ldb(), &c.beta, p.C(), c.c, p.ldc(),
                        AEGIS_COMPUTE_32F),
            AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(),
            "aegisGemmEx: parameter 11 (Btype = 0) must equal Atype (AEGIS_R_16BF = 1)");
  EXPECT_TRUE(p.unchanged());
}

// ---- dispatch -------------------------------------------------------------------------------

using GemmExDispatch = GpuTest;

TEST_F(GemmExDispatch, DefaultChoiceIsAKernelOfTheBuild) {
  int index = 0;
  for (const Mnk& s : {Mnk{512, 512, 512}, Mnk{64, 64, 4096}, Mnk{2048, 128, 256},
                       Mnk{129, 67, 97}})
    for (aegisDataType_t ab : kInputTypes) {
      GemmExCase c;
      c.ab = ab;
      c.c = index % 2 ? AEGIS_R_32F : ab;
      c.m = s.m;
      c.n = s.n;
      c.k = s.k;
      c.grid = true;
      c.transa = kOps[index % 2];
      std::string kernel;
      EXPECT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, index++), "", &kernel));
      // The H200 table names TMA kernels for every shape class (the default table none).
      if (std::string(aegisGetTuningTableName(h_)) == "h200") {
        EXPECT_NE(kernel, kMmaSync) << c.describe() << ": the H200 table names a TMA kernel";
      }
      // Misaligned: the fallback (checked by run_gemm_ex_case).
      c.a_offset = 1;
      EXPECT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, index++), ""));
      c.a_offset = 0;
      c.ld_b = Ld::Odd;
      EXPECT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, index++), ""));
    }
}

TEST_F(GemmExDispatch, OverrideClearedReturnsToTheTable) {
  GemmExCase c;
  c.m = 512;
  c.n = 384;
  c.k = 256;
  std::string before, forced, after;
  ASSERT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, 0), "", &before));
  ASSERT_EQ(aegisSetGemmExOverride(h_, kMmaSync), AEGIS_STATUS_SUCCESS);
  ASSERT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, 1), kMmaSync, &forced));
  EXPECT_EQ(forced, kMmaSync);
  ASSERT_EQ(aegisSetGemmExOverride(h_, nullptr), AEGIS_STATUS_SUCCESS);
  ASSERT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, 2), "", &after));
  EXPECT_EQ(after, before);
  // An unknown name leaves the override as it was.
  ASSERT_EQ(aegisSetGemmExOverride(h_, kMmaSync), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(aegisSetGemmExOverride(h_, "gemm_sm90_no_such_kernel"), AEGIS_STATUS_INVALID_VALUE);
  ASSERT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, 3), kMmaSync, &forced));
  EXPECT_EQ(forced, kMmaSync);
}

TEST_F(GemmExDispatch, ConjugateTransposeIsTranspose) {
  int index = 0;
  for (const std::string& kernel : kernel_names()) {
    ASSERT_EQ(aegisSetGemmExOverride(h_, kernel.c_str()), AEGIS_STATUS_SUCCESS);
    for (aegisOperation_t ta : {AEGIS_OP_N, AEGIS_OP_C})
      for (aegisOperation_t tb : {AEGIS_OP_C, AEGIS_OP_T}) {
        GemmExCase c;
        c.ab = index % 2 ? AEGIS_R_16BF : AEGIS_R_16F;
        c.transa = ta;
        c.transb = tb;
        c.m = 129;
        c.n = 65;
        c.k = 97;
        c.alpha = -1.5f;
        c.beta = 0.5f;
        EXPECT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, index++), kernel));
      }
  }
}

TEST_F(GemmExDispatch, NonBlockingStream) {
  // The call must run on the handle's stream: the problem is prepared on the legacy stream
  // and waited for; the result is waited for on the handle's stream only.
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(aegisSetStream(h_, stream), AEGIS_STATUS_SUCCESS);
  int index = 0;
  for (const std::string& kernel : kernel_names()) {
    ASSERT_EQ(aegisSetGemmExOverride(h_, kernel.c_str()), AEGIS_STATUS_SUCCESS);
    GemmExCase c;
    c.ab = AEGIS_R_16BF;
    c.c = AEGIS_R_16BF;
    c.transb = AEGIS_OP_T;
    c.m = 1024;
    c.n = 520;
    c.k = 264;
    c.beta = 0.5f;
    c.grid = true;
    EXPECT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, index++), kernel));
  }
  ASSERT_EQ(aegisSetStream(h_, nullptr), AEGIS_STATUS_SUCCESS);
  cudaStreamDestroy(stream);
}

// ---- C++ API --------------------------------------------------------------------------------

class GemmExCppApi : public ::testing::Test {
 protected:
  void SetUp() override {
    AEGIS_SKIP_WITHOUT_GPU();
    seed_ = test_seed();
    RecordProperty("seed", hex(seed_));
  }
  uint64_t seed_ = 0;
};

// One call through the aegis::gemm overload for (TAB, TC), scalars by value (host) or by
// pointer (device).
template <typename TAB, typename TC>
::testing::AssertionResult cpp_gemm(const aegis::Handle& h, GemmExCase c, uint64_t seed,
                                    bool device_scalars) {
  c.ab = aegis::detail::data_type<TAB>::value;
  c.c = aegis::detail::data_type<TC>::value;
  c.transa = AEGIS_OP_T;
  c.m = 130;
  c.n = 70;
  c.k = 90;
  const GemmExProblem p(c, seed);
  const aegis::Op ta = aegis::Op::T, tb = aegis::Op::N;
  if (device_scalars)
    aegis::gemm(h, ta, tb, c.m, c.n, c.k, p.alpha_device(), p.A<TAB>(), p.lda(), p.B<TAB>(),
                p.ldb(), p.beta_device(), p.C<TC>(), p.ldc());
  else
    aegis::gemm(h, ta, tb, c.m, c.n, c.k, c.alpha, p.A<TAB>(), p.lda(), p.B<TAB>(), p.ldb(),
                c.beta, p.C<TC>(), p.ldc());
  check_cuda(cudaStreamSynchronize(h.stream()), "cudaStreamSynchronize");
  return p.verify();
}

TEST_F(GemmExCppApi, TypedOverloads) {
  aegis::Handle h;
  GemmExCase c;
  c.alpha = -1.5f;
  c.beta = 0.5f;
  EXPECT_TRUE((cpp_gemm<__half, __half>(h, c, case_seed(seed_, 0), false)));
  EXPECT_TRUE((cpp_gemm<__nv_bfloat16, __nv_bfloat16>(h, c, case_seed(seed_, 1), false)));
  EXPECT_TRUE((cpp_gemm<__half, float>(h, c, case_seed(seed_, 2), false)));
  EXPECT_TRUE((cpp_gemm<__nv_bfloat16, float>(h, c, case_seed(seed_, 3), false)));
  h.set_pointer_mode(aegis::PointerMode::Device);
  c.beta = 0.0f;
  EXPECT_TRUE((cpp_gemm<__half, __half>(h, c, case_seed(seed_, 4), true)));
  EXPECT_TRUE((cpp_gemm<__nv_bfloat16, float>(h, c, case_seed(seed_, 5), true)));
  // Scalars by value need host pointer mode.
  GemmExCase d;
  d.ab = d.c = AEGIS_R_16BF;
  const GemmExProblem p(d, case_seed(seed_, 6));
  try {
    aegis::gemm(h, aegis::Op::N, aegis::Op::N, 1, 1, 1, 1.0f, p.A<__nv_bfloat16>(), p.lda(),
                p.B<__nv_bfloat16>(), p.ldb(), 0.0f, p.C<__nv_bfloat16>(), p.ldc());
    ADD_FAILURE() << "by-value scalars in device pointer mode must throw";
  } catch (const aegis::Error& e) {
    EXPECT_EQ(e.status(), AEGIS_STATUS_INVALID_VALUE);
  }
}

TEST_F(GemmExCppApi, HalfScalarsCallHgemm) {
  aegis::Handle h;
  GemmExCase c;
  c.hgemm = true;
  c.transb = AEGIS_OP_T;
  c.m = 65;
  c.n = 129;
  c.k = 33;
  c.alpha = 0.5f;
  c.beta = -2.0f;
  const GemmExProblem p(c, seed_);
  aegis::gemm(h, aegis::Op::N, aegis::Op::T, c.m, c.n, c.k, __float2half(c.alpha),
              p.A<__half>(), p.lda(), p.B<__half>(), p.ldb(), __float2half(c.beta),
              p.C<__half>(), p.ldc());
  check_cuda(cudaStreamSynchronize(h.stream()), "cudaStreamSynchronize");
  EXPECT_TRUE(p.verify());
  h.set_pointer_mode(aegis::PointerMode::Device);
  const GemmExProblem q(c, seed_ ^ 1);
  aegis::gemm(h, aegis::Op::N, aegis::Op::T, c.m, c.n, c.k, q.alpha_device_half(),
              q.A<__half>(), q.lda(), q.B<__half>(), q.ldb(), q.beta_device_half(),
              q.C<__half>(), q.ldc());
  check_cuda(cudaStreamSynchronize(h.stream()), "cudaStreamSynchronize");
  EXPECT_TRUE(q.verify());
}

TEST_F(GemmExCppApi, BadArgumentsThrow) {
  aegis::Handle h;
  GemmExCase c;
  c.ab = AEGIS_R_16BF;
  c.m = 4;
  c.n = 6;
  c.k = 5;
  const GemmExProblem p(c, seed_);
  try {
    aegis::gemm(h, aegis::Op::N, aegis::Op::N, 4, 6, 5, 1.0f, p.A<__nv_bfloat16>(), 3,
                p.B<__nv_bfloat16>(), p.ldb(), 0.0f, p.C<float>(), p.ldc());
    FAIL() << "lda = 3 < m = 4 must throw";
  } catch (const aegis::Error& e) {
    EXPECT_EQ(e.status(), AEGIS_STATUS_INVALID_VALUE);
    EXPECT_EQ(e.detail(), "aegisGemmEx: parameter 9 (lda = 3) must be >= max(1, m = 4)");
  }
  try {
    const __half one = __float2half(1.0f);
    aegis::gemm(h, aegis::Op::N, aegis::Op::N, 4, 6, 5, one, p.A<__half>(), p.lda(),
                p.B<__half>(), p.ldb(), one, p.C<__half>(), 3);
    FAIL() << "ldc = 3 < m = 4 must throw";
  } catch (const aegis::Error& e) {
    EXPECT_EQ(e.detail(), "aegisHgemm: parameter 13 (ldc = 3) must be >= max(1, m = 4)");
  }
  EXPECT_TRUE(p.unchanged());
}

// ---- the checker itself ---------------------------------------------------------------------

using GemmExChecker = GpuTest;

TEST_F(GemmExChecker, MissingProductFails) {
  // The library computes the product over k - 1 while the reference sums k products: every
  // element misses a_i,k-1 b_k-1,j. The bound must catch that wherever the output type can
  // show it: Grid products are at least 2^-10 (above the whole FP32-output bound even at
  // k = 4096), Uniform ones are mostly near 1/4. A 16-bit C rounds away a missing product
  // below about u_C |D|: FP16 loses few, BF16 (8 bits, |D| ~ 21 at k = 4096) up to half.
  struct Deep {
    Mnk size;
    bool grid;
  };
  const Deep cases[] = {{{64, 48, 4096}, true}, {{131, 67, 97}, false}, {{65, 63, 17}, false}};
  int index = 0;
  for (aegisDataType_t ab : kInputTypes)
    for (aegisDataType_t ctype : kOutputTypes)
      for (const Deep& d : cases) {
        GemmExCase c;
        c.ab = ab;
        c.c = ctype;
        c.m = d.size.m;
        c.n = d.size.n;
        c.k = d.size.k;
        c.alpha = -1.5f;
        c.beta = index % 2 ? 0.5f : 0.0f;
        c.grid = d.grid;
        const GemmExProblem good(c, case_seed(seed_, index++));
        ASSERT_EQ(good.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
        ASSERT_TRUE(good.verify());
        const GemmExProblem p(c, case_seed(seed_, index++));
        ASSERT_EQ(aegisGemmEx(h_, AEGIS_OP_N, AEGIS_OP_N, c.m, c.n, c.k - 1, &c.alpha, p.A(),
                              c.ab, p.lda(), p.B(), c.ab, p.ldb(), &c.beta, p.C(), c.c, p.ldc(),
                              AEGIS_COMPUTE_32F),
                  AEGIS_STATUS_SUCCESS)
            << last_error();
        check_cuda(cudaDeviceSynchronize(), "after aegisGemmEx");
        const GemmCheckResult r = p.check();
        const double caught = static_cast<double>(r.failures) / static_cast<double>(r.checked);
        const double need = ctype == AEGIS_R_32F ? (d.grid ? 1.0 : 0.95)
                            : ctype == AEGIS_R_16F ? 0.75
                                                   : 0.3;
        EXPECT_GE(caught, need) << p.describe() << ": only " << r.failures << " of " << r.checked
                                << " elements missing a product fail the bound";
      }
}

// ---- compute-sanitizer subset ---------------------------------------------------------------

using GemmExSanitizer = GpuTest;

TEST_F(GemmExSanitizer, EveryKernelAndTranspose) {
  struct Tiny {
    Mnk size;
    Ld ld;
    int64_t a_offset, c_offset;
  };
  const Tiny tiny[] = {{{1, 1, 1}, Ld::Aligned, 0, 0},
                       {{33, 17, 9}, Ld::Padded, 0, 1},
                       {{65, 9, 130}, Ld::Aligned, 0, 0},
                       {{17, 33, 24}, Ld::Tight, 1, 0}};
  size_t index = 0;
  for (const std::string& kernel : kernel_names()) {
    ASSERT_EQ(aegisSetGemmExOverride(h_, kernel.c_str()), AEGIS_STATUS_SUCCESS);
    for (aegisOperation_t ta : kOps)
      for (aegisOperation_t tb : kOps)
        for (const Tiny& t : tiny) {
          GemmExCase c;
          c.ab = kInputTypes[index % 2];
          c.c = kOutputTypes[index % 3];
          c.transa = ta;
          c.transb = tb;
          c.m = t.size.m;
          c.n = t.size.n;
          c.k = t.size.k;
          c.ld_a = c.ld_b = t.ld;
          c.a_offset = t.a_offset;
          c.c_offset = t.c_offset;
          c.alpha = kScalars[index % 4].alpha;
          c.beta = kScalars[index % 4].beta;
          c.grid = index % 2 == 1;
          EXPECT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, index), kernel)) << kernel;
          ++index;
        }
  }
}

TEST_F(GemmExSanitizer, ScalarPathsAndDeviceMode) {
  size_t index = 0;
  // C = beta C without a product (host alpha = 0, k = 0), every C type.
  for (aegisDataType_t ctype : kOutputTypes) {
    GemmExCase c;
    c.c = ctype;
    c.m = 33;
    c.n = 17;
    c.k = index % 2 ? 0 : 9;
    c.alpha = 0.0f;
    c.beta = 0.5f;
    c.nan_inputs = true;
    EXPECT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, index++), ""));
  }
  // Device scalars (float for GemmEx, half for Hgemm) in every kernel.
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  for (const std::string& kernel : kernel_names()) {
    ASSERT_EQ(aegisSetGemmExOverride(h_, kernel.c_str()), AEGIS_STATUS_SUCCESS);
    for (float alpha : {-1.5f, 0.0f})
      for (float beta : {0.0f, 0.5f}) {
        GemmExCase c;
        c.ab = AEGIS_R_16BF;
        c.c = AEGIS_R_16F;
        c.transa = AEGIS_OP_T;
        c.m = 31;
        c.n = 33;
        c.k = 65;
        c.alpha = alpha;
        c.beta = beta;
        EXPECT_TRUE(run_gemm_ex_case(h_, c, case_seed(seed_, index++), kernel)) << kernel;
      }
    GemmExCase h;
    h.hgemm = true;
    h.transb = AEGIS_OP_T;
    h.m = 17;
    h.n = 40;
    h.k = 33;
    h.alpha = 1.0f;
    h.beta = -2.0f;
    EXPECT_TRUE(run_gemm_ex_case(h_, h, case_seed(seed_, index++), kernel)) << kernel;
  }
  GemmExCase k0;
  k0.m = 40;
  k0.n = 9;
  k0.k = 0;
  k0.beta = 0.0f;
  k0.nan_inputs = true;
  EXPECT_TRUE(run_gemm_ex_case(h_, k0, case_seed(seed_, index++), ""));
}

}  // namespace
}  // namespace aegis_test
