// Level-2 routines on the device: GEMV (N, T, C), SYMV, HEMV in every precision against an
// FP64 reference, with poisoned outputs (NaN in y where beta = 0), NaN in the unused
// triangle, in padding rows, in the gaps of strided vectors and around offset blocks,
// inputs checked unchanged, negative increments, both reduction modes (the deterministic
// one bitwise repeatable), host and device scalars, offsets.
//
// Error bound per element: |y - y_ref| <= c gamma_{k+4} (|alpha| (|op(A)| |x|)_i +
// |beta| |y0_i|), gamma_j = j u / (1 - j u), c = 1 (real) or 2 (complex).
#include <gtest/gtest.h>

#include <cuComplex.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "aegis/aegis.h"
#include "blas2_reference.h"
#include "gpu_test_util.h"

namespace aegis_test {
namespace {

template <typename T>
constexpr bool kIsComplex = std::is_same_v<T, cuComplex> || std::is_same_v<T, cuDoubleComplex>;
template <typename T>
constexpr bool kIsSingle = std::is_same_v<T, float> || std::is_same_v<T, cuComplex>;

template <typename T>
T make_value(double re, double im) {
  if constexpr (std::is_same_v<T, float>) return float(re);
  else if constexpr (std::is_same_v<T, double>) return re;
  else if constexpr (std::is_same_v<T, cuComplex>) return make_cuComplex(float(re), float(im));
  else return make_cuDoubleComplex(re, im);
}
template <typename T>
void value_parts(const T& v, double* re, double* im) {
  if constexpr (kIsComplex<T>) *re = v.x, *im = v.y;
  else *re = double(v), *im = 0;
}
const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Blas2Case {
  Blas2Kind kind = Blas2Kind::GemvN;
  bool upper = false;
  int64_t m = 1, n = 1;  // Symv/Hemv: m == n
  int ld_mode = 0;       // 0: lda = rows, 1: rows + padding to a multiple of 8, 2: rows + 3
  int64_t incx = 1, incy = 1;
  double alpha[2] = {1, 0}, beta[2] = {0, 0};
  bool offset_call = false;  // the Offset variant on a larger matrix
  int64_t off_r = 0, off_c = 0;
  bool device_scalars = false;
  std::string describe() const {
    static const char* kNames[] = {"gemv N", "gemv T", "gemv C", "symv", "hemv"};
    std::ostringstream os;
    os << kNames[int(kind)];
    if (kind == Blas2Kind::Symv || kind == Blas2Kind::Hemv) os << (upper ? " U" : " L");
    os << " m=" << m << " n=" << n << " ld_mode=" << ld_mode << " incx=" << incx
       << " incy=" << incy << " alpha=(" << alpha[0] << "," << alpha[1] << ") beta=(" << beta[0]
       << "," << beta[1] << ")";
    if (offset_call) os << " offset=(" << off_r << "," << off_c << ")";
    if (device_scalars) os << " device-scalars";
    return os.str();
  }
};

bool symmetric(Blas2Kind k) { return k == Blas2Kind::Symv || k == Blas2Kind::Hemv; }

// One call with its buffers, host copies and checks.
template <typename T>
class Blas2Problem {
 public:
  Blas2Problem(const Blas2Case& c, uint64_t seed) : c_(c), rng_(seed) {
    const bool sym = symmetric(c.kind);
    const bool trans = c.kind == Blas2Kind::GemvT || c.kind == Blas2Kind::GemvC;
    len_x_ = trans ? c.m : c.n;
    len_y_ = (trans ? c.n : c.m);
    rows_full_ = c.off_r + c.m;
    cols_full_ = c.off_c + c.n;
    lda_ = std::max<int64_t>(1, rows_full_);
    if (c.ld_mode == 1) lda_ = (rows_full_ + 1 + 7) / 8 * 8;
    if (c.ld_mode == 2) lda_ = rows_full_ + 3;
    host_a_.resize(size_t(lda_ * cols_full_));
    for (int64_t j = 0; j < cols_full_; ++j)
      for (int64_t i = 0; i < lda_; ++i) {
        const int64_t li = i - c.off_r, lj = j - c.off_c;
        bool used = li >= 0 && li < c.m && lj >= 0 && lj < c.n;
        if (used && sym) used = c.upper ? li <= lj : li >= lj;
        double im = kIsComplex<T> ? uniform() : 0;
        if (used && c.kind == Blas2Kind::Hemv && li == lj) im = kNaN;  // must not be read
        host_a_[size_t(i + j * lda_)] = used ? make_value<T>(uniform(), im) : make_value<T>(kNaN, kNaN);
      }
    host_x_ = strided(len_x_, c.incx, false);
    host_y_ = strided(len_y_, c.incy, c.beta[0] == 0 && c.beta[1] == 0);
    a_ = upload(host_a_);
    x_ = upload(host_x_);
    y_ = upload(host_y_);
    scalars_ = DeviceBuffer<T>(2);
    const T s[2] = {make_value<T>(c.alpha[0], c.alpha[1]), make_value<T>(c.beta[0], c.beta[1])};
    check_cuda(cudaMemcpy(scalars_.get(), s, sizeof(s), cudaMemcpyHostToDevice), "scalars");
  }

  aegisStatus_t call(aegisHandle_t h) const {
    check_cuda(aegisSetPointerMode(h, c_.device_scalars ? AEGIS_POINTER_MODE_DEVICE
                                                         : AEGIS_POINTER_MODE_HOST) == AEGIS_STATUS_SUCCESS
                   ? cudaSuccess
                   : cudaErrorUnknown,
               "aegisSetPointerMode");
    const T host_s[2] = {make_value<T>(c_.alpha[0], c_.alpha[1]), make_value<T>(c_.beta[0], c_.beta[1])};
    const T* alpha = c_.device_scalars ? scalars_.get() : &host_s[0];
    const T* beta = c_.device_scalars ? scalars_.get() + 1 : &host_s[1];
    const T* A = a_.get();
    const T* sub = A + c_.off_r + c_.off_c * lda_;
    const T* x = x_.get();
    T* y = y_.get();
    const aegisFillMode_t uplo = c_.upper ? AEGIS_FILL_MODE_UPPER : AEGIS_FILL_MODE_LOWER;
    const aegisOperation_t op = c_.kind == Blas2Kind::GemvN   ? AEGIS_OP_N
                                : c_.kind == Blas2Kind::GemvT ? AEGIS_OP_T
                                                              : AEGIS_OP_C;
    aegisStatus_t s;
    if constexpr (std::is_same_v<T, float>) {
      if (symmetric(c_.kind))
        s = c_.offset_call ? aegisSsymvOffset(h, uplo, c_.n, alpha, A, lda_, x, c_.incx, beta, y, c_.incy, c_.off_r)
                           : aegisSsymv(h, uplo, c_.n, alpha, sub, lda_, x, c_.incx, beta, y, c_.incy);
      else
        s = c_.offset_call ? aegisSgemvOffset(h, op, c_.m, c_.n, alpha, A, lda_, x, c_.incx, beta, y, c_.incy, c_.off_r, c_.off_c)
                           : aegisSgemv(h, op, c_.m, c_.n, alpha, sub, lda_, x, c_.incx, beta, y, c_.incy);
    } else if constexpr (std::is_same_v<T, double>) {
      if (symmetric(c_.kind))
        s = c_.offset_call ? aegisDsymvOffset(h, uplo, c_.n, alpha, A, lda_, x, c_.incx, beta, y, c_.incy, c_.off_r)
                           : aegisDsymv(h, uplo, c_.n, alpha, sub, lda_, x, c_.incx, beta, y, c_.incy);
      else
        s = c_.offset_call ? aegisDgemvOffset(h, op, c_.m, c_.n, alpha, A, lda_, x, c_.incx, beta, y, c_.incy, c_.off_r, c_.off_c)
                           : aegisDgemv(h, op, c_.m, c_.n, alpha, sub, lda_, x, c_.incx, beta, y, c_.incy);
    } else if constexpr (std::is_same_v<T, cuComplex>) {
      if (c_.kind == Blas2Kind::Symv)
        s = c_.offset_call ? aegisCsymvOffset(h, uplo, c_.n, alpha, A, lda_, x, c_.incx, beta, y, c_.incy, c_.off_r)
                           : aegisCsymv(h, uplo, c_.n, alpha, sub, lda_, x, c_.incx, beta, y, c_.incy);
      else if (c_.kind == Blas2Kind::Hemv)
        s = c_.offset_call ? aegisChemvOffset(h, uplo, c_.n, alpha, A, lda_, x, c_.incx, beta, y, c_.incy, c_.off_r)
                           : aegisChemv(h, uplo, c_.n, alpha, sub, lda_, x, c_.incx, beta, y, c_.incy);
      else
        s = c_.offset_call ? aegisCgemvOffset(h, op, c_.m, c_.n, alpha, A, lda_, x, c_.incx, beta, y, c_.incy, c_.off_r, c_.off_c)
                           : aegisCgemv(h, op, c_.m, c_.n, alpha, sub, lda_, x, c_.incx, beta, y, c_.incy);
    } else {
      if (c_.kind == Blas2Kind::Symv)
        s = c_.offset_call ? aegisZsymvOffset(h, uplo, c_.n, alpha, A, lda_, x, c_.incx, beta, y, c_.incy, c_.off_r)
                           : aegisZsymv(h, uplo, c_.n, alpha, sub, lda_, x, c_.incx, beta, y, c_.incy);
      else if (c_.kind == Blas2Kind::Hemv)
        s = c_.offset_call ? aegisZhemvOffset(h, uplo, c_.n, alpha, A, lda_, x, c_.incx, beta, y, c_.incy, c_.off_r)
                           : aegisZhemv(h, uplo, c_.n, alpha, sub, lda_, x, c_.incx, beta, y, c_.incy);
      else
        s = c_.offset_call ? aegisZgemvOffset(h, op, c_.m, c_.n, alpha, A, lda_, x, c_.incx, beta, y, c_.incy, c_.off_r, c_.off_c)
                           : aegisZgemv(h, op, c_.m, c_.n, alpha, sub, lda_, x, c_.incx, beta, y, c_.incy);
    }
    return s;
  }

  std::vector<T> result() const { return download(y_, host_y_.size()); }
  void reset_y() const {
    check_cuda(cudaMemcpy(y_.get(), host_y_.data(), sizeof(T) * host_y_.size(), cudaMemcpyHostToDevice),
               "reset y");
  }

  ::testing::AssertionResult verify(const std::string& context) const {
    check_cuda(cudaDeviceSynchronize(), "after the level-2 call");
    const std::string what = c_.describe() + " [" + context + "]";
    if (!bitwise_equal(download(a_, host_a_.size()), host_a_))
      return ::testing::AssertionFailure() << what << ": A changed";
    if (!bitwise_equal(download(x_, host_x_.size()), host_x_))
      return ::testing::AssertionFailure() << what << ": x changed";
    const std::vector<T> y = result();
    const int64_t sy = c_.incy < 0 ? -c_.incy : c_.incy;
    for (size_t p = 0; p < y.size(); ++p)
      if (int64_t(p) % sy != 0 || int64_t(p) / sy >= len_y_)
        if (std::memcmp(&y[p], &host_y_[p], sizeof(T)) != 0)
          return ::testing::AssertionFailure() << what << ": y changed at gap/guard position " << p;

    Blas2RefArgs r;
    r.kind = c_.kind;
    r.upper = c_.upper;
    r.m = c_.m;
    r.n = c_.n;
    r.A = a_.get() + c_.off_r + c_.off_c * lda_;
    r.lda = lda_;
    r.x0 = x_.get() + (c_.incx < 0 ? (len_x_ - 1) * -c_.incx : 0);
    r.incx = c_.incx;
    // y0: the original y (a device copy).
    DeviceBuffer<T> y0 = upload(host_y_);
    r.y0 = y0.get() + (c_.incy < 0 ? (len_y_ - 1) * -c_.incy : 0);
    r.incy = c_.incy;
    r.alpha[0] = c_.alpha[0], r.alpha[1] = c_.alpha[1];
    r.beta[0] = c_.beta[0], r.beta[1] = c_.beta[1];
    std::vector<double> ref, bound;
    blas2_reference<T>(r, &ref, &bound);
    const int64_t k = symmetric(c_.kind) ? c_.n : (c_.kind == Blas2Kind::GemvN ? c_.n : c_.m);
    const double u = kIsSingle<T> ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
    const double gamma = double(k + 4) * u / (1 - double(k + 4) * u) * (kIsComplex<T> ? 2.0 : 1.0);
    double worst = 0;
    for (int64_t i = 0; i < len_y_; ++i) {
      const int64_t pos = (c_.incy > 0 ? i * c_.incy : (len_y_ - 1 - i) * -c_.incy);
      double re, im;
      value_parts(y[size_t(pos)], &re, &im);
      const double err = std::hypot(re - ref[2 * i], im - ref[2 * i + 1]);
      const double allowed = gamma * bound[i] + 1e-300;
      const double normalized = err / allowed;
      if (!(normalized <= 1.0))
        return ::testing::AssertionFailure()
               << what << ": element " << i << " = (" << re << ", " << im << "), reference ("
               << ref[2 * i] << ", " << ref[2 * i + 1] << "), error " << err << " > allowed "
               << allowed;
      worst = std::max(worst, normalized);
    }
    return ::testing::AssertionSuccess() << what << ": max normalized error " << worst;
  }

 private:
  double uniform() { return std::uniform_real_distribution<double>(-1.0, 1.0)(rng_); }
  // A vector of len elements at stride |inc| plus a guard; gaps and guard NaN (x: must not
  // be read; y: must stay bitwise). poison: the elements themselves NaN (y with beta = 0).
  std::vector<T> strided(int64_t len, int64_t inc, bool poison) {
    const int64_t s = inc < 0 ? -inc : inc;
    const size_t size = size_t(len > 0 ? (len - 1) * s + 1 : 1) + 5;  // + guard
    std::vector<T> v(size);
    for (size_t p = 0; p < size; ++p) {
      const bool element = int64_t(p) % s == 0 && int64_t(p) / s < len;
      if (element)
        v[p] = poison ? make_value<T>(kNaN, kNaN) : make_value<T>(uniform(), uniform());
      else
        v[p] = make_value<T>(kNaN, kNaN);
    }
    return v;
  }
  static DeviceBuffer<T> upload(const std::vector<T>& h) {
    DeviceBuffer<T> d(h.size());
    check_cuda(cudaMemcpy(d.get(), h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice), "upload");
    return d;
  }
  static std::vector<T> download(const DeviceBuffer<T>& d, size_t count) {
    std::vector<T> h(count);
    check_cuda(cudaMemcpy(h.data(), d.get(), sizeof(T) * count, cudaMemcpyDeviceToHost), "download");
    return h;
  }
  static bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(T) * a.size()) == 0;
  }

  Blas2Case c_;
  std::mt19937_64 rng_;
  int64_t len_x_ = 0, len_y_ = 0, rows_full_ = 0, cols_full_ = 0, lda_ = 1;
  std::vector<T> host_a_, host_x_, host_y_;
  DeviceBuffer<T> a_, x_, y_, scalars_;
};

template <typename T>
::testing::AssertionResult run_case(aegisHandle_t h, const Blas2Case& c, uint64_t seed,
                                    aegisReductionMode_t mode) {
  if (aegisSetReductionMode(h, mode) != AEGIS_STATUS_SUCCESS)
    return ::testing::AssertionFailure() << "aegisSetReductionMode failed";
  const Blas2Problem<T> p(c, seed);
  const aegisStatus_t s = p.call(h);
  if (s != AEGIS_STATUS_SUCCESS)
    return ::testing::AssertionFailure() << c.describe() << ": " << aegisGetStatusName(s) << ": "
                                         << aegisGetLastErrorString(h);
  const char* config = "";
  int y = 0;
  aegisGetLastBlas2Choice(h, &config, &y);
  aegisBlas2Sums_t sums = AEGIS_BLAS2_SUMS_AUTO;
  aegisGetLastBlas2Sums(h, &sums);
  std::string context = std::string(mode == AEGIS_REDUCTION_ATOMICS ? "atomics" : "deterministic") +
                        ", " + (config[0] ? config : "no kernel") + " Y=" + std::to_string(y) +
                        (sums == AEGIS_BLAS2_SUMS_CLUSTER ? " (cluster)" : "");
  ::testing::AssertionResult r = p.verify(context);
  if (!r || mode != AEGIS_REDUCTION_DETERMINISTIC) return r;
  // Deterministic: the same bits again.
  const std::vector<T> first = p.result();
  p.reset_y();
  if (p.call(h) != AEGIS_STATUS_SUCCESS) return ::testing::AssertionFailure() << "second call failed";
  check_cuda(cudaDeviceSynchronize(), "second call");
  const std::vector<T> second = p.result();
  if (std::memcmp(first.data(), second.data(), sizeof(T) * first.size()) != 0)
    return ::testing::AssertionFailure() << c.describe() << " [" << context
                                         << "]: deterministic mode gave different bits on a second run";
  return r;
}

// With the configuration `name` forced: c in both reduction modes, checked, and `name` is
// what ran.
template <typename T>
void expect_forced_config_runs(aegisHandle_t h, const std::string& name, const Blas2Case& c,
                               uint64_t seed, const std::string& label) {
  for (aegisReductionMode_t mode : {AEGIS_REDUCTION_DETERMINISTIC, AEGIS_REDUCTION_ATOMICS}) {
    EXPECT_TRUE(run_case<T>(h, c, seed, mode)) << label;
    const char* used = "";
    aegisGetLastBlas2Choice(h, &used, nullptr);
    EXPECT_EQ(name, used);
  }
}

// expect_forced_config_runs for a GEMV configuration, in each reduction mode once with its
// split sums meeting in the workspace (atomics mode: atomic adds) and once in a cluster where
// the split allows (2 to 16 blocks per panel on sm_90), and the way they met is the one asked
// for.
template <typename T>
void expect_forced_gemv_runs(aegisHandle_t h, const std::string& name, const Blas2Case& c,
                             uint64_t seed, const std::string& label) {
  int major = 0, device = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  for (aegisReductionMode_t mode : {AEGIS_REDUCTION_DETERMINISTIC, AEGIS_REDUCTION_ATOMICS})
    for (aegisBlas2Sums_t sums : {AEGIS_BLAS2_SUMS_WORKSPACE, AEGIS_BLAS2_SUMS_CLUSTER}) {
      ASSERT_EQ(aegisSetBlas2SumsOverride(h, sums), AEGIS_STATUS_SUCCESS);
      EXPECT_TRUE(run_case<T>(h, c, seed, mode)) << label;
      const char* config = "";
      int y = 0;
      aegisGetLastBlas2Choice(h, &config, &y);
      EXPECT_EQ(name, config);
      aegisBlas2Sums_t used = AEGIS_BLAS2_SUMS_AUTO;
      aegisGetLastBlas2Sums(h, &used);
      const bool cluster =
          sums == AEGIS_BLAS2_SUMS_CLUSTER && major >= 9 && y <= AEGIS_BLAS2_CLUSTER_SPLIT_MAX;
      const aegisBlas2Sums_t expected =
          y <= 1    ? AEGIS_BLAS2_SUMS_AUTO
          : cluster ? AEGIS_BLAS2_SUMS_CLUSTER
          : mode == AEGIS_REDUCTION_DETERMINISTIC ? AEGIS_BLAS2_SUMS_WORKSPACE
                                                  : AEGIS_BLAS2_SUMS_AUTO;
      EXPECT_EQ(used, expected) << label << " Y " << y << " mode " << int(mode);
    }
  ASSERT_EQ(aegisSetBlas2SumsOverride(h, AEGIS_BLAS2_SUMS_AUTO), AEGIS_STATUS_SUCCESS);
}

// The first letter of this precision's configuration names.
template <typename T>
constexpr char precision_letter() {
  return std::is_same_v<T, float>       ? 's'
         : std::is_same_v<T, double>    ? 'd'
         : std::is_same_v<T, cuComplex> ? 'c'
                                        : 'z';
}

// The configurations of one GEMV family ("gemv_n", "gemv_t") of this precision built into
// the library.
template <typename T>
std::vector<std::string> gemv_configs(const char* family) {
  std::vector<std::string> names;
  for (int i = 0; i < aegisBlas2ConfigCount(); ++i) {
    const std::string name = aegisBlas2ConfigName(i);
    if (name[0] == precision_letter<T>() && name.find(family) != std::string::npos)
      names.push_back(name);
  }
  return names;
}

// Sizes around the tile and panel sizes of every configuration (8..512), primes, 1:10 and
// 10:1 aspects.
const std::vector<std::pair<int64_t, int64_t>>& gemv_sizes() {
  static const std::vector<std::pair<int64_t, int64_t>> s = {
      {1, 1},     {1, 9},     {9, 1},     {2, 3},     {15, 17},   {31, 33},    {32, 32},
      {63, 65},   {127, 129}, {255, 257}, {256, 256}, {257, 255}, {511, 513},  {20, 200},
      {200, 20},  {101, 1009}, {1009, 101}, {997, 1000}, {3000, 67}, {67, 3000}};
  return s;
}
const std::vector<int64_t>& symv_sizes() {
  static const std::vector<int64_t> s = {1, 2, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 211, 509, 1000};
  return s;
}

struct IncPair {
  int64_t x, y;
};
const IncPair kIncs[] = {{1, 1}, {-1, 2}, {3, -2}, {-2, -1}, {1, 1}, {2, 3}};
struct ScalarPair {
  double alpha[2], beta[2];
};
const ScalarPair kScalars[] = {{{1, 0}, {0, 0}},
                               {{-0.75, 0.5}, {0.5, -0.25}},
                               {{1.5, 0}, {1, 0}},
                               {{0.5, -1}, {0, 0}},
                               {{-1, 0}, {-1.25, 0.75}}};

template <typename T>
Blas2Case make_case(Blas2Kind kind, int64_t m, int64_t n, size_t index) {
  Blas2Case c;
  c.kind = kind;
  c.m = m;
  c.n = n;
  c.ld_mode = int(index % 3);
  c.incx = kIncs[index % 6].x;
  c.incy = kIncs[(index / 2) % 6].y;
  const ScalarPair& s = kScalars[index % 5];
  c.alpha[0] = s.alpha[0], c.alpha[1] = kIsComplex<T> ? s.alpha[1] : 0;
  c.beta[0] = s.beta[0], c.beta[1] = kIsComplex<T> ? s.beta[1] : 0;
  return c;
}

template <typename T>
class Blas2Gemv : public GpuTest {};
template <typename T>
class Blas2Symv : public GpuTest {};
template <typename T>
class Blas2SmallSanitizer : public GpuTest {};
using Blas2Types = ::testing::Types<float, double, cuComplex, cuDoubleComplex>;
TYPED_TEST_SUITE(Blas2Gemv, Blas2Types);
TYPED_TEST_SUITE(Blas2Symv, Blas2Types);
TYPED_TEST_SUITE(Blas2SmallSanitizer, Blas2Types);

std::vector<Blas2Kind> gemv_kinds(bool complex) {
  if (complex) return {Blas2Kind::GemvN, Blas2Kind::GemvT, Blas2Kind::GemvC};
  return {Blas2Kind::GemvN, Blas2Kind::GemvT};
}
std::vector<Blas2Kind> symv_kinds(bool complex) {
  if (complex) return {Blas2Kind::Symv, Blas2Kind::Hemv};
  return {Blas2Kind::Symv};
}

TYPED_TEST(Blas2Gemv, SizesIncrementsScalarsBothModes) {
  size_t index = 0;
  for (Blas2Kind kind : gemv_kinds(kIsComplex<TypeParam>))
    for (const auto& [m, n] : gemv_sizes())
      for (aegisReductionMode_t mode : {AEGIS_REDUCTION_DETERMINISTIC, AEGIS_REDUCTION_ATOMICS}) {
        const Blas2Case c = make_case<TypeParam>(kind, m, n, index);
        EXPECT_TRUE(run_case<TypeParam>(this->h_, c, case_seed(this->seed_, index), mode));
        ++index;
      }
}

TYPED_TEST(Blas2Gemv, OffsetsAndDeviceScalars) {
  size_t index = 0;
  for (Blas2Kind kind : gemv_kinds(kIsComplex<TypeParam>))
    for (int64_t off_r : {0, 1, 2, 3, 5})
      for (const auto& [m, n] : {std::pair<int64_t, int64_t>{300, 70}, {70, 300}, {7, 5}}) {
        Blas2Case c = make_case<TypeParam>(kind, m, n, index);
        c.offset_call = index % 2 == 0;  // the plain routine on the sub-pointer otherwise
        c.off_r = off_r;
        c.off_c = 1 + off_r % 2;
        c.ld_mode = 1;
        c.device_scalars = index % 3 == 0;
        EXPECT_TRUE(run_case<TypeParam>(this->h_, c, case_seed(this->seed_, index),
                                        index % 4 < 2 ? AEGIS_REDUCTION_DETERMINISTIC : AEGIS_REDUCTION_ATOMICS));
        ++index;
      }
}

TYPED_TEST(Blas2Gemv, AlphaZeroOnlyScales) {
  for (bool device : {false, true}) {
    Blas2Case c = make_case<TypeParam>(Blas2Kind::GemvN, 40, 30, 0);
    c.alpha[0] = c.alpha[1] = 0;
    c.beta[0] = 0.5;
    c.device_scalars = device;
    EXPECT_TRUE(run_case<TypeParam>(this->h_, c, case_seed(this->seed_, device), AEGIS_REDUCTION_ATOMICS));
    c.beta[0] = 0;
    EXPECT_TRUE(run_case<TypeParam>(this->h_, c, case_seed(this->seed_, 2 + device),
                                    AEGIS_REDUCTION_DETERMINISTIC));
  }
}

TYPED_TEST(Blas2Symv, SizesUploIncrementsBothModes) {
  size_t index = 0;
  for (Blas2Kind kind : symv_kinds(kIsComplex<TypeParam>))
    for (bool upper : {false, true})
      for (int64_t n : symv_sizes())
        for (aegisReductionMode_t mode : {AEGIS_REDUCTION_DETERMINISTIC, AEGIS_REDUCTION_ATOMICS}) {
          Blas2Case c = make_case<TypeParam>(kind, n, n, index);
          c.upper = upper;
          EXPECT_TRUE(run_case<TypeParam>(this->h_, c, case_seed(this->seed_, index), mode));
          ++index;
        }
}

TYPED_TEST(Blas2Symv, OffsetsAndDeviceScalars) {
  size_t index = 0;
  for (Blas2Kind kind : symv_kinds(kIsComplex<TypeParam>))
    for (bool upper : {false, true})
      for (int64_t off : {0, 1, 2, 3})
        for (int64_t n : {5, 100, 257}) {
          Blas2Case c = make_case<TypeParam>(kind, n, n, index);
          c.upper = upper;
          c.offset_call = index % 2 == 0;
          c.off_r = c.off_c = off;
          c.ld_mode = 1;
          c.device_scalars = index % 3 == 1;
          EXPECT_TRUE(run_case<TypeParam>(this->h_, c, case_seed(this->seed_, index),
                                          index % 4 < 2 ? AEGIS_REDUCTION_DETERMINISTIC : AEGIS_REDUCTION_ATOMICS));
          ++index;
        }
}

TYPED_TEST(Blas2Symv, EveryConfigurationOverride) {
  // Every built configuration of this precision's SYMV/HEMV and GEMV, with several splits.
  constexpr char letter = precision_letter<TypeParam>();
  size_t index = 0;
  for (int i = 0; i < aegisBlas2ConfigCount(); ++i) {
    const std::string name = aegisBlas2ConfigName(i);
    if (name[0] != letter) continue;
    for (int y : {1, 3, 0}) {
      ASSERT_EQ(aegisSetBlas2Override(this->h_, name.c_str(), y), AEGIS_STATUS_SUCCESS);
      Blas2Kind kind = name.find("gemv_n") != std::string::npos   ? Blas2Kind::GemvN
                       : name.find("gemv_t") != std::string::npos ? Blas2Kind::GemvT
                       : name.find("hemv") != std::string::npos   ? Blas2Kind::Hemv
                                                                  : Blas2Kind::Symv;
      const int64_t n = symmetric(kind) ? 301 : 517;
      Blas2Case c = make_case<TypeParam>(kind, symmetric(kind) ? n : 389, n, index);
      c.upper = index % 2 == 1;
      expect_forced_config_runs<TypeParam>(this->h_, name, c, case_seed(this->seed_, index), name);
      ++index;
    }
  }
  aegisSetBlas2Override(this->h_, nullptr, 0);
}

TYPED_TEST(Blas2Symv, EverySymvConfigurationSizesAroundTheTile) {
  // Every SYMV/HEMV configuration of this precision, sizes around its tile and two tiles,
  // splits whose chunks end inside and at the end of a block column (1, 2, 3, 7, a whole
  // column, automatic), both triangles, both modes (the deterministic one bitwise twice),
  // offsets and negative increments.
  constexpr char letter = precision_letter<TypeParam>();
  size_t index = 0;
  for (int i = 0; i < aegisBlas2ConfigCount(); ++i) {
    const std::string name = aegisBlas2ConfigName(i);
    if (name[0] != letter || name.find("mv_nb") == std::string::npos || name.find("gemv") != std::string::npos)
      continue;
    const int nb = std::stoi(name.substr(name.find("_nb") + 3));
    const Blas2Kind kind = name.find("hemv") != std::string::npos ? Blas2Kind::Hemv : Blas2Kind::Symv;
    for (int64_t n : {int64_t(nb - 1), int64_t(nb), int64_t(nb + 1), int64_t(2 * nb + 3), int64_t(7 * nb + 5)})
      for (int y : {1, 2, 3, 7, int(n / nb + 1), 0}) {
        ASSERT_EQ(aegisSetBlas2Override(this->h_, name.c_str(), y), AEGIS_STATUS_SUCCESS);
        Blas2Case c = make_case<TypeParam>(kind, n, n, index);
        c.upper = index % 2 == 1;
        if (index % 3 == 2) {
          c.offset_call = index % 4 < 2;
          c.off_r = c.off_c = 1 + int64_t(index % 3);
          c.ld_mode = 1;
        }
        expect_forced_config_runs<TypeParam>(
            this->h_, name, c, case_seed(this->seed_, index),
            name + " n " + std::to_string(n) + " Y " + std::to_string(y));
        ++index;
      }
  }
  aegisSetBlas2Override(this->h_, nullptr, 0);
}

TYPED_TEST(Blas2Gemv, EveryGemvTConfigurationLongColumns) {
  // Every GEMV T/C configuration of this precision, columns long enough for many full row
  // steps per block, splits that leave blocks 0, 1, 2 or many full steps (and, for the
  // double complex kernels' groups of 2 or 4 steps, every remainder), row offsets
  // (partial first step) and ragged ends, both modes, the deterministic split sums meeting in
  // the workspace and in a cluster (splits up to 16; 12 and 16 are non-portable sizes).
  size_t index = 0;
  for (const std::string& name : gemv_configs<TypeParam>("gemv_t")) {
    for (const auto& [m, n] : {std::pair<int64_t, int64_t>{4099, 37}, {1000, 300}, {129, 65}})
      for (int y : {1, 2, 5, 12, 16, 40, 0}) {
        ASSERT_EQ(aegisSetBlas2Override(this->h_, name.c_str(), y), AEGIS_STATUS_SUCCESS);
        const Blas2Kind kind = kIsComplex<TypeParam> && index % 2 == 1 ? Blas2Kind::GemvC : Blas2Kind::GemvT;
        Blas2Case c = make_case<TypeParam>(kind, m, n, index);
        c.ld_mode = 1;  // aligned lda where the vector width allows: the vector-load path
        if (index % 3 == 2) {
          c.offset_call = index % 4 < 2;
          c.off_r = 1 + int64_t(index % 3);
          c.off_c = 2;
        }
        expect_forced_gemv_runs<TypeParam>(
            this->h_, name, c, case_seed(this->seed_, index),
            name + " m " + std::to_string(m) + " n " + std::to_string(n) + " Y " + std::to_string(y));
        ++index;
      }
  }
  aegisSetBlas2Override(this->h_, nullptr, 0);
}

TYPED_TEST(Blas2Gemv, EveryGemvNConfigurationForcedSplits) {
  // Every GEMV N configuration of this precision with forced column splits (powers of two
  // and not, up to 17 blocks per panel: clusters of 2 to 16, only the workspace past that),
  // both modes, row offsets and ragged panels; the split used is the split asked for, or the
  // number of column groups (Q x 4 columns, the split's unit) where there are fewer.
  size_t index = 0;
  for (const std::string& name : gemv_configs<TypeParam>("gemv_n")) {
    const int64_t q = std::stoi(name.substr(name.find("_q") + 2));
    for (const auto& [m, n] : {std::pair<int64_t, int64_t>{517, 3001}, {129, 700}})
      for (int y : {2, 5, 8, 9, 16, 17}) {
        const int64_t groups = (n + 4 * q - 1) / (4 * q);
        ASSERT_EQ(aegisSetBlas2Override(this->h_, name.c_str(), y), AEGIS_STATUS_SUCCESS);
        Blas2Case c = make_case<TypeParam>(Blas2Kind::GemvN, m, n, index);
        c.ld_mode = 1;
        if (index % 2 == 1) {
          c.offset_call = true;
          c.off_r = 1 + int64_t(index % 3);
          c.off_c = 1;
        }
        const std::string label = name + " m " + std::to_string(m) + " n " + std::to_string(n) +
                                  " Y " + std::to_string(y);
        expect_forced_gemv_runs<TypeParam>(this->h_, name, c, case_seed(this->seed_, index),
                                             label);
        int used_y = 0;
        aegisGetLastBlas2Choice(this->h_, nullptr, &used_y);
        EXPECT_EQ(used_y, std::min<int64_t>(y, groups)) << label;
        ++index;
      }
  }
  aegisSetBlas2Override(this->h_, nullptr, 0);
}

TYPED_TEST(Blas2Gemv, GemvTMorePanelsThanOneGridDimension) {
  // GEMV T/C launches its column panels along grid y and z: more than 65535 panels (short,
  // very wide A) must use the z slices, the last one partial. Deterministic mode falls back
  // to one block per panel there (more panels than arrival counters) unless its split meets
  // in a cluster (sm_90: Y = 3 in both modes).
  size_t index = 0;
  for (const std::string& name : gemv_configs<TypeParam>("gemv_t")) {
    const int64_t nb = std::stoll(name.substr(name.find("_nb") + 3));
    const int64_t m = 3, n = 65535 * nb + 3 * nb + 5;
    ASSERT_EQ(aegisSetBlas2Override(this->h_, name.c_str(), 3), AEGIS_STATUS_SUCCESS);
    const Blas2Kind kind = kIsComplex<TypeParam> && index % 2 == 1 ? Blas2Kind::GemvC : Blas2Kind::GemvT;
    Blas2Case c = make_case<TypeParam>(kind, m, n, index);
    c.ld_mode = int(index % 2);  // lda = 3 (element loads) or 8 (vector loads where they fit)
    expect_forced_gemv_runs<TypeParam>(this->h_, name, c, case_seed(this->seed_, index),
                                         name + " m 3 n " + std::to_string(n));
    ++index;
  }
  aegisSetBlas2Override(this->h_, nullptr, 0);
}

TYPED_TEST(Blas2Gemv, LargeSplitDeterministic) {
  // Sizes where dispatch splits the sums over many blocks (the ordered reduction at work).
  size_t index = 0;
  for (Blas2Kind kind : gemv_kinds(kIsComplex<TypeParam>))
    for (const auto& [m, n] : {std::pair<int64_t, int64_t>{512, 6000}, {6000, 512}, {2048, 2048}}) {
      Blas2Case c = make_case<TypeParam>(kind, m, n, index);
      EXPECT_TRUE(run_case<TypeParam>(this->h_, c, case_seed(this->seed_, index), AEGIS_REDUCTION_DETERMINISTIC));
      ++index;
    }
  for (Blas2Kind kind : symv_kinds(kIsComplex<TypeParam>)) {
    Blas2Case c = make_case<TypeParam>(kind, 2500, 2500, index);
    c.upper = true;
    EXPECT_TRUE(run_case<TypeParam>(this->h_, c, case_seed(this->seed_, index), AEGIS_REDUCTION_DETERMINISTIC));
    ++index;
  }
}

// A non-blocking stream set on the handle for one test's calls; the handle goes back to the
// default stream, and the stream is destroyed, when the test ends (also on a failed ASSERT).
class HandleStream {
 public:
  explicit HandleStream(aegisHandle_t h) : h_(h) {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream");
    check_cuda(aegisSetStream(h_, stream_) == AEGIS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown,
               "aegisSetStream");
  }
  ~HandleStream() {
    aegisSetStream(h_, nullptr);
    cudaStreamDestroy(stream_);
  }
  HandleStream(const HandleStream&) = delete;
  HandleStream& operator=(const HandleStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  aegisHandle_t h_;
  cudaStream_t stream_ = nullptr;
};

// Atomics mode: GEMV's y is scaled by beta inside the grid, against a count on the handle
// that only grows. Calls queued back to back with nothing between them (each one's count
// target following the last), forced splits so that many blocks add into every element, then
// the same call captured into a graph and replayed, where y is scaled by a pre-pass kernel.
TYPED_TEST(Blas2Gemv, AtomicsModeBackToBackAndInGraphs) {
  using T = TypeParam;
  ASSERT_EQ(aegisSetReductionMode(this->h_, AEGIS_REDUCTION_ATOMICS), AEGIS_STATUS_SUCCESS);
  const HandleStream handle_stream(this->h_);
  const cudaStream_t stream = handle_stream.get();
  size_t index = 0;
  std::vector<Blas2Case> cases;
  for (Blas2Kind kind : gemv_kinds(kIsComplex<T>))
    for (const auto& [m, n] : {std::pair<int64_t, int64_t>{700, 900}, {1500, 300}, {5, 2000}})
      cases.push_back(make_case<T>(kind, m, n, index++));
  std::vector<std::unique_ptr<Blas2Problem<T>>> problems;
  for (size_t i = 0; i < cases.size(); ++i) {
    problems.push_back(std::make_unique<Blas2Problem<T>>(cases[i], case_seed(this->seed_, i)));
    const std::string config =
        gemv_configs<T>(cases[i].kind == Blas2Kind::GemvN ? "gemv_n" : "gemv_t").front();
    ASSERT_EQ(aegisSetBlas2Override(this->h_, config.c_str(), int(4 + 5 * i)), AEGIS_STATUS_SUCCESS);
    ASSERT_EQ(problems.back()->call(this->h_), AEGIS_STATUS_SUCCESS) << aegisGetLastErrorString(this->h_);
  }
  for (const auto& p : problems) EXPECT_TRUE(p->verify("atomics, back to back"));
  ASSERT_EQ(aegisSetBlas2Override(this->h_, nullptr, 0), AEGIS_STATUS_SUCCESS);

  const Blas2Problem<T>& p = *problems.front();
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "begin capture");
  const aegisStatus_t captured = p.call(this->h_);
  check_cuda(cudaStreamEndCapture(stream, &graph), "end capture");
  ASSERT_EQ(captured, AEGIS_STATUS_SUCCESS) << aegisGetLastErrorString(this->h_);
  check_cuda(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
  for (int replay = 0; replay < 3; ++replay) {
    p.reset_y();
    check_cuda(cudaGraphLaunch(exec, stream), "graph launch");
    EXPECT_TRUE(p.verify("atomics, graph replay " + std::to_string(replay)));
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

// p's call captured into a graph on `stream` and replayed three times, then called directly
// again: whether each gave the bits of `direct` (the same call made directly before). Outside
// a graph the deterministic sums may take the tagged parts (a new tag every call); in a graph,
// whose replays would repeat the captured tag, they take the untagged way, in the same order.
template <typename T>
::testing::AssertionResult graph_replays_match(aegisHandle_t h, cudaStream_t stream,
                                               const Blas2Problem<T>& p, const std::vector<T>& direct) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "begin capture");
  const aegisStatus_t captured = p.call(h);
  check_cuda(cudaStreamEndCapture(stream, &graph), "end capture");
  if (captured != AEGIS_STATUS_SUCCESS)
    return ::testing::AssertionFailure() << "capture: " << aegisGetLastErrorString(h);
  check_cuda(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
  ::testing::AssertionResult result = ::testing::AssertionSuccess();
  for (int replay = 0; replay < 3 && result; ++replay) {
    p.reset_y();
    check_cuda(cudaGraphLaunch(exec, stream), "graph launch");
    check_cuda(cudaStreamSynchronize(stream), "graph replay");
    if (std::memcmp(p.result().data(), direct.data(), sizeof(T) * direct.size()) != 0)
      result = ::testing::AssertionFailure() << "graph replay " << replay << " gave other bits than the direct call";
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  if (!result) return result;
  p.reset_y();
  if (p.call(h) != AEGIS_STATUS_SUCCESS)
    return ::testing::AssertionFailure() << "direct call after the graph: " << aegisGetLastErrorString(h);
  check_cuda(cudaStreamSynchronize(stream), "direct call after the graph");
  if (std::memcmp(p.result().data(), direct.data(), sizeof(T) * direct.size()) != 0)
    return ::testing::AssertionFailure() << "a direct call after the graph gave other bits";
  return result;
}

// Deterministic GEMV split sums: calls of different shapes and splits queued back to back
// (outside a graph each call's parts carry a new tag, in a buffer the calls before it left
// with older ones and which grows between them; the reduction kernel adds them as they land),
// splits of at most 8 parts, of more, and of more than the 64 parts of one pass of the
// reduction kernel; then each call captured into a graph (the last block of a panel adds the
// parts there), whose replays must give the direct call's bits.
TYPED_TEST(Blas2Gemv, DeterministicBackToBackAndInGraphs) {
  using T = TypeParam;
  ASSERT_EQ(aegisSetReductionMode(this->h_, AEGIS_REDUCTION_DETERMINISTIC), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisSetBlas2SumsOverride(this->h_, AEGIS_BLAS2_SUMS_WORKSPACE), AEGIS_STATUS_SUCCESS);
  const HandleStream handle_stream(this->h_);
  const cudaStream_t stream = handle_stream.get();
  struct Shape {
    int64_t m, n;
    int y;
  };
  size_t index = 0;
  std::vector<std::unique_ptr<Blas2Problem<T>>> problems;
  std::vector<std::pair<std::string, int>> forced;
  for (Blas2Kind kind : gemv_kinds(kIsComplex<T>)) {
    const bool n_kernel = kind == Blas2Kind::GemvN;
    const std::vector<Shape> shapes = n_kernel ? std::vector<Shape>{{700, 900, 4}, {300, 5000, 70}, {1500, 300, 13}}
                                               : std::vector<Shape>{{900, 700, 4}, {20000, 40, 70}, {300, 1500, 13}};
    for (const Shape& shape : shapes) {
      const std::string config = gemv_configs<T>(n_kernel ? "gemv_n" : "gemv_t").front();
      ASSERT_EQ(aegisSetBlas2Override(this->h_, config.c_str(), shape.y), AEGIS_STATUS_SUCCESS);
      problems.push_back(std::make_unique<Blas2Problem<T>>(make_case<T>(kind, shape.m, shape.n, index),
                                                           case_seed(this->seed_, index)));
      forced.emplace_back(config, shape.y);
      ++index;
      ASSERT_EQ(problems.back()->call(this->h_), AEGIS_STATUS_SUCCESS) << aegisGetLastErrorString(this->h_);
      int used_y = 0;
      aegisGetLastBlas2Choice(this->h_, nullptr, &used_y);
      EXPECT_GT(used_y, 1) << config << " m " << shape.m << " n " << shape.n;
    }
  }
  for (const auto& p : problems) EXPECT_TRUE(p->verify("deterministic, back to back"));
  for (size_t i = 0; i < problems.size(); ++i) {
    ASSERT_EQ(aegisSetBlas2Override(this->h_, forced[i].first.c_str(), forced[i].second), AEGIS_STATUS_SUCCESS);
    EXPECT_TRUE(graph_replays_match(this->h_, stream, *problems[i], problems[i]->result()))
        << forced[i].first << " Y " << forced[i].second;
  }
  ASSERT_EQ(aegisSetBlas2Override(this->h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisSetBlas2SumsOverride(this->h_, AEGIS_BLAS2_SUMS_AUTO), AEGIS_STATUS_SUCCESS);
}

// Deterministic SYMV/HEMV: calls of different sizes queued back to back (float: each call's
// parts carry a new tag in a buffer the calls before it left with older ones, and which
// grows between them), then each call captured into a graph (no tags there: a replay repeats
// its tag), whose replays must give the direct call's bits.
TYPED_TEST(Blas2Symv, DeterministicBackToBackAndInGraphs) {
  using T = TypeParam;
  ASSERT_EQ(aegisSetReductionMode(this->h_, AEGIS_REDUCTION_DETERMINISTIC), AEGIS_STATUS_SUCCESS);
  const HandleStream handle_stream(this->h_);
  const cudaStream_t stream = handle_stream.get();
  size_t index = 0;
  std::vector<std::unique_ptr<Blas2Problem<T>>> problems;
  for (Blas2Kind kind : symv_kinds(kIsComplex<T>))
    for (const auto& [n, upper] : {std::pair<int64_t, bool>{700, false}, {2500, true}, {130, false}, {3001, false}}) {
      Blas2Case c = make_case<T>(kind, n, n, index);
      c.upper = upper;
      problems.push_back(std::make_unique<Blas2Problem<T>>(c, case_seed(this->seed_, index++)));
      ASSERT_EQ(problems.back()->call(this->h_), AEGIS_STATUS_SUCCESS) << aegisGetLastErrorString(this->h_);
    }
  for (const auto& p : problems) EXPECT_TRUE(p->verify("deterministic, back to back"));
  for (const auto& p : problems) EXPECT_TRUE(graph_replays_match(this->h_, stream, *p, p->result()));
}

// Small cases of every routine, for compute-sanitizer memcheck.
TYPED_TEST(Blas2SmallSanitizer, EveryRoutineSmall) {
  size_t index = 0;
  for (aegisReductionMode_t mode : {AEGIS_REDUCTION_DETERMINISTIC, AEGIS_REDUCTION_ATOMICS}) {
    for (Blas2Kind kind : gemv_kinds(kIsComplex<TypeParam>))
      for (const auto& [m, n] : {std::pair<int64_t, int64_t>{1, 1}, {33, 17}, {17, 70}, {130, 9}}) {
        Blas2Case c = make_case<TypeParam>(kind, m, n, index);
        c.offset_call = index % 3 == 0;
        c.off_r = index % 4;
        c.off_c = 1;
        EXPECT_TRUE(run_case<TypeParam>(this->h_, c, case_seed(this->seed_, index), mode));
        ++index;
      }
    for (Blas2Kind kind : symv_kinds(kIsComplex<TypeParam>))
      for (bool upper : {false, true})
        for (int64_t n : {1, 33, 70}) {
          Blas2Case c = make_case<TypeParam>(kind, n, n, index);
          c.upper = upper;
          c.offset_call = index % 3 == 0;
          c.off_r = c.off_c = index % 4;
          EXPECT_TRUE(run_case<TypeParam>(this->h_, c, case_seed(this->seed_, index), mode));
          ++index;
        }
  }
}

}  // namespace
}  // namespace aegis_test
