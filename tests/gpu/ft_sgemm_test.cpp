// FT-SGEMM: aegisSgemm with fused ABFT (aegisSetFtMode DETECT / CORRECT) at block level, and
// at warp and thread level (FtSgemmLevels), through the public API only.
//
// Suites (gtest filters):
//   FtSgemmApi.*        modes, the FT kernel and no split-K, call counting, statistics and
//                       their reset, records (the last 16, oldest first), faults waiting for
//                       an FT call and consumed by it, aegisClearFaults
//   FtSgemmClean.*      zero false positives: adversarial data (uniform, normal, all-positive,
//                       log-uniform 1e-6..1e6, heavy cancellation, small integers, subnormal
//                       products), shapes around tile edges, all transposes, alpha/beta with a
//                       NaN-poisoned C, K from 1 to 4099; the verify interval changes no bit
//   FtSgemmNonFinite.*  Inf/NaN inputs are not faults: counted non-finite, IEEE results,
//                       other rows/columns exact, faults elsewhere still handled
//   FtSgemmCorrect.*    injected faults in CORRECT mode: accumulator ADD / BITFLIP at every
//                       k step and in the epilogue, checksum hits, two faults in a line, many
//                       tiles at once, the verify interval repairing faults at far-apart steps,
//                       low mantissa bit flips; the result is the clean one within the bound
//   FtSgemmDetect.*     DETECT mode: counted and reported, C left as computed
//   FtSgemmConfigs.*    every compiled config forced with aegisSetSgemmOverride, clean and
//                       with faults in the last partial tile
//   FtSgemmLevels.*     warp and thread level: the clean, transpose, interval, single-fault,
//                       checksum, DETECT, non-finite and every-config cases, and faults in
//                       different cells of one tile each repaired in place
//   FtSgemmSanitizer.*  a few tiny cases (faults included) for compute-sanitizer:
//     compute-sanitizer --tool memcheck build/tests/aegis_gpu_tests
//     --gtest_filter='FtSgemmSanitizer.*'
// All of them: --gtest_filter='FtSgemm*'. A failure prints AEGIS_TEST_SEED=<seed>.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "gpu_kernels.h"
#include "gpu_test_util.h"

namespace aegis_test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// ---- data ----------------------------------------------------------------------------------

enum class Dist {
  kUniform,           // [-1, 1]
  kNormal,            // N(0, 1)
  kPositive,          // [0, 1]: no cancellation at all
  kLogUniform,        // |x| log-uniform in 1e-6..1e6, random signs
  kCancellation,      // A = [X X], B = [Y; -Y]: C ~ 0 while |A||B| is large
  kSmallInt,          // integers -8..8: exact sums
  kSubnormalProducts  // a = 1.5 2^-75, b = 2^-75: normal inputs, every product subnormal
};
const Dist kAdversarial[] = {Dist::kUniform,    Dist::kNormal,       Dist::kPositive,
                             Dist::kLogUniform, Dist::kCancellation, Dist::kSmallInt};

const char* dist_name(Dist d) {
  switch (d) {
    case Dist::kUniform:
      return "uniform[-1,1]";
    case Dist::kNormal:
      return "normal";
    case Dist::kPositive:
      return "uniform[0,1]";
    case Dist::kLogUniform:
      return "log-uniform 1e-6..1e6";
    case Dist::kCancellation:
      return "cancellation [X X][Y; -Y]";
    case Dist::kSmallInt:
      return "integers -8..8";
    case Dist::kSubnormalProducts:
      return "subnormal products";
  }
  return "?";
}

float draw(Dist d, std::mt19937_64& g, bool is_a) {
  switch (d) {
    case Dist::kUniform:
    case Dist::kCancellation:
      return std::uniform_real_distribution<float>(-1.0f, 1.0f)(g);
    case Dist::kNormal:
      return std::normal_distribution<float>(0.0f, 1.0f)(g);
    case Dist::kPositive: {  // (0, 1): never 0, so Inf * b stays Inf
      const float x = std::uniform_real_distribution<float>(0.0f, 1.0f)(g);
      return x > 0.0f ? x : 0.5f;
    }
    case Dist::kLogUniform: {
      const float v = std::pow(10.0f, std::uniform_real_distribution<float>(-6.0f, 6.0f)(g));
      return (g() & 1) ? v : -v;
    }
    case Dist::kSmallInt:
      return static_cast<float>(static_cast<int>(g() % 17) - 8);
    case Dist::kSubnormalProducts:
      return is_a ? std::ldexp(1.5f, -75) : std::ldexp(1.0f, -75);
  }
  return 0.0f;
}

struct FtCase {
  aegisOperation_t transa = AEGIS_OP_N, transb = AEGIS_OP_N;
  int64_t m = 1, n = 1, k = 1;
  float alpha = 1.0f, beta = 0.0f;
  Dist dist = Dist::kUniform;
  bool padded_ld = false;  // ld = rows + 3
  std::string describe() const {
    std::ostringstream os;
    os << op_letters(transa, transb) << " m=" << m << " n=" << n << " k=" << k << " alpha=" << alpha
       << " beta=" << beta << " " << dist_name(dist) << (padded_ld ? " ld=rows+3" : "");
    return os.str();
  }
};

struct Elem {
  int64_t i, j;
};

// Floats after each matrix that must stay untouched.
constexpr size_t kGuard = 29;

// One aegisSgemm problem with host-generated data: op(A) m x k, op(B) k x n, C (NaN where
// beta = 0), device copies of all three to check inputs unchanged and to restore C.
class FtProblem {
 public:
  FtProblem(const FtCase& c, uint64_t seed) : c_(c), seed_(seed) {
    ta_ = c.transa != AEGIS_OP_N;
    tb_ = c.transb != AEGIS_OP_N;
    const int64_t rows_a = ta_ ? c.k : c.m, cols_a = ta_ ? c.m : c.k;
    const int64_t rows_b = tb_ ? c.n : c.k, cols_b = tb_ ? c.k : c.n;
    const int64_t pad = c.padded_ld ? 3 : 0;
    lda_ = std::max<int64_t>(1, rows_a) + pad;
    ldb_ = std::max<int64_t>(1, rows_b) + pad;
    ldc_ = std::max<int64_t>(1, c.m) + pad;
    a_host_.resize(static_cast<size_t>(lda_) * cols_a + kGuard);
    b_host_.resize(static_cast<size_t>(ldb_) * cols_b + kGuard);
    c_host_.resize(static_cast<size_t>(ldc_) * c.n + kGuard);
    std::mt19937_64 g(seed);
    for (float& x : a_host_) x = draw(c.dist, g, true);
    for (float& x : b_host_) x = draw(c.dist, g, false);
    if (c.dist == Dist::kCancellation) {
      // op(A) = [X X], op(B) = [Y; -Y] (an odd k leaves the last product zero).
      const int64_t h = c.k / 2;
      for (int64_t p = 0; p < h; ++p) {
        for (int64_t i = 0; i < c.m; ++i) a_host_[a_index(i, h + p)] = a_host_[a_index(i, p)];
        for (int64_t j = 0; j < c.n; ++j) b_host_[b_index(h + p, j)] = -b_host_[b_index(p, j)];
      }
      if (c.k % 2)
        for (int64_t i = 0; i < c.m; ++i) a_host_[a_index(i, c.k - 1)] = 0.0f;
    }
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (float& x : c_host_) x = c.beta == 0.0f ? kNaN : u(g);
    a_ = DeviceBuffer<float>(a_host_.size());
    a0_ = DeviceBuffer<float>(a_host_.size());
    b_ = DeviceBuffer<float>(b_host_.size());
    b0_ = DeviceBuffer<float>(b_host_.size());
    cbuf_ = DeviceBuffer<float>(c_host_.size());
    c0_ = DeviceBuffer<float>(c_host_.size());
    upload();
  }

  // Index of op(A)(i, p) and op(B)(p, j) in the host arrays (and device buffers).
  size_t a_index(int64_t i, int64_t p) const {
    return static_cast<size_t>(ta_ ? p + i * lda_ : i + p * lda_);
  }
  size_t b_index(int64_t p, int64_t j) const {
    return static_cast<size_t>(tb_ ? j + p * ldb_ : p + j * ldb_);
  }
  // Changes op(A)(i, p) / op(B)(p, j) before a call.
  void set_a(int64_t i, int64_t p, float v) {
    a_host_[a_index(i, p)] = v;
    upload();
  }
  void set_b(int64_t p, int64_t j, float v) {
    b_host_[b_index(p, j)] = v;
    upload();
  }

  aegisStatus_t call(aegisHandle_t h) const {
    return aegisSgemm(h, c_.transa, c_.transb, c_.m, c_.n, c_.k, &c_.alpha, a_.get(), lda_,
                      b_.get(), ldb_, &c_.beta, cbuf_.get(), ldc_);
  }
  // Puts the original C back (for another call on the same problem).
  void restore_c() const {
    check_cuda(cudaDeviceSynchronize(), "before restoring C");
    check_cuda(cudaMemcpy(cbuf_.get(), c0_.get(), c_host_.size() * sizeof(float),
                          cudaMemcpyDeviceToDevice),
               "restore C");
    check_cuda(cudaDeviceSynchronize(), "restore C");
  }
  // The m x n result, column-major with leading dimension m.
  std::vector<float> result() const {
    check_cuda(cudaDeviceSynchronize(), "before reading C");
    std::vector<float> out(static_cast<size_t>(c_.m) * c_.n);
    if (!out.empty())
      check_cuda(cudaMemcpy2D(out.data(), c_.m * sizeof(float), cbuf_.get(), ldc_ * sizeof(float),
                              c_.m * sizeof(float), c_.n, cudaMemcpyDeviceToHost),
                 "read C");
    return out;
  }
  float at(const std::vector<float>& r, int64_t i, int64_t j) const {
    return r[static_cast<size_t>(i + j * c_.m)];
  }

  // Inputs and everything outside C's window bitwise unchanged, and the elements of the
  // block rows [r0, r1) x columns [c0, c1) within the normalized error bound.
  ::testing::AssertionResult verify_block(int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                                          const std::vector<Elem>& faulted = {}) const {
    check_cuda(cudaDeviceSynchronize(), "after aegisSgemm");
    if (const uint64_t n = count_changed(a_.get(), a0_.get(), a_host_.size()))
      return ::testing::AssertionFailure() << describe() << ": " << n << " elements of A changed";
    if (const uint64_t n = count_changed(b_.get(), b0_.get(), b_host_.size()))
      return ::testing::AssertionFailure() << describe() << ": " << n << " elements of B changed";
    if (const uint64_t n =
            count_changed(cbuf_.get(), c0_.get(), c_host_.size(), 0, ldc_, c_.m, c_.n))
      return ::testing::AssertionFailure()
             << describe() << ": " << n << " elements outside the m x n window of C changed";
    if (r1 <= r0 || c1 <= c0) return ::testing::AssertionSuccess();
    GemmCheckArgs args;
    args.trans_a = ta_;
    args.trans_b = tb_;
    args.m = r1 - r0;
    args.n = c1 - c0;
    args.k = c_.k;
    args.alpha = c_.alpha;
    args.beta = c_.beta;
    args.A = a_.get() + (ta_ ? r0 * lda_ : r0);
    args.lda = lda_;
    args.B = b_.get() + (tb_ ? c0 : c0 * ldb_);
    args.ldb = ldb_;
    args.C0 = c0_.get() + r0 + c0 * ldc_;
    args.C = cbuf_.get() + r0 + c0 * ldc_;
    args.ldc = ldc_;
    const GemmCheckResult r = check_gemm(args);
    if (r.failures) {
      const int64_t fi = r0 + r.fail_i, fj = c0 + r.fail_j;
      bool injected = false;
      for (const Elem& e : faulted) injected = injected || (e.i == fi && e.j == fj);
      return ::testing::AssertionFailure()
             << describe() << ": " << r.failures << " of " << r.checked
             << " checked elements exceed the error bound; first at (" << fi << ", " << fj << ")"
             << (injected ? " [an injected fault's element: repaired imprecisely?]" : "")
             << ": got " << r.fail_value << ", reference " << r.fail_ref << ", allowed error "
             << r.fail_denominator << " (off by "
             << std::fabs(r.fail_value - r.fail_ref) / r.fail_denominator << " bounds)";
    }
    return ::testing::AssertionSuccess() << describe() << ": max normalized error " << r.max_error;
  }
  ::testing::AssertionResult verify(const std::vector<Elem>& faulted = {}) const {
    return verify_block(0, c_.m, 0, c_.n, faulted);
  }

  std::string describe() const {
    std::ostringstream os;
    os << c_.describe() << " (case seed " << hex(seed_) << ")";
    return os.str();
  }
  const FtCase& spec() const { return c_; }

 private:
  void upload() {
    auto put = [](const DeviceBuffer<float>& d, const std::vector<float>& h) {
      check_cuda(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice),
                 "upload");
    };
    put(a_, a_host_);
    put(a0_, a_host_);
    put(b_, b_host_);
    put(b0_, b_host_);
    put(cbuf_, c_host_);
    put(c0_, c_host_);
    check_cuda(cudaDeviceSynchronize(), "upload");
  }

  FtCase c_;
  uint64_t seed_;
  bool ta_ = false, tb_ = false;
  int64_t lda_ = 1, ldb_ = 1, ldc_ = 1;
  std::vector<float> a_host_, b_host_, c_host_;
  DeviceBuffer<float> a_, a0_, b_, b0_, cbuf_, c0_;
};

// ---- faults, statistics, tiles -----------------------------------------------------------------

aegisFault_t add_fault(int64_t row, int64_t col, int64_t k_step, float value, int64_t call = 0,
                       aegisFaultTarget_t target = AEGIS_FAULT_TARGET_ACCUMULATOR) {
  aegisFault_t f{};
  f.call = call;
  f.row = row;
  f.col = col;
  f.k_step = k_step;
  f.kind = AEGIS_FAULT_ADD;
  f.target = target;
  f.bit = 0;
  f.value = value;
  return f;
}

aegisFault_t flip_fault(int64_t row, int64_t col, int64_t k_step, int bit, int64_t call = 0) {
  aegisFault_t f = add_fault(row, col, k_step, 0.0f, call);
  f.kind = AEGIS_FAULT_BITFLIP;
  f.bit = bit;
  return f;
}

std::string fault_text(const aegisFault_t& f) {
  std::ostringstream os;
  os << (f.kind == AEGIS_FAULT_ADD ? "ADD " : "BITFLIP ");
  if (f.kind == AEGIS_FAULT_ADD)
    os << f.value;
  else
    os << "bit " << f.bit;
  os << " on "
     << (f.target == AEGIS_FAULT_TARGET_ACCUMULATOR       ? "accumulator"
         : f.target == AEGIS_FAULT_TARGET_COLUMN_CHECKSUM ? "column checksum"
                                                          : "row checksum")
     << " (" << f.row << ", " << f.col << ") ";
  if (f.k_step == AEGIS_FAULT_K_EPILOGUE)
    os << "in the epilogue";
  else
    os << "after K tile " << f.k_step;
  os << ", call +" << f.call;
  return os.str();
}

std::string stats_text(const aegisFtStats_t& s) {
  std::ostringstream os;
  os << "[calls " << s.calls << ", checks " << s.checks << ", detected " << s.detected
     << ", corrected " << s.corrected << ", recomputed " << s.recomputed << ", unrecovered "
     << s.unrecovered << ", nonfinite " << s.nonfinite << ", records " << s.record_count;
  const int64_t kept = std::min<int64_t>(s.record_count, AEGIS_FT_MAX_RECORDS);
  for (int64_t r = 0; r < kept; ++r) {
    const aegisFaultRecord_t& x = s.records[r];
    os << "; {call " << x.call << " tile (" << x.tile_row << ", " << x.tile_col << ") at (" << x.row
       << ", " << x.col << ") k_step " << x.k_step << " residual " << x.residual << " action "
       << x.action << "}";
  }
  os << "]";
  return os.str();
}

struct Tile {
  int mtb = 0, ntb = 0, ktb = 0;
  int mw = 0, nw = 0, mt = 0, nt = 0;
};

// Tile sizes from a config or kernel name ("sgemm_simt_nn_128x64x8_w64x32_t8x8_ftblock").
Tile parse_tile(const std::string& name) {
  Tile t;
  for (size_t pos = 0; pos < name.size(); ++pos) {
    if (pos > 0 && name[pos - 1] != '_') continue;
    if (std::sscanf(name.c_str() + pos, "%dx%dx%d_w%dx%d_t%dx%d", &t.mtb, &t.ntb, &t.ktb, &t.mw,
                    &t.nw, &t.mt, &t.nt) == 7)
      return t;
  }
  return Tile{};
}

// The checksum group of tile-relative row (or column) e at a fused level, as the kernel
// lays out its fragments (src/gemm/simt/ft_groups.h): the whole tile, a warp's part, or a
// thread's runs of 4 spread over its warp's part.
int group_of(aegisFtLevel_t level, int e, int warp, int thread) {
  if (level == AEGIS_FT_LEVEL_BLOCK) return 0;
  if (level == AEGIS_FT_LEVEL_WARP) return e / warp;
  const int lanes = warp / thread;
  return (e / warp) * lanes + (e % warp) % (4 * lanes) / 4;
}
// Whether two elements of one tile share a cell (a row group crossing a column group).
bool same_cell(aegisFtLevel_t level, const Tile& t, int r1, int c1, int r2, int c2) {
  return group_of(level, r1, t.mw, t.mt) == group_of(level, r2, t.mw, t.mt) &&
         group_of(level, c1, t.nw, t.nt) == group_of(level, c2, t.nw, t.nt);
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The fixture of every FT suite: a handle on the GPU with FT helpers.
class FtFixture : public GpuTest {
 protected:
  void set_mode(aegisFtMode_t mode) {
    ASSERT_EQ(aegisSetFtMode(h_, mode), AEGIS_STATUS_SUCCESS) << last_error();
  }
  aegisFtStats_t stats() {
    aegisFtStats_t s{};
    const aegisStatus_t st = aegisGetFtStatsSync(h_, &s);
    EXPECT_EQ(st, AEGIS_STATUS_SUCCESS) << aegisGetStatusName(st) << ": " << last_error();
    return s;
  }
  void reset_stats() { ASSERT_EQ(aegisResetFtStats(h_), AEGIS_STATUS_SUCCESS) << last_error(); }
  void arm(const std::vector<aegisFault_t>& faults) {
    ASSERT_EQ(aegisInjectFaults(h_, faults.data(), static_cast<int>(faults.size())),
              AEGIS_STATUS_SUCCESS)
        << last_error();
  }
  // Runs p on the handle and checks the status; returns the kernel that ran.
  std::string run(const FtProblem& p) {
    const aegisStatus_t s = p.call(h_);
    EXPECT_EQ(s, AEGIS_STATUS_SUCCESS)
        << p.describe() << ": " << aegisGetStatusName(s) << ": " << last_error();
    check_cuda(cudaDeviceSynchronize(), "after aegisSgemm");
    const char* name = nullptr;
    int split = 0;
    aegisGetLastSgemmChoice(h_, &name, &split);
    last_split_ = split;
    return name ? name : "";
  }
  // The tile of the kernel the last aegisSgemm ran (from its name).
  Tile tile_of_last_kernel() {
    const char* name = nullptr;
    int split = 0;
    aegisGetLastSgemmChoice(h_, &name, &split);
    return parse_tile(name ? name : "");
  }
  // Forces config 0 and returns its tile.
  Tile force_config(int index = 0) {
    const char* config = aegisSgemmConfigName(index);
    EXPECT_NE(config, nullptr);
    EXPECT_EQ(aegisSetSgemmOverride(h_, config, 1), AEGIS_STATUS_SUCCESS) << last_error();
    const Tile t = parse_tile(config ? config : "");
    EXPECT_GT(t.mtb, 0) << "cannot read the tile of " << (config ? config : "(null)");
    return t;
  }

  int last_split_ = 0;
};

// The largest finite |C| of a result (at least 1): faults of 1e3 times it are clearly large.
float scale_of(const std::vector<float>& c) {
  float m = 1.0f;
  for (float x : c)
    if (std::isfinite(x)) m = std::max(m, std::fabs(x));
  return m;
}

using FtSgemmApi = FtFixture;
using FtSgemmClean = FtFixture;
using FtSgemmNonFinite = FtFixture;
using FtSgemmCorrect = FtFixture;
using FtSgemmDetect = FtFixture;
using FtSgemmConfigs = FtFixture;
using FtSgemmSanitizer = FtFixture;

// ---- FtSgemmApi --------------------------------------------------------------------------------

TEST_F(FtSgemmApi, DefaultsAndFreshStatistics) {
  aegisFtMode_t mode = AEGIS_FT_CORRECT;
  aegisFtLevel_t level = AEGIS_FT_LEVEL_NONFUSED;
  int64_t interval = -1;
  ASSERT_EQ(aegisGetFtMode(h_, &mode), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisGetFtLevel(h_, &level), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisGetFtVerifyInterval(h_, &interval), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(mode, AEGIS_FT_OFF);
  EXPECT_EQ(level, AEGIS_FT_LEVEL_BLOCK);
  EXPECT_EQ(interval, 0);
  const aegisFtStats_t s = stats();
  EXPECT_EQ(s.calls, 0);
  EXPECT_EQ(s.checks, 0);
  EXPECT_EQ(s.detected, 0);
  EXPECT_EQ(s.corrected, 0);
  EXPECT_EQ(s.recomputed, 0);
  EXPECT_EQ(s.unrecovered, 0);
  EXPECT_EQ(s.nonfinite, 0);
  EXPECT_EQ(s.record_count, 0);
  EXPECT_EQ(aegisResetFtStats(h_), AEGIS_STATUS_SUCCESS);
}

TEST_F(FtSgemmApi, OffModeRunsPlainKernelsAndLeavesFaultsArmed) {
  FtCase c;
  c.m = 130;
  c.n = 70;
  c.k = 50;
  FtProblem p(c, case_seed(seed_, 0));
  const std::string plain = run(p);
  EXPECT_TRUE(p.verify());
  EXPECT_EQ(plain.find("_ft"), std::string::npos) << plain;
  const float big = 1e3f * scale_of(p.result());
  // Armed while FT is off: an FT-off call is not an FT call, so the fault waits.
  arm({add_fault(5, 6, 2, big)});
  p.restore_c();
  run(p);
  EXPECT_TRUE(p.verify()) << "a fault fired in an FT-off call";
  aegisFtStats_t s = stats();
  EXPECT_EQ(s.calls, 0) << stats_text(s);
  EXPECT_EQ(s.checks, 0) << stats_text(s);
  set_mode(AEGIS_FT_CORRECT);
  p.restore_c();
  const std::string ft = run(p);
  EXPECT_TRUE(p.verify({{5, 6}}));
  s = stats();
  EXPECT_EQ(s.calls, 1) << stats_text(s);
  EXPECT_EQ(s.detected, 1) << "the armed fault should fire in the first FT call " << stats_text(s);
  EXPECT_EQ(s.corrected + s.recomputed, 1) << stats_text(s);
  EXPECT_NE(ft.find("_ftblock"), std::string::npos) << ft;
  // Back to OFF: plain kernel, statistics unchanged.
  set_mode(AEGIS_FT_OFF);
  p.restore_c();
  EXPECT_EQ(run(p), plain);
  EXPECT_TRUE(p.verify());
  const aegisFtStats_t s2 = stats();
  EXPECT_EQ(s2.calls, s.calls);
  EXPECT_EQ(s2.checks, s.checks);
}

TEST_F(FtSgemmApi, FtCallsUseTheFtKernelAndNeverSplitK) {
  // Deep K, few tiles: a shape split-K serves without FT.
  FtCase c;
  c.m = 64;
  c.n = 64;
  c.k = 8192;
  FtProblem p(c, case_seed(seed_, 0));
  ASSERT_EQ(aegisSetSgemmOverride(h_, aegisSgemmConfigName(0), 8), AEGIS_STATUS_SUCCESS);
  run(p);
  EXPECT_TRUE(p.verify());
  const int plain_split = last_split_;
  for (aegisFtMode_t mode : {AEGIS_FT_DETECT, AEGIS_FT_CORRECT}) {
    set_mode(mode);
    p.restore_c();
    const std::string kernel = run(p);
    EXPECT_TRUE(p.verify());
    EXPECT_EQ(last_split_, 1) << "mode " << mode << ": split-K under FT (plain split "
                              << plain_split << ")";
    const std::string suffix = "_ftblock";
    EXPECT_TRUE(kernel.size() > suffix.size() &&
                kernel.compare(kernel.size() - suffix.size(), suffix.size(), suffix) == 0)
        << kernel;
    EXPECT_TRUE(
        kernel_is_config(kernel.substr(0, kernel.size() - suffix.size()), aegisSgemmConfigName(0)))
        << kernel;
  }
  const aegisFtStats_t s = stats();
  EXPECT_EQ(s.calls, 2);
  EXPECT_EQ(s.detected, 0) << stats_text(s);
}

TEST_F(FtSgemmApi, CallsChecksAndReset) {
  set_mode(AEGIS_FT_CORRECT);
  const Tile t = force_config();
  FtCase c;
  c.m = 3 * t.mtb + 1;
  c.n = 2 * t.ntb - 1;
  c.k = 5 * t.ktb + 3;
  FtProblem p(c, case_seed(seed_, 0));
  const int64_t tiles = ceil_div(c.m, t.mtb) * ceil_div(c.n, t.ntb);
  for (int call = 0; call < 3; ++call) {
    p.restore_c();
    run(p);
    EXPECT_TRUE(p.verify());
  }
  aegisFtStats_t s = stats();
  EXPECT_EQ(s.calls, 3);
  EXPECT_GE(s.checks, 3 * tiles) << "every tile is checked in every call " << stats_text(s);
  EXPECT_EQ(s.detected, 0) << stats_text(s);
  const int64_t checks_end_only = s.checks;
  // A check after every K tile as well: more checks, same results.
  ASSERT_EQ(aegisSetFtVerifyInterval(h_, 1), AEGIS_STATUS_SUCCESS);
  reset_stats();
  s = stats();
  EXPECT_EQ(s.calls, 0);
  EXPECT_EQ(s.checks, 0);
  for (int call = 0; call < 3; ++call) {
    p.restore_c();
    run(p);
    EXPECT_TRUE(p.verify());
  }
  s = stats();
  EXPECT_EQ(s.calls, 3);
  EXPECT_GT(s.checks, checks_end_only) << "interval 1 should check more often " << stats_text(s);
  EXPECT_EQ(s.detected, 0) << stats_text(s);
}

TEST_F(FtSgemmApi, ResetIsOrderedOnTheHandleStream) {
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  ASSERT_EQ(aegisSetStream(h_, stream), AEGIS_STATUS_SUCCESS);
  set_mode(AEGIS_FT_CORRECT);
  FtCase c;
  c.m = 200;
  c.n = 150;
  c.k = 64;
  FtProblem p(c, case_seed(seed_, 0));
  // No host synchronization between the calls and the reset: the stream orders them.
  // 100: far above the rounding bound (|C| <~ 10 here), small enough to be located.
  arm({add_fault(1, 2, 3, 100.0f), add_fault(150, 100, AEGIS_FAULT_K_EPILOGUE, 100.0f, 1),
       add_fault(199, 149, 0, 100.0f, 2)});
  EXPECT_EQ(p.call(h_), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(p.call(h_), AEGIS_STATUS_SUCCESS);  // beta = 0: the same result again
  EXPECT_EQ(aegisResetFtStats(h_), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(p.call(h_), AEGIS_STATUS_SUCCESS);
  const aegisFtStats_t s = stats();
  check_cuda(cudaStreamSynchronize(stream), "stream");
  EXPECT_TRUE(p.verify({{199, 149}}));
  EXPECT_EQ(s.calls, 1) << stats_text(s);
  EXPECT_EQ(s.detected, 1) << "only the fault after the reset counts " << stats_text(s);
  EXPECT_EQ(s.corrected, 1) << stats_text(s);
  ASSERT_EQ(s.record_count, 1) << stats_text(s);
  EXPECT_EQ(s.records[0].call, 0) << "the reset restarts the call count " << stats_text(s);
  EXPECT_EQ(s.records[0].row, 199);
  EXPECT_EQ(s.records[0].col, 149);
  aegisSetStream(h_, nullptr);
  cudaStreamDestroy(stream);
}

TEST_F(FtSgemmApi, RecordsKeepTheLastSixteenOldestFirst) {
  set_mode(AEGIS_FT_CORRECT);
  const Tile t = force_config();
  FtCase c;
  c.m = 4 * t.mtb - 5;
  c.n = 2 * t.ntb + 7;   // 4 x 3 tiles
  c.k = 40 * t.ktb + 1;  // deep enough that 1e3 max|C| is located (residuals agree)
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const float big = 1e3f * scale_of(p.result());
  const int64_t k_tiles = ceil_div(c.k, t.ktb);
  // Calls 0, 1, 2 get 8, 8 and 4 faults, each in its own tile (distinct tiles per call).
  std::vector<std::vector<aegisFault_t>> per_call(3);
  const int counts[3] = {8, 8, 4};
  for (int call = 0; call < 3; ++call)
    for (int f = 0; f < counts[call]; ++f) {
      const int tile = (f + call) % 12;
      const int64_t row = (tile % 4) * t.mtb + (7 * f + call) % (t.mtb - 5);
      const int64_t col = (tile / 4) * t.ntb + (3 * f + 2 * call) % 7;
      per_call[call].push_back(add_fault(row, col, (5 * f) % k_tiles, (f % 2 ? -big : big), call));
    }
  for (const auto& faults : per_call) arm(faults);
  reset_stats();
  for (int call = 0; call < 3; ++call) {
    p.restore_c();
    run(p);
    std::vector<Elem> elems;
    for (const aegisFault_t& f : per_call[call]) elems.push_back({f.row, f.col});
    EXPECT_TRUE(p.verify(elems)) << "call " << call;
  }
  const aegisFtStats_t s = stats();
  EXPECT_EQ(s.calls, 3);
  EXPECT_EQ(s.detected, 20) << stats_text(s);
  EXPECT_EQ(s.corrected, 20) << stats_text(s);
  EXPECT_EQ(s.recomputed, 0) << stats_text(s);
  ASSERT_EQ(s.record_count, 20) << stats_text(s);
  // Kept: the last 4 of call 0, then calls 1 and 2 (order within a call is free).
  for (int r = 0; r < AEGIS_FT_MAX_RECORDS; ++r) {
    const aegisFaultRecord_t& x = s.records[r];
    const int call = r < 4 ? 0 : r < 12 ? 1 : 2;
    EXPECT_EQ(x.call, call) << "record " << r << " " << stats_text(s);
    const aegisFault_t* match = nullptr;
    for (const aegisFault_t& f : per_call[call])
      if (f.row == x.row && f.col == x.col) match = &f;
    ASSERT_NE(match, nullptr) << "record " << r << " locates (" << x.row << ", " << x.col
                              << "), not a fault of call " << call << " " << stats_text(s);
    EXPECT_EQ(x.action, AEGIS_FAULT_ACTION_CORRECTED) << "record " << r;
    EXPECT_EQ(x.tile_row, match->row / t.mtb * t.mtb) << "record " << r;
    EXPECT_EQ(x.tile_col, match->col / t.ntb * t.ntb) << "record " << r;
    EXPECT_EQ(x.k_step, k_tiles) << "record " << r << ": K tiles done at the (only) check";
    EXPECT_NEAR(x.residual, -match->value, 1e-3 * std::fabs(match->value))
        << "record " << r << ": residual = checksum - sum of accumulators";
  }
  // Every fault of calls 1 and 2 appears once.
  for (int call = 1; call < 3; ++call)
    for (const aegisFault_t& f : per_call[call]) {
      int seen = 0;
      for (const aegisFaultRecord_t& x : s.records)
        seen += x.call == call && x.row == f.row && x.col == f.col;
      EXPECT_EQ(seen, 1) << fault_text(f);
    }
}

TEST_F(FtSgemmApi, FaultsFireInTheirCallOnlyAndAreConsumed) {
  set_mode(AEGIS_FT_DETECT);
  FtCase c;
  c.m = 100;
  c.n = 90;
  c.k = 40;
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const std::vector<float> clean = p.result();
  const float big = 1e3f * scale_of(clean);
  arm({add_fault(10, 20, 1, big, 1)});  // the call after next
  reset_stats();
  p.restore_c();
  run(p);
  EXPECT_TRUE(p.verify());
  aegisFtStats_t s = stats();
  EXPECT_EQ(s.detected, 0) << "a fault for call +1 fired in call +0 " << stats_text(s);
  p.restore_c();
  run(p);
  s = stats();
  EXPECT_EQ(s.detected, 1) << stats_text(s);
  p.restore_c();
  run(p);
  EXPECT_TRUE(p.verify()) << "the fault fired twice";
  s = stats();
  EXPECT_EQ(s.detected, 1) << "a fault is consumed by its call " << stats_text(s);
  // Cleared faults never fire.
  arm({add_fault(10, 20, 1, big, 0), add_fault(50, 50, 0, big, 1)});
  ASSERT_EQ(aegisClearFaults(h_), AEGIS_STATUS_SUCCESS);
  for (int call = 0; call < 2; ++call) {
    p.restore_c();
    run(p);
    EXPECT_TRUE(p.verify()) << "a cleared fault fired";
  }
  s = stats();
  EXPECT_EQ(s.detected, 1) << stats_text(s);
  EXPECT_EQ(s.calls, 5) << stats_text(s);
}

// ---- FtSgemmClean ------------------------------------------------------------------------------

struct Mnk {
  int64_t m, n, k;
};
// A case of the shape sweeps: transposes and shape; the rest FtCase's defaults.
FtCase sweep_case(aegisOperation_t ta, aegisOperation_t tb, const Mnk& s) {
  FtCase c;
  c.transa = ta;
  c.transb = tb;
  c.m = s.m;
  c.n = s.n;
  c.k = s.k;
  return c;
}

// Sizes around tile edges (tiles 32..256 wide, K tiles 8 and 16), non-multiples, 1:10 and
// 10:1 aspects, K up to 4099.
const Mnk kCleanShapes[] = {{1, 1, 1},        {7, 7, 7},       {63, 65, 64},     {129, 127, 257},
                            {257, 257, 1031}, {1000, 31, 129}, {31, 1000, 4096}, {1, 1031, 4099},
                            {1031, 1, 33},    {1031, 257, 9},  {65, 65, 2},      {255, 129, 1000}};

const aegisOperation_t kOpsNTC[] = {AEGIS_OP_N, AEGIS_OP_T, AEGIS_OP_C};

FtCase clean_case(Dist d, const Mnk& s, size_t index) {
  FtCase c = sweep_case(kOpsNTC[index % 3 == 2 ? (index / 3) % 3 : index % 2],
                        kOpsNTC[(index / 2) % 2], s);
  c.dist = d;
  c.beta = index % 3 == 1 ? 0.5f : 0.0f;
  c.alpha = index % 4 == 3 ? -1.5f : 1.0f;
  c.padded_ld = index % 5 == 2;
  return c;
}

TEST_F(FtSgemmClean, AdversarialDataHasNoFalsePositives) {
  size_t index = 0;
  for (Dist d : kAdversarial)
    for (const Mnk& s : kCleanShapes) {
      const FtCase c = clean_case(d, s, index);
      set_mode(index % 2 ? AEGIS_FT_DETECT : AEGIS_FT_CORRECT);
      reset_stats();
      FtProblem p(c, case_seed(seed_, index));
      run(p);
      EXPECT_TRUE(p.verify());
      const aegisFtStats_t st = stats();
      EXPECT_EQ(st.detected, 0) << p.describe() << " " << stats_text(st);
      EXPECT_EQ(st.corrected + st.recomputed + st.unrecovered, 0) << p.describe();
      EXPECT_EQ(st.nonfinite, 0) << p.describe();
      EXPECT_GT(st.checks, 0) << p.describe();
      ++index;
      if (HasFatalFailure()) return;
    }
}

TEST_F(FtSgemmClean, EveryTransposeAlphaBetaAndLayout) {
  const Mnk shapes[] = {{129, 65, 33}, {64, 640, 257}, {640, 64, 1031}, {33, 31, 1}};
  const float scalars[][2] = {{1.0f, 0.0f}, {-1.5f, 0.5f}, {1.0f, -2.0f}, {0.25f, 1.0f}};
  size_t index = 0;
  set_mode(AEGIS_FT_CORRECT);
  for (aegisOperation_t ta : kOpsNTC)
    for (aegisOperation_t tb : kOpsNTC)
      for (const Mnk& s : shapes) {
        FtCase c = sweep_case(ta, tb, s);
        c.alpha = scalars[index % 4][0];
        c.beta = scalars[index % 4][1];
        c.padded_ld = index % 2 == 1;
        c.dist = index % 3 == 0 ? Dist::kNormal : Dist::kUniform;
        FtProblem p(c, case_seed(seed_, index++));
        run(p);
        EXPECT_TRUE(p.verify());
      }
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.calls, static_cast<int64_t>(index));
  EXPECT_EQ(st.detected, 0) << stats_text(st);
  EXPECT_EQ(st.nonfinite, 0) << stats_text(st);
}

TEST_F(FtSgemmClean, KFromOneToDeep) {
  set_mode(AEGIS_FT_DETECT);
  size_t index = 0;
  for (int64_t k : {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 513, 1000, 2049, 4095, 4096})
    for (Dist d : {Dist::kUniform, Dist::kPositive, Dist::kLogUniform}) {
      FtCase c;
      c.m = 65;
      c.n = 67;
      c.k = k;
      c.dist = d;
      c.transa = index % 2 ? AEGIS_OP_T : AEGIS_OP_N;
      FtProblem p(c, case_seed(seed_, index++));
      run(p);
      EXPECT_TRUE(p.verify());
    }
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.detected, 0) << stats_text(st);
}

TEST_F(FtSgemmClean, SubnormalProductsAreNotFaults) {
  // Normal inputs whose products are all subnormal: every accumulator FMA rounds by an
  // absolute amount no relative bound covers (see FtCheckSimulation on the host).
  set_mode(AEGIS_FT_DETECT);
  size_t index = 0;
  for (const Mnk& s : {Mnk{128, 128, 8}, Mnk{257, 129, 64}, Mnk{130, 130, 1031}}) {
    FtCase c = sweep_case(AEGIS_OP_N, AEGIS_OP_N, s);
    c.dist = Dist::kSubnormalProducts;
    FtProblem p(c, case_seed(seed_, index++));
    run(p);
    const std::vector<float> r = p.result();
    // Each product is 0.75 2^-149: C lies between 0 and k 2^-149 (rounding up or flushed).
    const float top = static_cast<float>(s.k) * std::numeric_limits<float>::denorm_min();
    for (float x : r) {
      ASSERT_TRUE(x >= 0.0f && x <= top) << p.describe() << ": C element " << x;
    }
  }
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.detected, 0) << stats_text(st);
  EXPECT_EQ(st.nonfinite, 0) << stats_text(st);
}

TEST_F(FtSgemmClean, VerifyIntervalChangesNoBit) {
  set_mode(AEGIS_FT_CORRECT);
  size_t index = 0;
  for (const Mnk& s : {Mnk{257, 131, 2053}, Mnk{33, 65, 200}, Mnk{1, 1, 77}}) {
    FtCase c = sweep_case(AEGIS_OP_N, AEGIS_OP_T, s);
    c.beta = 0.5f;
    c.dist = index == 1 ? Dist::kLogUniform : Dist::kUniform;
    FtProblem p(c, case_seed(seed_, index++));
    ASSERT_EQ(aegisSetFtVerifyInterval(h_, 0), AEGIS_STATUS_SUCCESS);
    run(p);
    EXPECT_TRUE(p.verify());
    const std::vector<float> reference = p.result();
    for (int64_t interval : {1, 2, 3, 7, 1000}) {
      ASSERT_EQ(aegisSetFtVerifyInterval(h_, interval), AEGIS_STATUS_SUCCESS);
      p.restore_c();
      run(p);
      const std::vector<float> r = p.result();
      size_t differ = 0;
      for (size_t e = 0; e < r.size(); ++e)
        differ += std::memcmp(&r[e], &reference[e], sizeof(float)) != 0;
      EXPECT_EQ(differ, 0u) << p.describe() << ": interval " << interval << " changed " << differ
                            << " elements against interval 0";
    }
  }
  ASSERT_EQ(aegisSetFtVerifyInterval(h_, 0), AEGIS_STATUS_SUCCESS);
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.detected, 0) << stats_text(st);
}

// ---- FtSgemmNonFinite
// ----------------------------------------------------------------------------

TEST_F(FtSgemmNonFinite, InfOrNaNInAIsNotAFault) {
  size_t index = 0;
  for (aegisFtMode_t mode : {AEGIS_FT_DETECT, AEGIS_FT_CORRECT})
    for (aegisOperation_t ta : {AEGIS_OP_N, AEGIS_OP_T})
      for (float bad : {kInf, -kInf, kNaN}) {
        set_mode(mode);
        FtCase c;
        c.transa = ta;
        c.m = 300;
        c.n = 200;
        c.k = 100;
        c.dist = Dist::kPositive;  // B > 0 almost surely: Inf * B(p, j) stays Inf
        c.beta = index % 2 ? 0.5f : 0.0f;
        FtProblem p(c, case_seed(seed_, index++));
        const int64_t row = 137, kp = 41;
        p.set_a(row, kp, bad);
        reset_stats();
        run(p);
        const aegisFtStats_t st = stats();
        EXPECT_GT(st.nonfinite, 0) << p.describe() << " " << stats_text(st);
        EXPECT_EQ(st.detected, 0) << p.describe() << " " << stats_text(st);
        EXPECT_EQ(st.corrected + st.recomputed + st.unrecovered, 0) << p.describe();
        // Row `row` is what IEEE says; every other row is exact to the bound.
        const std::vector<float> r = p.result();
        for (int64_t j = 0; j < c.n; ++j) {
          const float x = p.at(r, row, j);
          if (std::isnan(bad))
            ASSERT_TRUE(std::isnan(x)) << p.describe() << ": C(" << row << ", " << j << ") = " << x;
          else
            ASSERT_EQ(x, bad) << p.describe() << ": C(" << row << ", " << j << ")";
        }
        EXPECT_TRUE(p.verify_block(0, row, 0, c.n));
        EXPECT_TRUE(p.verify_block(row + 1, c.m, 0, c.n));
      }
}

TEST_F(FtSgemmNonFinite, InfInBAndAFaultElsewhere) {
  for (aegisFtMode_t mode : {AEGIS_FT_CORRECT, AEGIS_FT_DETECT}) {
    set_mode(mode);
    FtCase c;
    c.transb = AEGIS_OP_T;
    c.m = 260;
    c.n = 300;
    c.k = 64;
    c.dist = Dist::kPositive;
    FtProblem p(c, case_seed(seed_, mode));
    run(p);
    const std::vector<float> clean = p.result();
    const float big = 1e3f * scale_of(clean);
    const int64_t col = 5;
    p.set_b(17, col, kInf);
    // A fault far from column `col` (another tile column for every config: >= 256 away).
    arm({add_fault(250, 290, 2, big)});
    reset_stats();
    run(p);
    const aegisFtStats_t st = stats();
    EXPECT_GT(st.nonfinite, 0) << stats_text(st);
    EXPECT_EQ(st.detected, 1) << "the fault, and only it " << stats_text(st);
    const std::vector<float> r = p.result();
    for (int64_t i = 0; i < c.m; ++i)
      ASSERT_EQ(p.at(r, i, col), kInf) << "C(" << i << ", " << col << ")";
    EXPECT_TRUE(p.verify_block(0, c.m, 0, col));
    if (mode == AEGIS_FT_CORRECT) {
      EXPECT_EQ(st.corrected + st.recomputed, 1) << stats_text(st);
      EXPECT_TRUE(p.verify_block(0, c.m, col + 1, c.n, {{250, 290}}));
    } else {
      EXPECT_TRUE(p.verify_block(0, c.m, col + 1, 290));
      EXPECT_NEAR(p.at(r, 250, 290) - p.at(clean, 250, 290), big, 1e-3 * big)
          << "DETECT leaves the fault in C";
    }
  }
}

// ---- FtSgemmCorrect
// ------------------------------------------------------------------------------

// One fault per call on a problem with partial edge tiles; CORRECT mode must return the clean
// result within the bound and count the fault.
TEST_F(FtSgemmCorrect, SingleAccumulatorFaultAnywhere) {
  set_mode(AEGIS_FT_CORRECT);
  FtCase c;
  c.m = 257;
  c.n = 131;
  c.k = 300;
  c.beta = 0.0f;
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const Tile t = tile_of_last_kernel();
  ASSERT_GT(t.ktb, 0);
  const float big = 1e3f * scale_of(p.result());
  const int64_t k_tiles = ceil_div(c.k, t.ktb);
  const Elem where[] = {{0, 0},
                        {c.m - 1, c.n - 1},
                        {std::min<int64_t>(t.mtb + 3, c.m - 2), t.ntb / 2 % c.n},
                        {c.m - 1, 0}};
  const int64_t steps[] = {0, 1, k_tiles / 2, k_tiles - 1, k_tiles + 100, AEGIS_FAULT_K_EPILOGUE};
  int index = 0;
  for (const Elem& e : where)
    for (int64_t step : steps)
      for (int kind = 0; kind < 2; ++kind) {
        const aegisFault_t f = kind == 0 ? add_fault(e.i, e.j, step, (index % 2 ? -big : big))
                                         : flip_fault(e.i, e.j, step, 30);
        ++index;
        SCOPED_TRACE(fault_text(f));
        arm({f});
        reset_stats();
        p.restore_c();
        run(p);
        EXPECT_TRUE(p.verify({e}));
        const aegisFtStats_t st = stats();
        EXPECT_GE(st.detected, 1) << stats_text(st);
        EXPECT_GE(st.corrected + st.recomputed, 1) << stats_text(st);
        EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
        if (kind == 0) {
          EXPECT_EQ(st.detected, 1) << stats_text(st);
          EXPECT_EQ(st.corrected + st.recomputed, 1) << stats_text(st);
          ASSERT_EQ(st.record_count, 1) << stats_text(st);
          const aegisFaultRecord_t& x = st.records[0];
          EXPECT_EQ(x.tile_row, e.i / t.mtb * t.mtb);
          EXPECT_EQ(x.tile_col, e.j / t.ntb * t.ntb);
          EXPECT_EQ(x.k_step, step == AEGIS_FAULT_K_EPILOGUE ? AEGIS_FAULT_K_EPILOGUE : k_tiles);
          if (step != AEGIS_FAULT_K_EPILOGUE) {
            // One clearly located element of a deep K loop: repaired in place.
            EXPECT_EQ(st.corrected, 1) << stats_text(st);
            EXPECT_EQ(x.row, e.i) << stats_text(st);
            EXPECT_EQ(x.col, e.j) << stats_text(st);
            EXPECT_EQ(x.action, AEGIS_FAULT_ACTION_CORRECTED);
          } else {
            EXPECT_TRUE(x.row == -1 || x.row == e.i) << stats_text(st);
            EXPECT_TRUE(x.col == -1 || x.col == e.j) << stats_text(st);
            EXPECT_TRUE(x.action == AEGIS_FAULT_ACTION_CORRECTED ||
                        x.action == AEGIS_FAULT_ACTION_RECOMPUTED)
                << stats_text(st);
          }
        }
        if (HasFatalFailure()) return;
      }
}

TEST_F(FtSgemmCorrect, BetaNonZeroAndTransposes) {
  set_mode(AEGIS_FT_CORRECT);
  size_t index = 0;
  for (aegisOperation_t ta : {AEGIS_OP_N, AEGIS_OP_T})
    for (aegisOperation_t tb : {AEGIS_OP_N, AEGIS_OP_T}) {
      FtCase c;
      c.transa = ta;
      c.transb = tb;
      c.m = 200;
      c.n = 190;
      c.k = 129;
      c.alpha = -1.5f;
      c.beta = 0.5f;
      c.padded_ld = true;
      FtProblem p(c, case_seed(seed_, index));
      run(p);
      const float big = 1e3f * scale_of(p.result());
      for (int64_t step : {int64_t(3), int64_t(AEGIS_FAULT_K_EPILOGUE)}) {
        const aegisFault_t f = add_fault(199 - index, 100 + index, step, big);
        SCOPED_TRACE(fault_text(f));
        arm({f});
        reset_stats();
        p.restore_c();
        run(p);
        EXPECT_TRUE(p.verify({{f.row, f.col}}));
        const aegisFtStats_t st = stats();
        EXPECT_EQ(st.detected, 1) << stats_text(st);
        EXPECT_EQ(st.corrected + st.recomputed, 1) << stats_text(st);
        EXPECT_EQ(st.unrecovered, 0)
            << "beta != 0: the old C is needed to repair the output " << stats_text(st);
      }
      ++index;
    }
}

TEST_F(FtSgemmCorrect, ChecksumFaultsRecomputeTheTile) {
  set_mode(AEGIS_FT_CORRECT);
  FtCase c;
  c.m = 300;
  c.n = 200;
  c.k = 96;
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const float big = 1e3f * scale_of(p.result());
  for (aegisFaultTarget_t target :
       {AEGIS_FAULT_TARGET_COLUMN_CHECKSUM, AEGIS_FAULT_TARGET_ROW_CHECKSUM}) {
    std::vector<aegisFault_t> faults;
    for (int64_t step : {int64_t(0), int64_t(5), int64_t(1000)})
      faults.push_back(add_fault(299, 150, step, big, 0, target));
    // A bit flip of the checksum's top exponent bit, and an Inf added to it. The flip
    // either shrinks a checksum >= 2 below 2^-126 (residual >= 2, far above the bound here)
    // or multiplies a smaller one by 2^128 (>= 2, or Inf for values in [1, 2)): caught
    // either way. A checksum that is not finite beside finite accumulators is a fault, not
    // a non-finite input.
    aegisFault_t flip = flip_fault(10, 10, 2, 30);
    flip.target = target;
    faults.push_back(flip);
    faults.push_back(add_fault(10, 10, 2, INFINITY, 0, target));
    for (const aegisFault_t& f : faults) {
      SCOPED_TRACE(fault_text(f));
      arm({f});
      reset_stats();
      p.restore_c();
      run(p);
      EXPECT_TRUE(p.verify());
      const aegisFtStats_t st = stats();
      EXPECT_EQ(st.detected, 1) << stats_text(st);
      EXPECT_EQ(st.recomputed, 1) << "a checksum hit shows in one direction only "
                                  << stats_text(st);
      EXPECT_EQ(st.nonfinite, 0) << stats_text(st);
      EXPECT_EQ(st.corrected, 0) << stats_text(st);
      EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
      if (st.record_count == 1) {
        EXPECT_EQ(st.records[0].action, AEGIS_FAULT_ACTION_RECOMPUTED);
      }
    }
  }
}

TEST_F(FtSgemmCorrect, TwoFaultsInALineRecomputeTheTile) {
  set_mode(AEGIS_FT_CORRECT);
  const Tile t = force_config();
  FtCase c;
  c.m = 2 * t.mtb + 1;
  c.n = 2 * t.ntb + 1;
  c.k = 10 * t.ktb;
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const float big = 1e3f * scale_of(p.result());
  const int64_t r0 = t.mtb, c0 = t.ntb;  // tile (1, 1)
  const std::vector<std::vector<aegisFault_t>> cases = {
      {add_fault(r0 + 1, c0 + 2, 1, big), add_fault(r0 + 1, c0 + 9, 6, 2 * big)},    // one row
      {add_fault(r0 + 3, c0 + 4, 2, big), add_fault(r0 + 20, c0 + 4, 2, -3 * big)},  // one column
      {add_fault(r0 + 0, c0 + 0, 9, big), add_fault(r0 + 5, c0 + 7, 0, big)},        // 2 x 2
  };
  for (const auto& faults : cases) {
    SCOPED_TRACE(fault_text(faults[0]) + " and " + fault_text(faults[1]));
    arm(faults);
    reset_stats();
    p.restore_c();
    run(p);
    EXPECT_TRUE(p.verify({{faults[0].row, faults[0].col}, {faults[1].row, faults[1].col}}));
    const aegisFtStats_t st = stats();
    EXPECT_EQ(st.recomputed, 1) << stats_text(st);
    EXPECT_EQ(st.corrected, 0) << stats_text(st);
    EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
    EXPECT_GE(st.detected, 1) << stats_text(st);
    for (int64_t r = 0; r < std::min<int64_t>(st.record_count, AEGIS_FT_MAX_RECORDS); ++r) {
      EXPECT_EQ(st.records[r].action, AEGIS_FAULT_ACTION_RECOMPUTED) << stats_text(st);
      EXPECT_EQ(st.records[r].tile_row, r0);
      EXPECT_EQ(st.records[r].tile_col, c0);
      // Two faults cannot both be located: at most one coordinate is named.
      EXPECT_TRUE(st.records[r].row == -1 || st.records[r].col == -1) << stats_text(st);
    }
  }
}

TEST_F(FtSgemmCorrect, ManyTilesInOneCall) {
  set_mode(AEGIS_FT_CORRECT);
  const Tile t = force_config();
  FtCase c;
  c.m = 4 * t.mtb;
  c.n = 2 * t.ntb + 3;
  c.k = 3 * t.ktb + 2;
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const float big = 1e3f * scale_of(p.result());
  std::vector<aegisFault_t> faults;
  std::vector<Elem> elems;
  for (int f = 0; f < 8; ++f) {
    const int64_t row = (f % 4) * t.mtb + 11 * f % t.mtb;
    const int64_t col = (f / 4) * t.ntb + (f * 5) % t.ntb;
    const int64_t step = f == 7 ? AEGIS_FAULT_K_EPILOGUE : f % 4;
    faults.push_back(f % 2 ? add_fault(row, col, step, big * (f + 1))
                           : flip_fault(row, col, step, 30));
    elems.push_back({row, col});
  }
  arm(faults);
  reset_stats();
  p.restore_c();
  run(p);
  EXPECT_TRUE(p.verify(elems));
  const aegisFtStats_t st = stats();
  EXPECT_GE(st.detected, 8) << stats_text(st);
  EXPECT_GE(st.corrected + st.recomputed, 8) << stats_text(st);
  EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
}

TEST_F(FtSgemmCorrect, IntervalRepairsFaultsAtFarApartSteps) {
  set_mode(AEGIS_FT_CORRECT);
  const Tile t = force_config();
  FtCase c;
  c.m = t.mtb + 17;
  c.n = t.ntb + 9;
  c.k = 16 * t.ktb;  // K tiles 0..15; checks after 3, 7, 11, 15 with interval 4
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const float big = 100.0f * scale_of(p.result());  // far above the bound, yet locatable
  // Same tile, same column: located only if a check runs between them.
  const int64_t r2 = std::min(40, t.mtb - 1);
  const std::vector<aegisFault_t> faults = {add_fault(3, 9, 1, big), add_fault(r2, 9, 10, 2 * big)};
  ASSERT_EQ(aegisSetFtVerifyInterval(h_, 4), AEGIS_STATUS_SUCCESS);
  arm(faults);
  reset_stats();
  p.restore_c();
  run(p);
  EXPECT_TRUE(p.verify({{3, 9}, {r2, 9}}));
  aegisFtStats_t st = stats();
  EXPECT_EQ(st.detected, 2) << stats_text(st);
  EXPECT_EQ(st.corrected, 2) << "each fault alone in its check, repaired in place "
                             << stats_text(st);
  EXPECT_EQ(st.recomputed, 0) << stats_text(st);
  ASSERT_EQ(st.record_count, 2) << stats_text(st);
  EXPECT_EQ(st.records[0].row, 3);
  EXPECT_EQ(st.records[0].k_step, 4) << "caught at the check after 4 K tiles";
  EXPECT_EQ(st.records[1].row, r2);
  EXPECT_EQ(st.records[1].k_step, 12) << "caught at the check after 12 K tiles";
  // Without the interval they meet in one check: two bad rows, one column: recompute.
  ASSERT_EQ(aegisSetFtVerifyInterval(h_, 0), AEGIS_STATUS_SUCCESS);
  arm(faults);
  reset_stats();
  p.restore_c();
  run(p);
  EXPECT_TRUE(p.verify({{3, 9}, {r2, 9}}));
  st = stats();
  EXPECT_EQ(st.recomputed, 1) << stats_text(st);
  EXPECT_EQ(st.corrected, 0) << stats_text(st);
  EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
}

TEST_F(FtSgemmCorrect, LowMantissaBitFlipsLeaveTheResultWithinTheBound) {
  // A flip of mantissa bit b changes a value by at most 2^(b-23) of it; with k + 2 >= 2^(b+1)
  // that is within the normalized bound gamma_{k+2} |A||B| whether or not it is detected
  // (beta = 0, so the epilogue's value is alpha times the accumulator). Detection is not
  // required: such flips may sit below the line's rounding bound.
  set_mode(AEGIS_FT_CORRECT);
  FtCase c;
  c.m = 130;
  c.n = 129;
  c.k = 4096;                // bits 0..10
  c.dist = Dist::kPositive;  // |C| = |A||B|: the hardest case for this bound
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const Tile t = tile_of_last_kernel();
  ASSERT_GT(t.ktb, 0);
  const int64_t k_tiles = ceil_div(c.k, t.ktb);
  int index = 0;
  for (int bit : {0, 3, 7, 10})
    for (int64_t step : {int64_t(0), k_tiles / 3, k_tiles - 1, int64_t(AEGIS_FAULT_K_EPILOGUE)}) {
      const aegisFault_t f = flip_fault(index * 7 % c.m, index * 13 % c.n, step, bit);
      ++index;
      SCOPED_TRACE(fault_text(f));
      arm({f});
      reset_stats();
      p.restore_c();
      run(p);
      EXPECT_TRUE(p.verify({{f.row, f.col}}));
      const aegisFtStats_t st = stats();
      EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
    }
}

// ---- FtSgemmDetect
// ---------------------------------------------------------------------------------

TEST_F(FtSgemmDetect, FaultsAreReportedAndLeftInC) {
  set_mode(AEGIS_FT_DETECT);
  FtCase c;
  c.m = 300;
  c.n = 170;
  c.k = 200;
  c.alpha = 2.0f;
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const Tile t = tile_of_last_kernel();
  ASSERT_GT(t.ktb, 0);
  const std::vector<float> clean = p.result();
  const float big = 1e3f * scale_of(clean);
  const int64_t k_tiles = ceil_div(c.k, t.ktb);
  for (int64_t step : {int64_t(2), k_tiles - 1, int64_t(AEGIS_FAULT_K_EPILOGUE)}) {
    const aegisFault_t f = add_fault(299, 169, step, big);
    SCOPED_TRACE(fault_text(f));
    arm({f});
    reset_stats();
    p.restore_c();
    run(p);
    const aegisFtStats_t st = stats();
    EXPECT_EQ(st.detected, 1) << stats_text(st);
    EXPECT_EQ(st.corrected + st.recomputed + st.unrecovered, 0) << stats_text(st);
    ASSERT_EQ(st.record_count, 1) << stats_text(st);
    EXPECT_EQ(st.records[0].action, AEGIS_FAULT_ACTION_REPORTED);
    EXPECT_EQ(st.records[0].call, 0);
    EXPECT_TRUE(st.records[0].row == -1 || st.records[0].row == 299) << stats_text(st);
    EXPECT_TRUE(st.records[0].col == -1 || st.records[0].col == 169) << stats_text(st);
    // C as computed: the fault is in it (times alpha when it hit the accumulator), the rest
    // is exact.
    const std::vector<float> r = p.result();
    const float delta = step == AEGIS_FAULT_K_EPILOGUE ? big : c.alpha * big;
    EXPECT_NEAR(p.at(r, 299, 169) - p.at(clean, 299, 169), delta, 1e-3 * delta);
    EXPECT_TRUE(p.verify_block(0, 299, 0, c.n));
    EXPECT_TRUE(p.verify_block(299, 300, 0, 169));
  }
  // Unlocatable patterns are reported too, and C is left alone.
  arm({add_fault(5, 5, 1, big), add_fault(5, 6, 1, big)});
  reset_stats();
  p.restore_c();
  run(p);
  const aegisFtStats_t st = stats();
  EXPECT_GE(st.detected, 1) << stats_text(st);
  EXPECT_EQ(st.corrected + st.recomputed, 0) << stats_text(st);
  const std::vector<float> r = p.result();
  EXPECT_NEAR(p.at(r, 5, 6) - p.at(clean, 5, 6), c.alpha * big, 1e-3 * c.alpha * big);
}

// ---- FtSgemmConfigs
// ---------------------------------------------------------------------------------

TEST_F(FtSgemmConfigs, EveryConfigCleanAndWithFaultsInTheLastTile) {
  size_t index = 0;
  const aegisOperation_t ops[] = {AEGIS_OP_N, AEGIS_OP_T};
  for (int i = 0; i < aegisSgemmConfigCount(); ++i) {
    const std::string config = aegisSgemmConfigName(i);
    const Tile t = force_config(i);
    ASSERT_GT(t.ktb, 0) << config;
    const Mnk shapes[] = {{1, 1, 1},
                          {t.mtb - 1, t.ntb + 1, t.ktb + 1},
                          {2 * t.mtb + 3, t.ntb - 5 > 0 ? t.ntb - 5 : 1, 9 * t.ktb - 1},
                          {t.mtb + 1, 3 * t.ntb + 2, 2 * t.ktb}};
    for (const Mnk& s : shapes) {
      FtCase c = sweep_case(ops[index % 2], ops[(index / 2) % 2], s);
      c.beta = index % 3 == 1 ? 0.5f : 0.0f;
      c.padded_ld = index % 2 == 1;
      SCOPED_TRACE(config + " " + c.describe());
      FtProblem p(c, case_seed(seed_, index++));
      set_mode(AEGIS_FT_CORRECT);
      reset_stats();
      const std::string kernel = run(p);
      EXPECT_TRUE(kernel_is_config(kernel.substr(0, kernel.find("_ft")), config)) << kernel;
      EXPECT_TRUE(p.verify());
      aegisFtStats_t st = stats();
      EXPECT_EQ(st.detected, 0) << stats_text(st);
      const float big = 1e3f * scale_of(p.result());
      const int64_t k_tiles = ceil_div(c.k, t.ktb);
      // The last element of the last (partial) tile at the last K tile; the epilogue of the
      // first column's last row; a bit flip in another tile if there is one.
      std::vector<aegisFault_t> faults = {add_fault(c.m - 1, c.n - 1, k_tiles - 1, big)};
      if (c.n > t.ntb) faults.push_back(add_fault(c.m - 1, 0, AEGIS_FAULT_K_EPILOGUE, -big));
      if (c.m > t.mtb) faults.push_back(flip_fault(0, c.n - 1, 0, 30));
      const int64_t count = static_cast<int64_t>(faults.size());
      for (aegisFtMode_t mode : {AEGIS_FT_CORRECT, AEGIS_FT_DETECT}) {
        set_mode(mode);
        arm(faults);
        reset_stats();
        p.restore_c();
        run(p);
        st = stats();
        if (mode == AEGIS_FT_CORRECT) {
          EXPECT_EQ(st.detected, count) << stats_text(st);
          std::vector<Elem> elems;
          for (const aegisFault_t& f : faults) elems.push_back({f.row, f.col});
          EXPECT_TRUE(p.verify(elems));
          EXPECT_EQ(st.corrected + st.recomputed, count) << stats_text(st);
          EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
        } else {
          // A NaN left in an accumulator may be found again by the epilogue check.
          EXPECT_GE(st.detected, count) << stats_text(st);
          const std::vector<float> r = p.result();
          EXPECT_FALSE(std::fabs(p.at(r, c.m - 1, c.n - 1)) < 0.5f * big)
              << "DETECT must leave the fault in C";
        }
      }
      if (HasFatalFailure()) return;
    }
  }
  ASSERT_EQ(aegisSetSgemmOverride(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
}

// ---- FtSgemmLevels
// ---------------------------------------------------------------------------------
// Warp and thread level (aegisSetFtLevel): a checksum pair per warp part or per thread
// fragment of the tile. The block level runs everything above; these tests run the same kinds
// of cases at the finer levels, and what only they can do: repair one fault per cell.

const aegisFtLevel_t kFinerLevels[] = {AEGIS_FT_LEVEL_WARP, AEGIS_FT_LEVEL_THREAD};

const char* level_suffix(aegisFtLevel_t level) {
  return level == AEGIS_FT_LEVEL_WARP     ? "_ftwarp"
         : level == AEGIS_FT_LEVEL_THREAD ? "_ftthread"
                                          : "_ftblock";
}

class FtSgemmLevels : public FtFixture {
 protected:
  void set_level(aegisFtLevel_t level) {
    ASSERT_EQ(aegisSetFtLevel(h_, level), AEGIS_STATUS_SUCCESS) << last_error();
  }
  // Runs p and checks that the level's kernel ran.
  void run_at(const FtProblem& p, aegisFtLevel_t level) {
    const std::string kernel = run(p);
    EXPECT_NE(kernel.find(level_suffix(level)), std::string::npos) << kernel;
  }
};

TEST_F(FtSgemmLevels, AdversarialDataHasNoFalsePositives) {
  size_t index = 0;
  for (aegisFtLevel_t level : kFinerLevels)
    for (Dist d : kAdversarial)
      for (const Mnk& s : kCleanShapes) {
        set_level(level);
        const FtCase c = clean_case(d, s, index);
        set_mode(index % 2 ? AEGIS_FT_DETECT : AEGIS_FT_CORRECT);
        reset_stats();
        FtProblem p(c, case_seed(seed_, index));
        run_at(p, level);
        EXPECT_TRUE(p.verify()) << "level " << level;
        const aegisFtStats_t st = stats();
        EXPECT_EQ(st.detected, 0) << "level " << level << " " << p.describe() << " "
                                  << stats_text(st);
        EXPECT_EQ(st.nonfinite, 0) << "level " << level << " " << p.describe();
        EXPECT_GT(st.checks, 0) << "level " << level << " " << p.describe();
        ++index;
        if (HasFatalFailure()) return;
      }
}

TEST_F(FtSgemmLevels, EveryTransposeAlphaBetaAndVerifyInterval) {
  const Mnk shapes[] = {{129, 65, 33}, {64, 640, 257}, {333, 97, 1031}};
  const float scalars[][2] = {{1.0f, 0.0f}, {-1.5f, 0.5f}, {0.25f, 1.0f}};
  size_t index = 0;
  set_mode(AEGIS_FT_CORRECT);
  for (aegisFtLevel_t level : kFinerLevels)
    for (aegisOperation_t ta : {AEGIS_OP_N, AEGIS_OP_T})
      for (aegisOperation_t tb : {AEGIS_OP_N, AEGIS_OP_T})
        for (const Mnk& s : shapes) {
          set_level(level);
          FtCase c = sweep_case(ta, tb, s);
          c.alpha = scalars[index % 3][0];
          c.beta = scalars[index % 3][1];
          c.padded_ld = index % 2 == 1;
          FtProblem p(c, case_seed(seed_, index++));
          run_at(p, level);
          EXPECT_TRUE(p.verify()) << "level " << level;
          const std::vector<float> reference = p.result();
          // Checks between K chunks change no bit.
          ASSERT_EQ(aegisSetFtVerifyInterval(h_, 3), AEGIS_STATUS_SUCCESS);
          p.restore_c();
          run_at(p, level);
          ASSERT_EQ(aegisSetFtVerifyInterval(h_, 0), AEGIS_STATUS_SUCCESS);
          const std::vector<float> r = p.result();
          size_t differ = 0;
          for (size_t e = 0; e < r.size(); ++e)
            differ += std::memcmp(&r[e], &reference[e], sizeof(float)) != 0;
          EXPECT_EQ(differ, 0u) << "level " << level << " " << p.describe();
        }
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.detected, 0) << stats_text(st);
}

TEST_F(FtSgemmLevels, SingleFaultAnywhereIsRepairedAndLocated) {
  set_mode(AEGIS_FT_CORRECT);
  FtCase c;
  c.m = 257;
  c.n = 131;
  c.k = 300;
  c.transb = AEGIS_OP_T;
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const Tile t = tile_of_last_kernel();
  ASSERT_GT(t.mt, 0);
  const float big = 1e3f * scale_of(p.result());
  const int64_t k_tiles = ceil_div(c.k, t.ktb);
  const Elem where[] = {{0, 0}, {c.m - 1, c.n - 1}, {t.mtb + 5, t.ntb / 2 + 3}, {c.m - 1, 6}};
  int index = 0;
  for (aegisFtLevel_t level : kFinerLevels)
    for (const Elem& e : where)
      for (int64_t step : {int64_t(0), k_tiles / 2, k_tiles - 1, int64_t(AEGIS_FAULT_K_EPILOGUE)})
        for (int kind = 0; kind < 2; ++kind) {
          set_level(level);
          const aegisFault_t f = kind == 0 ? add_fault(e.i, e.j, step, index % 2 ? -big : big)
                                           : flip_fault(e.i, e.j, step, 30);
          ++index;
          SCOPED_TRACE("level " + std::to_string(level) + ": " + fault_text(f));
          arm({f});
          reset_stats();
          p.restore_c();
          run_at(p, level);
          EXPECT_TRUE(p.verify({e}));
          const aegisFtStats_t st = stats();
          EXPECT_GE(st.detected, 1) << stats_text(st);
          EXPECT_GE(st.corrected + st.recomputed, 1) << stats_text(st);
          EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
          if (kind == 0 && step != AEGIS_FAULT_K_EPILOGUE) {
            EXPECT_EQ(st.detected, 1) << stats_text(st);
            EXPECT_EQ(st.corrected, 1) << "one fault, located in its cell " << stats_text(st);
            ASSERT_EQ(st.record_count, 1) << stats_text(st);
            EXPECT_EQ(st.records[0].row, e.i);
            EXPECT_EQ(st.records[0].col, e.j);
            EXPECT_EQ(st.records[0].tile_row, e.i / t.mtb * t.mtb);
            EXPECT_EQ(st.records[0].tile_col, e.j / t.ntb * t.ntb);
            EXPECT_EQ(st.records[0].action, AEGIS_FAULT_ACTION_CORRECTED);
          }
          if (HasFatalFailure()) return;
        }
}

// Two faults in one tile: repaired in place where they fall in different cells (at the finer
// levels), the tile computed again where they share one (always at block level).
TEST_F(FtSgemmLevels, FaultsInDifferentCellsAreEachRepaired) {
  set_mode(AEGIS_FT_CORRECT);
  const Tile t = force_config();
  ASSERT_GT(t.mt, 0);
  FtCase c;
  c.m = 2 * t.mtb;
  c.n = 2 * t.ntb - 3;
  c.k = 6 * t.ktb + 5;
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const float big = 1e3f * scale_of(p.result());
  const int r0 = t.mtb, c0 = 0;  // tile (1, 0)
  // Pairs in different rows and columns: 4 apart (thread runs), a warp part apart, the tile's
  // far corner.
  const int pairs[][4] = {{0, 0, 4, 4}, {1, 2, t.mw + 1, t.nw + 2}, {3, 5, t.mtb - 1, t.ntb - 7}};
  for (aegisFtLevel_t level : {AEGIS_FT_LEVEL_BLOCK, AEGIS_FT_LEVEL_WARP, AEGIS_FT_LEVEL_THREAD})
    for (const auto& q : pairs) {
      // A tile of one warp has no second warp part: that pair would fall outside the tile.
      if (q[2] >= t.mtb || q[3] >= t.ntb) continue;
      set_level(level);
      const std::vector<aegisFault_t> faults = {add_fault(r0 + q[0], c0 + q[1], 2, big),
                                                add_fault(r0 + q[2], c0 + q[3], 4, -2 * big)};
      SCOPED_TRACE("level " + std::to_string(level) + ": " + fault_text(faults[0]) + " and " +
                   fault_text(faults[1]));
      arm(faults);
      reset_stats();
      p.restore_c();
      run_at(p, level);
      EXPECT_TRUE(p.verify({{faults[0].row, faults[0].col}, {faults[1].row, faults[1].col}}));
      const aegisFtStats_t st = stats();
      EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
      if (same_cell(level, t, q[0], q[1], q[2], q[3])) {
        EXPECT_EQ(st.detected, 1) << stats_text(st);
        EXPECT_EQ(st.recomputed, 1) << stats_text(st);
        EXPECT_EQ(st.corrected, 0) << stats_text(st);
      } else {
        EXPECT_EQ(st.detected, 2) << stats_text(st);
        EXPECT_EQ(st.corrected, 2) << "each fault alone in its cell " << stats_text(st);
        EXPECT_EQ(st.recomputed, 0) << stats_text(st);
      }
    }
  // Eight faults in eight cells of one tile at thread level, in distinct rows and columns:
  // all repaired in place. The positions are searched, so that this holds for any tile.
  set_level(AEGIS_FT_LEVEL_THREAD);
  std::vector<aegisFault_t> faults;
  std::vector<Elem> elems;
  for (int cand = 0; cand < t.mtb * t.ntb && elems.size() < 8; ++cand) {
    const int row = (cand * 5) % t.mtb, col = (cand * 9 + 1) % t.ntb;
    bool apart = true;
    for (const Elem& e : elems)
      apart = apart && e.i - r0 != row && e.j - c0 != col &&
              !same_cell(AEGIS_FT_LEVEL_THREAD, t, int(e.i - r0), int(e.j - c0), row, col);
    if (!apart) continue;
    const int f = static_cast<int>(elems.size());
    // Added values, not exponent flips: a flip to Inf or NaN leaves a non-finite residual,
    // which locates nothing (the tile is computed again, at any level).
    faults.push_back(add_fault(r0 + row, c0 + col, f % 3, (f % 2 ? -big : big) * (f + 1)));
    elems.push_back({r0 + row, c0 + col});
  }
  ASSERT_EQ(elems.size(), 8u) << "eight cells of distinct rows and columns in one tile";
  arm(faults);
  reset_stats();
  p.restore_c();
  run_at(p, AEGIS_FT_LEVEL_THREAD);
  EXPECT_TRUE(p.verify(elems));
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
  EXPECT_EQ(st.corrected, 8) << stats_text(st);
  EXPECT_EQ(st.recomputed, 0) << stats_text(st);
  ASSERT_EQ(aegisSetSgemmOverride(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
}

TEST_F(FtSgemmLevels, ChecksumFaultsRecomputeAndDetectModeReports) {
  FtCase c;
  c.m = 300;
  c.n = 200;
  c.k = 96;
  FtProblem p(c, case_seed(seed_, 0));
  run(p);
  const std::vector<float> clean = p.result();
  const float big = 1e3f * scale_of(clean);
  for (aegisFtLevel_t level : kFinerLevels) {
    set_level(level);
    set_mode(AEGIS_FT_CORRECT);
    for (aegisFaultTarget_t target :
         {AEGIS_FAULT_TARGET_COLUMN_CHECKSUM, AEGIS_FAULT_TARGET_ROW_CHECKSUM}) {
      for (const aegisFault_t& f : {add_fault(299, 150, 3, big, 0, target),
                                    add_fault(10, 10, 1000, INFINITY, 0, target)}) {
        SCOPED_TRACE("level " + std::to_string(level) + ": " + fault_text(f));
        arm({f});
        reset_stats();
        p.restore_c();
        run_at(p, level);
        EXPECT_TRUE(p.verify());
        const aegisFtStats_t st = stats();
        EXPECT_EQ(st.detected, 1) << stats_text(st);
        EXPECT_EQ(st.recomputed, 1) << "a checksum hit shows in one line only " << stats_text(st);
        EXPECT_EQ(st.corrected + st.unrecovered + st.nonfinite, 0) << stats_text(st);
      }
    }
    set_mode(AEGIS_FT_DETECT);
    const aegisFault_t f = add_fault(299, 199, 2, big);
    arm({f});
    reset_stats();
    p.restore_c();
    run_at(p, level);
    const aegisFtStats_t st = stats();
    EXPECT_EQ(st.detected, 1) << stats_text(st);
    EXPECT_EQ(st.corrected + st.recomputed + st.unrecovered, 0) << stats_text(st);
    ASSERT_EQ(st.record_count, 1) << stats_text(st);
    EXPECT_EQ(st.records[0].action, AEGIS_FAULT_ACTION_REPORTED);
    const std::vector<float> r = p.result();
    EXPECT_NEAR(p.at(r, 299, 199) - p.at(clean, 299, 199), big, 1e-3 * big)
        << "DETECT leaves the fault in C";
    EXPECT_TRUE(p.verify_block(0, 299, 0, c.n));
  }
}

TEST_F(FtSgemmLevels, NonFiniteInputsAreNotFaults) {
  set_mode(AEGIS_FT_CORRECT);
  for (aegisFtLevel_t level : kFinerLevels) {
    set_level(level);
    FtCase c;
    c.transa = AEGIS_OP_T;
    c.m = 300;
    c.n = 200;
    c.k = 100;
    c.dist = Dist::kPositive;
    FtProblem p(c, case_seed(seed_, level));
    const int64_t row = 137;
    p.set_a(row, 41, kInf);
    reset_stats();
    run_at(p, level);
    const aegisFtStats_t st = stats();
    EXPECT_GT(st.nonfinite, 0) << stats_text(st);
    EXPECT_EQ(st.detected, 0) << stats_text(st);
    const std::vector<float> r = p.result();
    for (int64_t j = 0; j < c.n; ++j) ASSERT_EQ(p.at(r, row, j), kInf) << "C(" << row << ", " << j << ")";
    EXPECT_TRUE(p.verify_block(0, row, 0, c.n));
    EXPECT_TRUE(p.verify_block(row + 1, c.m, 0, c.n));
  }
}

TEST_F(FtSgemmLevels, EveryConfigCleanAndWithFaultsInTheLastTile) {
  size_t index = 0;
  set_mode(AEGIS_FT_CORRECT);
  for (int i = 0; i < aegisSgemmConfigCount(); ++i) {
    const std::string config = aegisSgemmConfigName(i);
    const Tile t = force_config(i);
    ASSERT_GT(t.mt, 0) << config;
    for (aegisFtLevel_t level : kFinerLevels) {
      set_level(level);
      FtCase c;
      c.transa = index % 2 ? AEGIS_OP_T : AEGIS_OP_N;
      c.transb = index % 3 ? AEGIS_OP_N : AEGIS_OP_T;
      c.m = 2 * t.mtb + 3;
      c.n = t.ntb + 5;
      c.k = 5 * t.ktb - 1;
      c.beta = index % 2 ? 0.5f : 0.0f;
      SCOPED_TRACE(config + " level " + std::to_string(level) + " " + c.describe());
      FtProblem p(c, case_seed(seed_, index++));
      reset_stats();
      run_at(p, level);
      EXPECT_TRUE(p.verify());
      aegisFtStats_t st = stats();
      EXPECT_EQ(st.detected, 0) << stats_text(st);
      const float big = 1e3f * scale_of(p.result());
      const std::vector<aegisFault_t> faults = {add_fault(c.m - 1, c.n - 1, 4, big),
                                                flip_fault(0, 0, 0, 30),
                                                add_fault(c.m - 2, 1, AEGIS_FAULT_K_EPILOGUE, -big)};
      arm(faults);
      reset_stats();
      p.restore_c();
      run_at(p, level);
      st = stats();
      EXPECT_TRUE(p.verify({{c.m - 1, c.n - 1}, {0, 0}, {c.m - 2, 1}}));
      EXPECT_EQ(st.detected, 3) << stats_text(st);
      EXPECT_EQ(st.corrected + st.recomputed, 3) << stats_text(st);
      EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
      if (HasFatalFailure()) return;
    }
  }
  ASSERT_EQ(aegisSetSgemmOverride(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
}

// ---- FtSgemmSanitizer
// ------------------------------------------------------------------------------

TEST_F(FtSgemmSanitizer, TinyCasesWithFaults) {
  set_mode(AEGIS_FT_CORRECT);
  {  // 1 x 1 x 1, clean and with a fault in each place.
    FtCase c;
    FtProblem p(c, case_seed(seed_, 0));
    run(p);
    EXPECT_TRUE(p.verify());
    for (int64_t step : {int64_t(0), int64_t(AEGIS_FAULT_K_EPILOGUE)}) {
      arm({add_fault(0, 0, step, 1e4f)});
      p.restore_c();
      run(p);
      EXPECT_TRUE(p.verify({{0, 0}})) << "step " << step;
    }
  }
  {  // Partial tiles, transposes, beta != 0, interval, two faults far apart in K.
    FtCase c;
    c.transa = AEGIS_OP_T;
    c.m = 33;
    c.n = 31;
    c.k = 67;
    c.beta = -0.5f;
    c.padded_ld = true;
    FtProblem p(c, case_seed(seed_, 1));
    ASSERT_EQ(aegisSetFtVerifyInterval(h_, 2), AEGIS_STATUS_SUCCESS);
    arm({add_fault(32, 30, 0, 1e4f), add_fault(1, 30, 7, 1e4f),
         add_fault(5, 5, AEGIS_FAULT_K_EPILOGUE, 100.0f, 1)});
    for (int call = 0; call < 2; ++call) {
      p.restore_c();
      run(p);
      EXPECT_TRUE(p.verify({{32, 30}, {1, 30}, {5, 5}})) << "call " << call;
    }
    ASSERT_EQ(aegisSetFtVerifyInterval(h_, 0), AEGIS_STATUS_SUCCESS);
  }
  {  // DETECT, checksum hit, NaN input.
    set_mode(AEGIS_FT_DETECT);
    FtCase c;
    c.m = 20;
    c.n = 9;
    c.k = 5;
    c.transb = AEGIS_OP_T;
    FtProblem p(c, case_seed(seed_, 2));
    arm({add_fault(3, 3, 0, 1e4f, 0, AEGIS_FAULT_TARGET_ROW_CHECKSUM)});
    run(p);
    EXPECT_TRUE(p.verify());
    p.set_a(7, 2, kNaN);
    run(p);
    EXPECT_TRUE(p.verify_block(0, 7, 0, c.n));
  }
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
  EXPECT_GT(st.nonfinite, 0) << stats_text(st);
  EXPECT_GE(st.detected, 6) << stats_text(st);
}

TEST_F(FtSgemmSanitizer, FinerLevelsWithFaults) {
  set_mode(AEGIS_FT_CORRECT);
  for (aegisFtLevel_t level : {AEGIS_FT_LEVEL_WARP, AEGIS_FT_LEVEL_THREAD}) {
    ASSERT_EQ(aegisSetFtLevel(h_, level), AEGIS_STATUS_SUCCESS) << last_error();
    FtCase c;
    c.transb = AEGIS_OP_T;
    c.m = 45;
    c.n = 38;
    c.k = 29;
    c.beta = 0.5f;
    FtProblem p(c, case_seed(seed_, level));
    run(p);
    EXPECT_TRUE(p.verify());
    // Two cells' faults, a checksum hit (the tile again), an epilogue fault; then with an
    // interval.
    for (int64_t interval : {0, 2}) {
      ASSERT_EQ(aegisSetFtVerifyInterval(h_, interval), AEGIS_STATUS_SUCCESS);
      arm({add_fault(0, 0, 0, 1e4f), add_fault(44, 37, 1, -1e4f),
           add_fault(20, 20, 1, 1e4f, 1, AEGIS_FAULT_TARGET_COLUMN_CHECKSUM),
           add_fault(3, 30, AEGIS_FAULT_K_EPILOGUE, 100.0f, 1)});
      for (int call = 0; call < 2; ++call) {
        p.restore_c();
        run(p);
        EXPECT_TRUE(p.verify({{0, 0}, {44, 37}, {3, 30}})) << "level " << level << " call " << call;
      }
    }
    ASSERT_EQ(aegisSetFtVerifyInterval(h_, 0), AEGIS_STATUS_SUCCESS);
  }
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.unrecovered, 0) << stats_text(st);
  EXPECT_GE(st.detected, 12) << stats_text(st);
}

}  // namespace
}  // namespace aegis_test
