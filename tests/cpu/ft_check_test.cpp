// The arithmetic of a checksum check (src/abft/ft_check.h): the rounding bound, the cheap
// bound, exceeds() and the verdict of classify() for every pattern of bad lines; and a host
// simulation of one output tile (FP32, FMA chains, checksums encoded from operand sums, as
// the fused kernels do) showing in miniature that clean data never exceeds the bound (zero
// false positives) while an error of 10x the bound is flagged in exactly its row and column
// and located.
//
// Suites: FtCheckBound, FtCheckExceeds, FtCheckClassify, FtCheckApplyFault,
// FtCheckSimulation. Random cases print their seed on failure; AEGIS_TEST_SEED=<seed>
// reproduces one.
#include <gtest/gtest.h>

// ft_check.h calls isfinite unqualified; <cmath> alone does not declare it in the global
// namespace on the host (libstdc++), <math.h> does.
#include <math.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "abft/ft_check.h"
#include "abft/ft_params.h"

namespace aegis_test {
namespace {

using aegis::abft::cheap_bound;
using aegis::abft::checksum_bound;
using aegis::abft::kReferenceSlack;
using aegis::abft::classify;
using aegis::abft::exceeds;
using aegis::abft::rounding_bound;
using aegis::abft::Verdict;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kU = 5.9604644775390625e-08;  // 2^-24

double gamma(double n) { return n * kU / (1.0 - n * kU); }

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kClean:
      return "kClean";
    case Verdict::kNonFinite:
      return "kNonFinite";
    case Verdict::kCorrectOne:
      return "kCorrectOne";
    case Verdict::kRecompute:
      return "kRecompute";
  }
  return "?";
}

// ---- rounding_bound / cheap_bound ------------------------------------------------------

const int kTileLens[] = {1, 8, 32, 64, 128, 256};
const float kMags[] = {0.0f, 1e-30f, 1e-6f, 1.0f, 3.5f, 1e6f, 1e30f};

TEST(FtCheckBound, MonotoneInK) {
  for (int t : kTileLens)
    for (float mag : kMags) {
      float prev = rounding_bound(mag, 0, t);
      for (int64_t k = 1; k <= (int64_t(1) << 24); k = k < 64 ? k + 1 : k + k / 3) {
        const float b = rounding_bound(mag, k, t);
        ASSERT_GE(b, prev) << "mag " << mag << " tile_len " << t << " k " << k;
        prev = b;
      }
    }
  // Strictly: a deeper sum has more roundings.
  EXPECT_GT(rounding_bound(1.0f, 1000, 128), rounding_bound(1.0f, 10, 128));
  EXPECT_GT(rounding_bound(1.0f, 100000, 128), rounding_bound(1.0f, 1000, 128));
  EXPECT_GT(rounding_bound(0.0f, 1000, 128), rounding_bound(0.0f, 10, 128));
}

TEST(FtCheckBound, MonotoneInMagnitudeAndTileLength) {
  for (int t : kTileLens)
    for (int64_t k : {int64_t(0), int64_t(1), int64_t(8), int64_t(1031), int64_t(1) << 20}) {
      float prev = rounding_bound(0.0f, k, t);
      for (float mag = 1e-38f; mag < 1e37f; mag *= 1.7f) {
        const float b = rounding_bound(mag, k, t);
        ASSERT_GE(b, prev) << "mag " << mag << " tile_len " << t << " k " << k;
        prev = b;
      }
      EXPECT_GT(rounding_bound(2.0f, k, t), rounding_bound(1.0f, k, t)) << "k " << k;
    }
  for (int64_t k : {int64_t(1), int64_t(64), int64_t(4096)})
    for (float mag : kMags)
      for (size_t i = 1; i < sizeof(kTileLens) / sizeof(kTileLens[0]); ++i)
        EXPECT_GE(rounding_bound(mag, k, kTileLens[i]), rounding_bound(mag, k, kTileLens[i - 1]))
            << "mag " << mag << " k " << k;
}

TEST(FtCheckBound, CoversTheDocumentedErrorBound) {
  // |ck - sum| <= (2 gamma_k + 2 gamma_tile) S, plus subnormal spacing per operation.
  for (int t : kTileLens)
    for (int64_t k :
         {int64_t(0), int64_t(1), int64_t(7), int64_t(1031), int64_t(1) << 16, int64_t(1) << 20})
      for (float mag : kMags) {
        const double needed = (2.0 * gamma(static_cast<double>(k)) + 2.0 * gamma(t)) * mag;
        EXPECT_GE(static_cast<double>(rounding_bound(mag, k, t)), needed)
            << "mag " << mag << " tile_len " << t << " k " << k;
      }
}

TEST(FtCheckBound, CoversATensorCoreReference) {
  // A 3xTF32 reference (gemm/simt/ft_reference_tf32.h) is off by at most
  // (520 + k/32 + pieces) u S, pieces <= k/16 + 1, where an FP32 one is off by gamma_k S.
  constexpr double u = 5.9604644775390625e-08;
  for (int t : kTileLens)
    for (int64_t k : {int64_t(0), int64_t(1), int64_t(8), int64_t(64), int64_t(100),
                      int64_t(1031), int64_t(1) << 16, int64_t(1) << 20})
      for (float mag : kMags) {
        const double kd = static_cast<double>(k);
        const double reference = (520.0 + kd / 32.0 + kd / 16.0 + 1.0) * u;
        const double needed = (gamma(kd) + reference + 2.0 * gamma(t)) * mag;
        EXPECT_GE(static_cast<double>(checksum_bound(mag, k, t)), needed)
            << "mag " << mag << " tile_len " << t << " k " << k;
      }
}

TEST(FtCheckBound, ZeroMagnitudeLeavesOnlyAnUnderflowFloor) {
  // With nothing summed only the absolute slack for underflow remains: positive, and far
  // below anything a fault in normal-range data changes.
  for (int t : kTileLens)
    for (int64_t k : {int64_t(0), int64_t(1), int64_t(4096)}) {
      const float b = rounding_bound(0.0f, k, t);
      EXPECT_GT(b, 0.0f) << "tile_len " << t << " k " << k;
      EXPECT_LT(b, 1e-30f) << "tile_len " << t << " k " << k;
      // A residual of one ulp of 1.0 is never rounding when nothing was summed.
      EXPECT_TRUE(exceeds(std::ldexp(1.0f, -23), b));
    }
}

TEST(FtCheckBound, InfiniteWhenFp32CannotBoundTheSum) {
  for (int t : kTileLens) {
    EXPECT_TRUE(std::isfinite(rounding_bound(1.0f, int64_t(1) << 20, t))) << t;
    EXPECT_TRUE(std::isfinite(rounding_bound(1e30f, int64_t(1) << 21, t))) << t;
    EXPECT_EQ(rounding_bound(1.0f, int64_t(1) << 23, t), kInf) << t;
    EXPECT_EQ(rounding_bound(0.0f, int64_t(1) << 23, t), kInf) << t;
    EXPECT_EQ(rounding_bound(1.0f, (int64_t(1) << 23) + 12345, t), kInf) << t;
    EXPECT_EQ(rounding_bound(1.0f, INT64_MAX / 4, t), kInf) << t;
  }
  // Once infinite, infinite for every deeper k.
  bool seen_inf = false;
  for (int64_t k = int64_t(1) << 21; k <= int64_t(1) << 24; k += 4099) {
    const bool inf = std::isinf(rounding_bound(1.0f, k, 128));
    EXPECT_FALSE(seen_inf && !inf) << "finite again at k " << k;
    seen_inf = seen_inf || inf;
  }
  EXPECT_TRUE(seen_inf);
  // Infinite bound: no finite residual is a fault.
  EXPECT_FALSE(exceeds(1e38f, rounding_bound(1.0f, int64_t(1) << 23, 128)));
}

TEST(FtCheckBound, CheapBoundIsBelowTheChecksumBound) {
  for (int t : kTileLens)
    for (int64_t k : {int64_t(0), int64_t(1), int64_t(8), int64_t(4096), int64_t(1) << 20})
      for (float mag : kMags)
        for (float sign : {1.0f, -1.0f}) {
          const float cb = cheap_bound(sign * mag, k, t);
          EXPECT_LE(cb, checksum_bound(mag, k, t)) << "checksum " << sign * mag << " k " << k;
          EXPECT_GE(cb, 0.0f);
        }
  // What the cheap test relies on: a computed checksum is at most S (1 + gamma_N)^2 with
  // N = k + tile length + kReferenceSlack (one factor for the K chain, tensor-core reference
  // included, one for the operand sums), so its cheap bound stays below the bound of S, at
  // every depth where the bound is finite.
  for (int t : kTileLens)
    for (int64_t k : {int64_t(1), int64_t(64), int64_t(4096), int64_t(1) << 18, int64_t(1) << 20,
                      int64_t(1) << 21, int64_t(3) << 20})
      for (float s : {1e-20f, 1.0f, 1e20f}) {
        if (!std::isfinite(checksum_bound(1.0f, k, t))) break;
        const double nu = static_cast<double>(k + t + kReferenceSlack) * std::ldexp(1.0, -24);
        const double g = nu / (1.0 - nu);  // gamma_N
        const float ck = static_cast<float>(s * (1.0 + g) * (1.0 + g));
        EXPECT_LE(cheap_bound(ck, k, t), checksum_bound(s, k, t)) << "S " << s << " k " << k;
      }
}

// ---- exceeds ---------------------------------------------------------------------------

TEST(FtCheckExceeds, ComparesMagnitudesAndTreatsNaNAsBad) {
  const float b = 1e-3f;
  EXPECT_FALSE(exceeds(0.0f, b));
  EXPECT_FALSE(exceeds(b, b));
  EXPECT_FALSE(exceeds(-b, b));
  EXPECT_TRUE(exceeds(std::nextafter(b, 1.0f), b));
  EXPECT_TRUE(exceeds(-std::nextafter(b, 1.0f), b));
  EXPECT_TRUE(exceeds(kInf, b));
  EXPECT_TRUE(exceeds(-kInf, 1e38f));
  EXPECT_TRUE(exceeds(kNaN, b));
  EXPECT_TRUE(exceeds(-kNaN, b));
  EXPECT_TRUE(exceeds(kNaN, kInf)) << "a NaN residual is bad even where no bound exists";
  EXPECT_FALSE(exceeds(0.0f, 0.0f));
  EXPECT_TRUE(exceeds(std::numeric_limits<float>::denorm_min(), 0.0f));
}

// ---- classify --------------------------------------------------------------------------

TEST(FtCheckClassify, Clean) {
  EXPECT_EQ(classify(0, 0, 0.0f, 0.0f, 1e-6f, true), Verdict::kClean);
  // The residuals of a clean tile are not looked at.
  EXPECT_EQ(classify(0, 0, kNaN, kInf, 0.0f, true), Verdict::kClean);
}

TEST(FtCheckClassify, NonFiniteChecksumsDecideFirst) {
  EXPECT_EQ(classify(0, 0, 0.0f, 0.0f, 1e-6f, false), Verdict::kNonFinite);
  EXPECT_EQ(classify(1, 1, -5.0f, -5.0f, 1e-3f, false), Verdict::kNonFinite);
  EXPECT_EQ(classify(3, 2, kNaN, kNaN, 1e-3f, false), Verdict::kNonFinite);
  EXPECT_EQ(classify(0, 1, 7.0f, 0.0f, 1e-3f, false), Verdict::kNonFinite);
}

TEST(FtCheckClassify, OneRowOneColumnConsistentIsCorrectOne) {
  EXPECT_EQ(classify(1, 1, -5.0f, -5.0f, 1e-3f, true), Verdict::kCorrectOne);
  EXPECT_EQ(classify(1, 1, 2.5e30f, 2.5e30f, 0.0f, true), Verdict::kCorrectOne);
  EXPECT_EQ(classify(1, 1, -5.0f, -5.0009f, 1e-3f, true), Verdict::kCorrectOne);
  // The tolerance is inclusive.
  EXPECT_EQ(classify(1, 1, 1.0f, 1.5f, 0.5f, true), Verdict::kCorrectOne);
  EXPECT_EQ(classify(1, 1, 1e-30f, 2e-30f, 1e-30f, true), Verdict::kCorrectOne);
}

TEST(FtCheckClassify, InconsistentResidualsRecompute) {
  EXPECT_EQ(classify(1, 1, -5.0f, -5.1f, 1e-3f, true), Verdict::kRecompute);
  EXPECT_EQ(classify(1, 1, 5.0f, -5.0f, 1e-3f, true), Verdict::kRecompute);
  EXPECT_EQ(classify(1, 1, 1.0f, std::nextafter(1.5f, 2.0f), 0.5f, true), Verdict::kRecompute);
  EXPECT_EQ(classify(1, 1, 1.0f, 2.0f, 0.0f, true), Verdict::kRecompute);
}

TEST(FtCheckClassify, SeveralLinesRecompute) {
  for (int rows = 0; rows <= 4; ++rows)
    for (int cols = 0; cols <= 4; ++cols) {
      if ((rows == 0 && cols == 0) || (rows == 1 && cols == 1)) continue;
      EXPECT_EQ(classify(rows, cols, -5.0f, -5.0f, 1e-3f, true), Verdict::kRecompute)
          << rows << " bad rows, " << cols << " bad columns";
    }
  EXPECT_EQ(classify(1, 2, -5.0f, -5.0f, 1e-3f, true), Verdict::kRecompute) << "two columns";
  EXPECT_EQ(classify(2, 1, -5.0f, -5.0f, 1e-3f, true), Verdict::kRecompute) << "two rows";
}

TEST(FtCheckClassify, OneLineAloneRecomputes) {
  // A checksum hit (or a fault that shows in one direction only) cannot be located.
  EXPECT_EQ(classify(0, 1, 0.0f, 3.0f, 1e-3f, true), Verdict::kRecompute);
  EXPECT_EQ(classify(1, 0, 3.0f, 0.0f, 1e-3f, true), Verdict::kRecompute);
  EXPECT_EQ(classify(0, 128, 0.0f, 3.0f, 1e-3f, true), Verdict::kRecompute);
  EXPECT_EQ(classify(128, 0, 3.0f, 0.0f, 1e-3f, true), Verdict::kRecompute);
}

TEST(FtCheckClassify, NonFiniteResidualRecomputes) {
  EXPECT_EQ(classify(1, 1, kNaN, kNaN, kInf, true), Verdict::kRecompute);
  EXPECT_EQ(classify(1, 1, kNaN, -5.0f, 1e-3f, true), Verdict::kRecompute);
  EXPECT_EQ(classify(1, 1, -5.0f, kNaN, 1e-3f, true), Verdict::kRecompute);
  EXPECT_EQ(classify(1, 1, kInf, kInf, kInf, true), Verdict::kRecompute);
  EXPECT_EQ(classify(1, 1, -kInf, -kInf, 1e-3f, true), Verdict::kRecompute);
}

// ---- apply_fault (ft_params.h, the injector the kernels call) ---------------------------

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

TEST(FtCheckApplyFault, BitflipAndAdd) {
  using aegis::abft::apply_fault;
  using aegis::abft::kFaultAdd;
  using aegis::abft::kFaultBitflip;
  for (float x : {1.5f, -0.75f, 3.0e-20f, 123456.0f, 0.0f})
    for (int bit = 0; bit < 32; ++bit) {
      const float y = apply_fault(x, kFaultBitflip, bit, 99.0f);
      EXPECT_EQ(bits(x) ^ bits(y), 1u << bit) << x << " bit " << bit;
      EXPECT_EQ(bits(apply_fault(y, kFaultBitflip, bit, 0.0f)), bits(x)) << "flip is involutive";
    }
  EXPECT_EQ(apply_fault(2.0f, kFaultBitflip, 31, 0.0f), -2.0f);
  EXPECT_TRUE(std::isnan(apply_fault(1.5f, kFaultBitflip, 30, 0.0f)))
      << "exponent MSB of a value in [1, 2) makes it Inf/NaN";
  EXPECT_GT(apply_fault(0.75f, kFaultBitflip, 30, 0.0f), 1e38f);
  EXPECT_EQ(apply_fault(4.0f, kFaultBitflip, 30, 0.0f), std::ldexp(4.0f, -128));
  EXPECT_EQ(apply_fault(1.0f, kFaultAdd, 30, 2.5f), 3.5f) << "ADD ignores bit";
  EXPECT_EQ(apply_fault(-1.0f, kFaultAdd, 0, -1e3f), -1001.0f);
}

// ---- host simulation of one tile ----------------------------------------------------------

uint64_t test_seed() {
  if (const char* s = std::getenv("AEGIS_TEST_SEED"); s && *s) return std::strtoull(s, nullptr, 0);
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

// The adversarial inputs of the zero-false-positive claim.
enum class Dist { kUniform, kNormal, kPositive, kLogUniform, kCancellation, kSmallInt, kTiny };
const Dist kDists[] = {Dist::kUniform,      Dist::kNormal,   Dist::kPositive, Dist::kLogUniform,
                       Dist::kCancellation, Dist::kSmallInt, Dist::kTiny};

const char* dist_name(Dist d) {
  switch (d) {
    case Dist::kUniform:
      return "uniform[-1,1]";
    case Dist::kNormal:
      return "normal(0,1)";
    case Dist::kPositive:
      return "uniform[0,1]";
    case Dist::kLogUniform:
      return "log-uniform 1e-6..1e6, random signs";
    case Dist::kCancellation:
      return "cancellation A=[X X], B=[Y; -Y]";
    case Dist::kSmallInt:
      return "integers -8..8";
    case Dist::kTiny:
      return "log-uniform 1e-25..1e-17, random signs (products underflow)";
  }
  return "?";
}

// One tile's operands: a is mt x k, b is k x nt, both column-major.
struct Operands {
  int mt = 0, nt = 0, k = 0;
  std::vector<float> a, b;
  float& A(int i, int kk) { return a[i + static_cast<size_t>(kk) * mt]; }
  float& B(int kk, int j) { return b[kk + static_cast<size_t>(j) * k]; }
  float A(int i, int kk) const { return a[i + static_cast<size_t>(kk) * mt]; }
  float B(int kk, int j) const { return b[kk + static_cast<size_t>(j) * k]; }
};

float draw(Dist d, std::mt19937_64& g) {
  switch (d) {
    case Dist::kUniform:
    case Dist::kCancellation:
      return std::uniform_real_distribution<float>(-1.0f, 1.0f)(g);
    case Dist::kNormal:
      return std::normal_distribution<float>(0.0f, 1.0f)(g);
    case Dist::kPositive:
      return std::uniform_real_distribution<float>(0.0f, 1.0f)(g);
    case Dist::kLogUniform: {
      const float e = std::uniform_real_distribution<float>(-6.0f, 6.0f)(g);
      const float v = std::pow(10.0f, e);
      return (g() & 1) ? v : -v;
    }
    case Dist::kSmallInt:
      return static_cast<float>(static_cast<int>(g() % 17) - 8);
    case Dist::kTiny: {
      const float e = std::uniform_real_distribution<float>(-25.0f, -17.0f)(g);
      const float v = std::pow(10.0f, e);
      return (g() & 1) ? v : -v;
    }
  }
  return 0.0f;
}

Operands make_operands(Dist d, int mt, int nt, int k, std::mt19937_64& g) {
  Operands op;
  op.mt = mt;
  op.nt = nt;
  op.k = k;
  op.a.resize(static_cast<size_t>(mt) * k);
  op.b.resize(static_cast<size_t>(k) * nt);
  for (float& x : op.a) x = draw(d, g);
  for (float& x : op.b) x = draw(d, g);
  if (d == Dist::kCancellation) {
    // A = [X X], B = [Y; -Y]: the exact product is 0 (an odd k keeps one zero column of A).
    const int h = k / 2;
    for (int kk = 0; kk < h; ++kk) {
      for (int i = 0; i < mt; ++i) op.A(i, h + kk) = op.A(i, kk);
      for (int j = 0; j < nt; ++j) op.B(h + kk, j) = -op.B(kk, j);
    }
    if (k % 2)
      for (int i = 0; i < mt; ++i) op.A(i, k - 1) = 0.0f;
  }
  return op;
}

float pairwise_sum(const float* x, int n, int stride) {
  if (n == 1) return x[0];
  const int h = n / 2;
  return pairwise_sum(x, h, stride) +
         pairwise_sum(x + static_cast<size_t>(h) * stride, n - h, stride);
}

struct SimOptions {
  int ktb = 8;                 // K tile depth
  int interval = 0;            // check after every this many K tiles (0: at the end only)
  bool tree_sum = false;       // sum the accumulators pairwise (a reduction tree), else in order
  bool tile_partials = false;  // checksums add one partial sum per K tile, else one FMA per k
  bool correct = false;        // repair kCorrectOne in place (acc += column residual)
};

// What the host injects: after K tile k_tile (0-based), add value to an accumulator or to a
// checksum.
struct SimFault {
  int k_tile;
  aegis::abft::FaultTarget target;
  int i, j;
  float value;
};

struct CheckOutcome {
  int64_t k_done = 0;
  std::vector<int> bad_rows, bad_cols;
  float row_residual = 0, col_residual = 0, row_bound = 0, col_bound = 0;
  bool inputs_finite = true;  // no line's checksum non-finite from its inputs (see check)
  Verdict verdict = Verdict::kClean;
  double worst_ratio = 0;         // max |residual| / checksum_bound(computed magnitude)
  double worst_exact_ratio = 0;   // max |residual| / checksum_bound(exact magnitude)
  bool cheap_above_full = false;  // some line had cheap_bound(checksum) > checksum_bound(mag)
};

// One output tile computed as a thread block of the fused kernel computes it: every
// accumulator is an FMA chain over k; for each k the operand sums fl(sum_i a_ik) and
// fl(sum_j b_kj) (and of their magnitudes) are formed and folded into the column and row
// checksums; a check compares each checksum with the FP32 sum of its accumulators.
class TileSim {
 public:
  TileSim(const Operands& op, SimOptions o) : op_(op), o_(o) {}

  void run(const std::vector<SimFault>& faults = {}) {
    const int mt = op_.mt, nt = op_.nt, k = op_.k;
    acc_.assign(static_cast<size_t>(mt) * nt, 0.0f);
    col_ck_.assign(nt, 0.0f);
    col_mag_.assign(nt, 0.0f);
    row_ck_.assign(mt, 0.0f);
    row_mag_.assign(mt, 0.0f);
    col_exact_.assign(nt, 0.0);
    row_exact_.assign(mt, 0.0);
    checks_.clear();
    std::vector<float> a_sum(1), a_abs(1), b_sum(1), b_abs(1);
    std::vector<float> pc(nt), pcm(nt), pr(mt), prm(mt);
    const int k_tiles = (k + o_.ktb - 1) / o_.ktb;
    for (int kt = 0; kt < k_tiles; ++kt) {
      const int k0 = kt * o_.ktb, k1 = std::min(k, k0 + o_.ktb);
      std::fill(pc.begin(), pc.end(), 0.0f);
      std::fill(pcm.begin(), pcm.end(), 0.0f);
      std::fill(pr.begin(), pr.end(), 0.0f);
      std::fill(prm.begin(), prm.end(), 0.0f);
      for (int kk = k0; kk < k1; ++kk) {
        float as = 0, aa = 0, bs = 0, ba = 0;
        double aa_exact = 0, ba_exact = 0;
        for (int i = 0; i < mt; ++i) {
          as += op_.A(i, kk);
          aa += std::fabs(op_.A(i, kk));
          aa_exact += std::fabs(op_.A(i, kk));
        }
        for (int j = 0; j < nt; ++j) {
          bs += op_.B(kk, j);
          ba += std::fabs(op_.B(kk, j));
          ba_exact += std::fabs(op_.B(kk, j));
        }
        float* cck = o_.tile_partials ? pc.data() : col_ck_.data();
        float* ccm = o_.tile_partials ? pcm.data() : col_mag_.data();
        float* rck = o_.tile_partials ? pr.data() : row_ck_.data();
        float* rcm = o_.tile_partials ? prm.data() : row_mag_.data();
        for (int j = 0; j < nt; ++j) {
          const float b = op_.B(kk, j);
          cck[j] = std::fmaf(as, b, cck[j]);
          ccm[j] = std::fmaf(aa, std::fabs(b), ccm[j]);
          col_exact_[j] += aa_exact * std::fabs(static_cast<double>(b));
        }
        for (int i = 0; i < mt; ++i) {
          const float a = op_.A(i, kk);
          rck[i] = std::fmaf(a, bs, rck[i]);
          rcm[i] = std::fmaf(std::fabs(a), ba, rcm[i]);
          row_exact_[i] += std::fabs(static_cast<double>(a)) * ba_exact;
        }
        for (int j = 0; j < nt; ++j) {
          const float b = op_.B(kk, j);
          float* c = &acc_[static_cast<size_t>(j) * mt];
          for (int i = 0; i < mt; ++i) c[i] = std::fmaf(op_.A(i, kk), b, c[i]);
        }
      }
      if (o_.tile_partials) {
        for (int j = 0; j < nt; ++j) {
          col_ck_[j] += pc[j];
          col_mag_[j] += pcm[j];
        }
        for (int i = 0; i < mt; ++i) {
          row_ck_[i] += pr[i];
          row_mag_[i] += prm[i];
        }
      }
      for (const SimFault& f : faults) {
        if (std::min(f.k_tile, k_tiles - 1) != kt) continue;  // past the last: the last
        if (f.target == aegis::abft::kTargetAccumulator) acc(f.i, f.j) += f.value;
        if (f.target == aegis::abft::kTargetColumnChecksum) col_ck_[f.j] += f.value;
        if (f.target == aegis::abft::kTargetRowChecksum) row_ck_[f.i] += f.value;
      }
      const bool last = kt == k_tiles - 1;
      if (last || (o_.interval > 0 && (kt + 1) % o_.interval == 0)) check(k1);
    }
  }

  float& acc(int i, int j) { return acc_[i + static_cast<size_t>(j) * op_.mt]; }
  const std::vector<CheckOutcome>& checks() const { return checks_; }
  const CheckOutcome& final_check() const { return checks_.back(); }
  float col_bound(int j, int64_t k_done) const {
    return checksum_bound(col_mag_[j], k_done, op_.mt);
  }
  float row_bound(int i, int64_t k_done) const {
    return checksum_bound(row_mag_[i], k_done, op_.nt);
  }

 private:
  float line_sum(const float* first, int n, int stride) const {
    if (o_.tree_sum) return pairwise_sum(first, n, stride);
    float s = 0;
    for (int t = 0; t < n; ++t) s += first[static_cast<size_t>(t) * stride];
    return s;
  }

  void check(int64_t k_done) {
    const int mt = op_.mt, nt = op_.nt;
    CheckOutcome c;
    c.k_done = k_done;
    std::vector<float> col_res(nt), row_res(mt);
    // As the kernel decides: a checksum that is not finite comes from the inputs when the
    // line's accumulator sum or its magnitude is not finite either; alone, it is a fault.
    auto from_inputs = [](float ck, float sum, float mag) {
      return !std::isfinite(ck) && !(std::isfinite(sum) && std::isfinite(mag));
    };
    for (int j = 0; j < nt; ++j) {
      const float sum = line_sum(&acc_[static_cast<size_t>(j) * mt], mt, 1);
      const float r = col_ck_[j] - sum;
      const float b = checksum_bound(col_mag_[j], k_done, mt);
      const float be = checksum_bound(static_cast<float>(col_exact_[j]), k_done, mt);
      col_res[j] = r;
      c.inputs_finite = c.inputs_finite && !from_inputs(col_ck_[j], sum, col_mag_[j]);
      c.worst_ratio = std::max(c.worst_ratio, std::fabs(static_cast<double>(r)) / b);
      c.worst_exact_ratio = std::max(c.worst_exact_ratio, std::fabs(static_cast<double>(r)) / be);
      c.cheap_above_full = c.cheap_above_full || cheap_bound(col_ck_[j], k_done, mt) > b;
      if (exceeds(r, b)) c.bad_cols.push_back(j);
    }
    for (int i = 0; i < mt; ++i) {
      const float sum = line_sum(&acc_[i], nt, mt);
      const float r = row_ck_[i] - sum;
      const float b = checksum_bound(row_mag_[i], k_done, nt);
      const float be = checksum_bound(static_cast<float>(row_exact_[i]), k_done, nt);
      row_res[i] = r;
      c.inputs_finite = c.inputs_finite && !from_inputs(row_ck_[i], sum, row_mag_[i]);
      c.worst_ratio = std::max(c.worst_ratio, std::fabs(static_cast<double>(r)) / b);
      c.worst_exact_ratio = std::max(c.worst_exact_ratio, std::fabs(static_cast<double>(r)) / be);
      c.cheap_above_full = c.cheap_above_full || cheap_bound(row_ck_[i], k_done, nt) > b;
      if (exceeds(r, b)) c.bad_rows.push_back(i);
    }
    if (!c.bad_rows.empty()) {
      c.row_residual = row_res[c.bad_rows[0]];
      c.row_bound = checksum_bound(row_mag_[c.bad_rows[0]], k_done, nt);
    }
    if (!c.bad_cols.empty()) {
      c.col_residual = col_res[c.bad_cols[0]];
      c.col_bound = checksum_bound(col_mag_[c.bad_cols[0]], k_done, mt);
    }
    c.verdict =
        classify(static_cast<int>(c.bad_rows.size()), static_cast<int>(c.bad_cols.size()),
                 c.row_residual, c.col_residual, c.row_bound + c.col_bound, c.inputs_finite);
    if (o_.correct && c.verdict == Verdict::kCorrectOne)
      acc(c.bad_rows[0], c.bad_cols[0]) += c.col_residual;
    checks_.push_back(c);
  }

  const Operands& op_;
  SimOptions o_;
  std::vector<float> acc_, col_ck_, col_mag_, row_ck_, row_mag_;
  std::vector<double> col_exact_, row_exact_;
  std::vector<CheckOutcome> checks_;
};

std::string describe(Dist d, int mt, int nt, int k, const SimOptions& o, uint64_t seed) {
  std::ostringstream os;
  os << dist_name(d) << " tile " << mt << "x" << nt << " k " << k << " ktb " << o.ktb
     << " interval " << o.interval << (o.tree_sum ? " tree-sum" : " serial-sum")
     << (o.tile_partials ? " per-tile-partials" : " per-k-checksums") << " seed " << hex(seed);
  return os.str();
}

struct SimShape {
  int mt, nt, k, seeds;
};

// Tile shapes of the compiled configs (and partial edge tiles), K from 1 to past 2^11.
const SimShape kCleanShapes[] = {
    {128, 128, 64, 2}, {128, 128, 1031, 1}, {64, 32, 257, 3}, {32, 32, 2053, 2},
    {16, 8, 4099, 4},  {7, 5, 33, 30},      {1, 1, 1, 40},    {1, 128, 100, 5},
    {128, 1, 100, 5},  {9, 3, 2, 40},       {33, 31, 8, 20},  {256, 16, 129, 1},
};

TEST(FtCheckSimulation, CleanTilesNeverExceedTheBound) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("AEGIS_TEST_SEED=" + hex(seed));
  double worst = 0, worst_exact = 0;
  std::string worst_case;
  int checked = 0;
  for (Dist d : kDists)
    for (const SimShape& s : kCleanShapes)
      for (int r = 0; r < s.seeds; ++r) {
        const uint64_t cs = seed ^ (0x9E3779B97F4A7C15ull * (checked + 1));
        std::mt19937_64 g(cs);
        const Operands op = make_operands(d, s.mt, s.nt, s.k, g);
        SimOptions o;
        o.ktb = (checked % 3 == 0) ? 16 : 8;
        o.interval = checked % 4;  // 0: only at the end
        o.tree_sum = checked % 2 == 1;
        o.tile_partials = checked % 5 >= 3;
        TileSim sim(op, o);
        sim.run();
        ++checked;
        for (const CheckOutcome& c : sim.checks()) {
          ASSERT_EQ(c.verdict, Verdict::kClean)
              << describe(d, s.mt, s.nt, s.k, o, cs) << ": " << verdict_name(c.verdict)
              << ", a false positive at k_done " << c.k_done << " (" << c.bad_rows.size()
              << " bad rows, " << c.bad_cols.size() << " bad columns, worst |residual|/bound "
              << c.worst_ratio << ")";
          ASSERT_LE(c.worst_exact_ratio, 1.0)
              << describe(d, s.mt, s.nt, s.k, o, cs)
              << ": residual beyond the bound of the exact magnitude at k_done " << c.k_done;
          ASSERT_FALSE(c.cheap_above_full)
              << describe(d, s.mt, s.nt, s.k, o, cs) << ": cheap bound above the full bound";
          if (c.worst_ratio > worst) {
            worst = c.worst_ratio;
            worst_case = describe(d, s.mt, s.nt, s.k, o, cs);
          }
          worst_exact = std::max(worst_exact, c.worst_exact_ratio);
        }
        if (d == Dist::kSmallInt) {
          // Small integers: every sum is exact, so every residual is exactly zero.
          ASSERT_EQ(sim.final_check().worst_ratio, 0.0) << describe(d, s.mt, s.nt, s.k, o, cs);
        }
      }
  RecordProperty("worst_ratio", std::to_string(worst));
  std::cout << "[          ] " << checked << " clean tiles; worst |residual| / bound " << worst
            << " (exact magnitudes: " << worst_exact << ") on " << worst_case << std::endl;
}

// Why the bound needs an absolute term: products below the normal range round with an
// absolute error (up to 2^-150 each) that no relative bound covers. With a = 1.5 2^-75,
// b = 2^-75 (normal inputs) every product is 0.75 2^-149 and every accumulator FMA rounds
// up by a quarter of the smallest subnormal, mt * k times over a column, while the checksum
// (from the exact operand sums) rounds nothing: the residual grows as mt * k * 2^-151.
TEST(FtCheckSimulation, SubnormalProductsStayWithinTheBound) {
  for (int k : {8, 64, 512}) {
    Operands op;
    op.mt = 128;
    op.nt = 128;
    op.k = k;
    op.a.assign(static_cast<size_t>(op.mt) * k, std::ldexp(1.5f, -75));
    op.b.assign(static_cast<size_t>(k) * op.nt, std::ldexp(1.0f, -75));
    SimOptions o;
    TileSim sim(op, o);
    sim.run();
    EXPECT_GT(sim.final_check().worst_ratio, 0.0) << "k " << k << ": no rounding happened";
    EXPECT_EQ(sim.final_check().verdict, Verdict::kClean)
        << "k " << k << ": worst |residual| / bound " << sim.final_check().worst_ratio;
  }
}

TEST(FtCheckSimulation, ErrorOfTenBoundsIsLocated) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("AEGIS_TEST_SEED=" + hex(seed));
  const SimShape shapes[] = {{128, 128, 64, 1}, {64, 32, 257, 2}, {32, 32, 33, 4},
                             {7, 5, 40, 6},     {2, 2, 3, 10},    {128, 1, 9, 3}};
  int index = 0;
  for (Dist d : kDists)
    for (const SimShape& s : shapes)
      for (int r = 0; r < s.seeds; ++r, ++index) {
        const uint64_t cs = seed ^ (0xD1B54A32D192ED03ull * (index + 1));
        std::mt19937_64 g(cs);
        const Operands op = make_operands(d, s.mt, s.nt, s.k, g);
        SimOptions o;
        o.ktb = 8;
        o.tree_sum = index % 2 == 0;
        o.tile_partials = index % 3 == 0;
        o.correct = true;
        TileSim clean(op, o);
        clean.run();
        ASSERT_EQ(clean.final_check().verdict, Verdict::kClean)
            << describe(d, s.mt, s.nt, s.k, o, cs);
        const int i = static_cast<int>(g() % s.mt), j = static_cast<int>(g() % s.nt);
        const int k_tiles = (s.k + o.ktb - 1) / o.ktb;
        const int k_tile = static_cast<int>(g() % (k_tiles + 1));  // one past the last: clamped
        const float bound = std::max(clean.row_bound(i, s.k), clean.col_bound(j, s.k));
        const float e = ((g() & 1) ? 10.0f : -10.0f) * bound;
        SCOPED_TRACE(describe(d, s.mt, s.nt, s.k, o, cs) + ": error " + std::to_string(e) +
                     " at (" + std::to_string(i) + ", " + std::to_string(j) + ") after K tile " +
                     std::to_string(k_tile));
        TileSim faulty(op, o);
        faulty.run({{k_tile, aegis::abft::kTargetAccumulator, i, j, e}});
        const CheckOutcome& c = faulty.final_check();
        ASSERT_EQ(c.bad_rows, std::vector<int>{i});
        ASSERT_EQ(c.bad_cols, std::vector<int>{j});
        ASSERT_EQ(c.verdict, Verdict::kCorrectOne)
            << verdict_name(c.verdict) << ": row residual " << c.row_residual
            << ", column residual " << c.col_residual;
        EXPECT_NEAR(c.col_residual, -e, 0.2 * std::fabs(e));
        // Repaired by the residual: back within the line bounds of the clean value.
        EXPECT_NEAR(faulty.acc(i, j), clean.acc(i, j),
                    clean.row_bound(i, s.k) + clean.col_bound(j, s.k) + std::fabs(e) * 4 * kU);
        // Every other element untouched.
        for (int jj = 0; jj < s.nt; ++jj)
          for (int ii = 0; ii < s.mt; ++ii)
            if (ii != i || jj != j) {
              ASSERT_EQ(faulty.acc(ii, jj), clean.acc(ii, jj)) << "(" << ii << ", " << jj << ")";
            }
      }
}

TEST(FtCheckSimulation, UnlocatablePatternsRecompute) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("AEGIS_TEST_SEED=" + hex(seed));
  std::mt19937_64 g(seed);
  const Operands op = make_operands(Dist::kUniform, 32, 32, 40, g);
  SimOptions o;
  TileSim clean(op, o);
  clean.run();
  ASSERT_EQ(clean.final_check().verdict, Verdict::kClean);
  const float e = 1e3f * std::max(clean.row_bound(0, 40), clean.col_bound(0, 40)) + 1.0f;
  using aegis::abft::kTargetAccumulator;
  using aegis::abft::kTargetColumnChecksum;
  using aegis::abft::kTargetRowChecksum;
  {  // Two faults in one column: two bad rows, one bad column.
    TileSim s(op, o);
    s.run({{1, kTargetAccumulator, 3, 5, e}, {2, kTargetAccumulator, 9, 5, e}});
    EXPECT_EQ(s.final_check().bad_rows, (std::vector<int>{3, 9}));
    EXPECT_EQ(s.final_check().bad_cols, std::vector<int>{5});
    EXPECT_EQ(s.final_check().verdict, Verdict::kRecompute);
  }
  {  // Two faults in one row.
    TileSim s(op, o);
    s.run({{0, kTargetAccumulator, 4, 1, e}, {4, kTargetAccumulator, 4, 30, 2 * e}});
    EXPECT_EQ(s.final_check().bad_rows, std::vector<int>{4});
    EXPECT_EQ(s.final_check().bad_cols, (std::vector<int>{1, 30}));
    EXPECT_EQ(s.final_check().verdict, Verdict::kRecompute);
  }
  {  // Two faults in different rows and columns.
    TileSim s(op, o);
    s.run({{3, kTargetAccumulator, 0, 0, e}, {3, kTargetAccumulator, 31, 31, 2 * e}});
    EXPECT_EQ(s.final_check().bad_rows.size(), 2u);
    EXPECT_EQ(s.final_check().bad_cols.size(), 2u);
    EXPECT_EQ(s.final_check().verdict, Verdict::kRecompute);
  }
  {  // A column checksum hit shows in one direction only.
    TileSim s(op, o);
    s.run({{2, kTargetColumnChecksum, 0, 7, e}});
    EXPECT_TRUE(s.final_check().bad_rows.empty());
    EXPECT_EQ(s.final_check().bad_cols, std::vector<int>{7});
    EXPECT_EQ(s.final_check().verdict, Verdict::kRecompute);
  }
  {  // A row checksum hit.
    TileSim s(op, o);
    s.run({{4, kTargetRowChecksum, 12, 0, -e}});
    EXPECT_EQ(s.final_check().bad_rows, std::vector<int>{12});
    EXPECT_TRUE(s.final_check().bad_cols.empty());
    EXPECT_EQ(s.final_check().verdict, Verdict::kRecompute);
  }
  {  // A NaN accumulator (a bit flip into the exponent): NaN residuals, recompute.
    TileSim s(op, o);
    s.run({{4, kTargetAccumulator, 6, 6, kNaN}});
    EXPECT_EQ(s.final_check().verdict, Verdict::kRecompute);
  }
  {  // A checksum made Inf or NaN (a bit flip into its exponent) beside finite
     // accumulators: a fault in the checksum, not a non-finite input; recompute.
    TileSim s(op, o);
    s.run({{4, kTargetRowChecksum, 12, 0, kInf}});
    EXPECT_TRUE(s.final_check().inputs_finite);
    EXPECT_EQ(s.final_check().bad_rows, std::vector<int>{12});
    EXPECT_EQ(s.final_check().verdict, Verdict::kRecompute);
    TileSim s2(op, o);
    s2.run({{2, kTargetColumnChecksum, 0, 7, kNaN}});
    EXPECT_EQ(s2.final_check().bad_cols, std::vector<int>{7});
    EXPECT_EQ(s2.final_check().verdict, Verdict::kRecompute);
  }
  {  // Non-finite input: the checksums are not finite, nothing is a fault.
    Operands bad = op;
    bad.A(5, 17) = kInf;
    TileSim s(bad, o);
    s.run();
    EXPECT_FALSE(s.final_check().inputs_finite);
    EXPECT_EQ(s.final_check().verdict, Verdict::kNonFinite);
    bad.A(5, 17) = kNaN;
    TileSim s2(bad, o);
    s2.run();
    EXPECT_EQ(s2.final_check().verdict, Verdict::kNonFinite);
  }
}

TEST(FtCheckSimulation, IntervalChecksRepairFaultsAtFarApartSteps) {
  // Two faults in one column at K tiles 1 and 10: with a check after every 4 K tiles each is
  // alone in its check and repaired in place; with the end check only they pile up and the
  // tile must be recomputed.
  const uint64_t seed = test_seed();
  SCOPED_TRACE("AEGIS_TEST_SEED=" + hex(seed));
  std::mt19937_64 g(seed);
  const Operands op = make_operands(Dist::kNormal, 64, 64, 128, g);  // 16 K tiles of 8
  SimOptions o;
  o.correct = true;
  TileSim clean(op, o);
  clean.run();
  // 100 bounds: clearly a fault, and small enough that the residuals' own rounding (about
  // tile_len u |e|) stays far below the bounds, so the two residuals agree.
  const float e = 100.0f * std::max({clean.col_bound(9, 128), clean.row_bound(3, 128),
                                     clean.row_bound(40, 128)});
  const std::vector<SimFault> faults = {{1, aegis::abft::kTargetAccumulator, 3, 9, e},
                                        {10, aegis::abft::kTargetAccumulator, 40, 9, -2 * e}};
  o.interval = 4;
  TileSim with_interval(op, o);
  with_interval.run(faults);
  int corrected = 0;
  for (const CheckOutcome& c : with_interval.checks()) {
    EXPECT_NE(c.verdict, Verdict::kRecompute) << "k_done " << c.k_done;
    corrected += c.verdict == Verdict::kCorrectOne;
  }
  EXPECT_EQ(corrected, 2);
  EXPECT_EQ(with_interval.checks().size(), 4u);
  const float tol =
      2 * (clean.col_bound(9, 128) + clean.row_bound(3, 128) + clean.row_bound(40, 128)) +
      8 * kU * e;
  EXPECT_NEAR(with_interval.acc(3, 9), clean.acc(3, 9), tol);
  EXPECT_NEAR(with_interval.acc(40, 9), clean.acc(40, 9), tol);

  o.interval = 0;
  TileSim at_end(op, o);
  at_end.run(faults);
  ASSERT_EQ(at_end.checks().size(), 1u);
  EXPECT_EQ(at_end.final_check().verdict, Verdict::kRecompute);
}

}  // namespace
}  // namespace aegis_test
