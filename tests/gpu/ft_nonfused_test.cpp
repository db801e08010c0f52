// The non-fused FT-SGEMM baseline (aegisSetFtLevel(AEGIS_FT_LEVEL_NONFUSED)), through the
// public API only: clean runs give exact-enough results and no detections at any shape,
// transpose and alpha/beta; faults injected into C or into the checksums are detected and,
// in CORRECT mode, repaired so that C matches the FP64 reference; DETECT mode counts and
// leaves the fault in C; the workspace bounds (too small: ALLOC_FAILED; small: column
// panels) hold.
//
// Faults are placed in rows/columns 32..63, which lie in one tile for every configuration
// (tiles are multiples of 32 wide), so the tests do not depend on the tile dispatch picks.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "gpu_test_util.h"

namespace aegis_test {
namespace {

class FtNonfused : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    set_mode(AEGIS_FT_CORRECT);
  }

  void set_mode(aegisFtMode_t mode) {
    ASSERT_EQ(aegisSetFtMode(h_, mode), AEGIS_STATUS_SUCCESS) << last_error();
    ASSERT_EQ(aegisSetFtLevel(h_, AEGIS_FT_LEVEL_NONFUSED), AEGIS_STATUS_SUCCESS) << last_error();
    ASSERT_EQ(aegisResetFtStats(h_), AEGIS_STATUS_SUCCESS) << last_error();
  }

  aegisFtStats_t stats() {
    aegisFtStats_t s{};
    EXPECT_EQ(aegisGetFtStatsSync(h_, &s), AEGIS_STATUS_SUCCESS) << last_error();
    return s;
  }

  void reset_stats() { ASSERT_EQ(aegisResetFtStats(h_), AEGIS_STATUS_SUCCESS) << last_error(); }

  void inject(const std::vector<aegisFault_t>& faults) {
    ASSERT_EQ(aegisInjectFaults(h_, faults.data(), static_cast<int>(faults.size())),
              AEGIS_STATUS_SUCCESS)
        << last_error();
  }

  // Calls aegisSgemm on p and checks that it succeeded through the non-fused path.
  void call(const SgemmProblem& p) {
    const aegisStatus_t s = p.call(h_);
    ASSERT_EQ(s, AEGIS_STATUS_SUCCESS) << p.describe() << ": " << last_error();
    const char* kernel = nullptr;
    int split = 0;
    ASSERT_EQ(aegisGetLastSgemmChoice(h_, &kernel, &split), AEGIS_STATUS_SUCCESS);
    const std::string name = kernel ? kernel : "";
    EXPECT_NE(name.find("_ftnonfused"), std::string::npos) << name;
    EXPECT_EQ(split, 1) << name;
  }
};

// The m x n window of C, column-major with ld = m.
std::vector<float> download(const SgemmProblem& p) {
  const SgemmCase& c = p.spec();
  check_cuda(cudaDeviceSynchronize(), "before downloading C");
  std::vector<float> h(static_cast<size_t>(c.m * c.n));
  check_cuda(cudaMemcpy2D(h.data(), c.m * sizeof(float), p.C(), p.ldc() * sizeof(float),
                          c.m * sizeof(float), c.n, cudaMemcpyDeviceToHost),
             "download C");
  return h;
}

aegisFault_t make_fault(int64_t row, int64_t col, aegisFaultKind_t kind, int bit, float value,
                        aegisFaultTarget_t target = AEGIS_FAULT_TARGET_ACCUMULATOR,
                        int64_t k_step = 0) {
  aegisFault_t f{};
  f.call = 0;
  f.row = row;
  f.col = col;
  f.k_step = k_step;
  f.kind = kind;
  f.target = target;
  f.bit = bit;
  f.value = value;
  return f;
}

SgemmCase make_case(aegisOperation_t ta, aegisOperation_t tb, int64_t m, int64_t n, int64_t k,
                    float alpha, float beta) {
  SgemmCase c;
  c.transa = ta;
  c.transb = tb;
  c.m = m;
  c.n = n;
  c.k = k;
  c.alpha = alpha;
  c.beta = beta;
  return c;
}

// Lowest tile count any configuration (tiles at most 256 wide) gives an m x n product.
int64_t min_tiles(int64_t m, int64_t n) { return ((m + 255) / 256) * ((n + 255) / 256); }

const aegisOperation_t kOps[] = {AEGIS_OP_N, AEGIS_OP_T};

struct Mnk {
  int64_t m, n, k;
};
// Tile edges of every configuration (32 .. 256), k = 1, deep k, 1:10 and 10:1 aspects.
const Mnk kCleanSizes[] = {{1, 1, 1},      {31, 33, 17},   {64, 64, 64},   {129, 65, 33},
                           {257, 131, 65}, {640, 64, 1031}, {64, 640, 63}, {300, 257, 300}};
struct Scalars {
  float alpha, beta;
};
const Scalars kScalars[] = {{1.0f, 0.0f}, {-1.5f, 0.5f}, {1.0f, -2.0f}};

TEST_F(FtNonfused, CleanRunsDetectNothing) {
  size_t index = 0;
  for (aegisFtMode_t mode : {AEGIS_FT_CORRECT, AEGIS_FT_DETECT}) {
    set_mode(mode);
    int64_t tiles = 0;
    for (aegisOperation_t ta : kOps)
      for (aegisOperation_t tb : kOps)
        for (const Mnk& s : kCleanSizes) {
          const Scalars& x = kScalars[index % 3];
          SgemmCase c = make_case(ta, tb, s.m, s.n, s.k, x.alpha, x.beta);
          c.padded_ld = index % 4 == 1 || index % 4 == 3;
          c.unaligned = index % 4 >= 2;
          SCOPED_TRACE(c.describe());
          const SgemmProblem p(c, case_seed(seed_, index++));
          call(p);
          if (HasFatalFailure()) return;
          EXPECT_TRUE(p.verify());
          tiles += min_tiles(s.m, s.n);
        }
    const aegisFtStats_t st = stats();
    EXPECT_EQ(st.detected, 0);
    EXPECT_EQ(st.corrected, 0);
    EXPECT_EQ(st.recomputed, 0);
    EXPECT_EQ(st.unrecovered, 0);
    EXPECT_EQ(st.nonfinite, 0);
    EXPECT_EQ(st.record_count, 0);
    EXPECT_GE(st.checks, tiles);
    EXPECT_EQ(st.calls, 4 * static_cast<int64_t>(std::size(kCleanSizes)));
  }
}

TEST_F(FtNonfused, CleanRunsDeviceScalars) {
  // Device pointer mode: the host cannot see beta = 0 or alpha = 0, so the kernels decide
  // (alpha = 0 must not read A and B, which hold NaN; beta = 0 must not read C).
  ASSERT_EQ(aegisSetPointerMode(h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  const Scalars scalars[] = {{1.0f, 0.0f}, {-1.5f, 0.5f}, {0.0f, 2.0f}, {0.0f, 0.0f}};
  size_t index = 0;
  for (const Scalars& x : scalars) {
    SgemmCase c = make_case(AEGIS_OP_T, AEGIS_OP_N, 129, 200, 65, x.alpha, x.beta);
    c.nan_inputs = x.alpha == 0.0f;
    SCOPED_TRACE(c.describe());
    const SgemmProblem p(c, case_seed(seed_, index++));
    call(p);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(p.verify());
  }
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.detected, 0);
  EXPECT_EQ(st.nonfinite, 0);
  EXPECT_GT(st.checks, 0);
}

TEST_F(FtNonfused, AddToAccumulatorIsCorrected) {
  // beta = 0 and beta != 0 (the repair needs the C the call started with); a fault in the
  // K loop and one in the epilogue; the fault armed for the second call of each pair.
  const struct {
    aegisOperation_t ta, tb;
    float beta;
    int64_t k_step;
  } cases[] = {{AEGIS_OP_N, AEGIS_OP_N, 0.0f, 0},
               {AEGIS_OP_T, AEGIS_OP_N, 0.5f, AEGIS_FAULT_K_EPILOGUE},
               {AEGIS_OP_N, AEGIS_OP_T, -2.0f, 3},
               {AEGIS_OP_T, AEGIS_OP_T, 1.0f, 1000}};
  size_t index = 0;
  for (const auto& x : cases) {
    const SgemmCase c = make_case(x.ta, x.tb, 300, 200, 256, 1.0f, x.beta);
    SCOPED_TRACE(c.describe());
    reset_stats();
    aegisFault_t f = make_fault(40, 50, AEGIS_FAULT_ADD, 0, 1000.0f,
                                AEGIS_FAULT_TARGET_ACCUMULATOR, x.k_step);
    f.call = 1;
    inject({f});
    const SgemmProblem first(c, case_seed(seed_, index++));
    call(first);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(first.verify());
    EXPECT_EQ(stats().detected, 0) << "the fault was armed for the next call";
    const SgemmProblem p(c, case_seed(seed_, index++));
    call(p);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(p.verify());
    const aegisFtStats_t st = stats();
    EXPECT_EQ(st.detected, 1);
    EXPECT_EQ(st.corrected, 1);
    EXPECT_EQ(st.recomputed, 0);
    EXPECT_EQ(st.unrecovered, 0);
    ASSERT_EQ(st.record_count, 1);
    const aegisFaultRecord_t& r = st.records[0];
    EXPECT_EQ(r.call, 1);
    EXPECT_EQ(r.row, 40);
    EXPECT_EQ(r.col, 50);
    EXPECT_LE(r.tile_row, 40);
    EXPECT_LE(r.tile_col, 50);
    EXPECT_EQ(r.action, AEGIS_FAULT_ACTION_CORRECTED);
    EXPECT_EQ(r.k_step, c.k) << "the baseline checks once, after all of K";
    EXPECT_NEAR(r.residual, -1000.0f, 1.0f) << "residual = checksum - sum of C";
  }
}

TEST_F(FtNonfused, BitflipsAreRepaired) {
  // A high exponent bit (30: the value becomes huge, tiny, Inf or NaN) and bit 27 (2 <= |v|
  // < 2^16: scaled by 2^16) in the element of largest magnitude of rows/columns 32..63,
  // chosen from a clean run of the same problem (so the flip surely exceeds rounding).
  size_t index = 0;
  for (float beta : {0.0f, 0.5f})
    for (int bit : {30, 27}) {
      const SgemmCase c = make_case(AEGIS_OP_N, AEGIS_OP_T, 200, 150, 300, -1.5f, beta);
      SCOPED_TRACE(c.describe() + " bit " + std::to_string(bit));
      const uint64_t seed = case_seed(seed_, index++);
      const SgemmProblem clean(c, seed);
      call(clean);
      if (HasFatalFailure()) return;
      const std::vector<float> ref = download(clean);
      int64_t row = 32, col = 32;
      for (int64_t j = 32; j < 64; ++j)
        for (int64_t i = 32; i < 64; ++i)
          if (std::fabs(ref[i + j * c.m]) > std::fabs(ref[row + col * c.m])) {
            row = i;
            col = j;
          }
      // Bit 27 needs |value| >= 2 to scale it up; either flip then changes it by at least its
      // own size, which must clear the line's rounding bound (about 3 for 256-wide tiles).
      ASSERT_GE(std::fabs(ref[row + col * c.m]), 8.0f) << "no element large enough to flip";

      reset_stats();
      inject({make_fault(row, col, AEGIS_FAULT_BITFLIP, bit, 0.0f)});
      const SgemmProblem p(c, seed);
      call(p);
      if (HasFatalFailure()) return;
      EXPECT_TRUE(p.verify());
      const aegisFtStats_t st = stats();
      EXPECT_EQ(st.detected, 1);
      EXPECT_GE(st.corrected + st.recomputed, 1);
      EXPECT_EQ(st.unrecovered, 0);
      ASSERT_EQ(st.record_count, 1);
      const aegisFaultRecord_t& r = st.records[0];
      EXPECT_TRUE(r.action == AEGIS_FAULT_ACTION_CORRECTED ||
                  r.action == AEGIS_FAULT_ACTION_RECOMPUTED)
          << r.action;
      if (r.action == AEGIS_FAULT_ACTION_CORRECTED || r.row >= 0) {
        EXPECT_EQ(r.row, row);
        EXPECT_EQ(r.col, col);
      }
    }
}

TEST_F(FtNonfused, TwoFaultsInOneColumnRecomputeTheTile) {
  // Two bad rows and one bad column cannot be located: the tile is recomputed.
  size_t index = 0;
  for (float beta : {0.0f, 0.5f}) {
    const SgemmCase c = make_case(AEGIS_OP_T, AEGIS_OP_N, 257, 131, 200, 1.0f, beta);
    SCOPED_TRACE(c.describe());
    reset_stats();
    // Both faults far above rounding, so that both rows fail (a fault within a line's
    // rounding bound is invisible to any checksum).
    inject({make_fault(40, 45, AEGIS_FAULT_ADD, 0, 1000.0f),
            make_fault(50, 45, AEGIS_FAULT_ADD, 0, -500.0f)});
    const SgemmProblem p(c, case_seed(seed_, index++));
    call(p);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(p.verify());
    const aegisFtStats_t st = stats();
    EXPECT_EQ(st.detected, 1);
    EXPECT_EQ(st.corrected, 0);
    EXPECT_EQ(st.recomputed, 1);
    EXPECT_EQ(st.unrecovered, 0);
    ASSERT_EQ(st.record_count, 1);
    EXPECT_EQ(st.records[0].action, AEGIS_FAULT_ACTION_RECOMPUTED);
    EXPECT_EQ(st.records[0].row, -1);
    EXPECT_EQ(st.records[0].col, -1);
  }
}

TEST_F(FtNonfused, FaultsInDifferentTilesAreEachCorrected) {
  // One fault in the first tile, one in the last (every configuration puts (0, 0) and
  // (m - 1, n - 1) in different tiles for these sizes).
  const SgemmCase c = make_case(AEGIS_OP_N, AEGIS_OP_N, 600, 520, 128, 1.0f, -1.0f);
  inject({make_fault(0, 0, AEGIS_FAULT_ADD, 0, -4096.0f),
          make_fault(599, 519, AEGIS_FAULT_ADD, 0, 512.0f)});
  const SgemmProblem p(c, case_seed(seed_, 1));
  call(p);
  if (HasFatalFailure()) return;
  EXPECT_TRUE(p.verify());
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.detected, 2);
  EXPECT_EQ(st.corrected, 2);
  EXPECT_EQ(st.unrecovered, 0);
  EXPECT_EQ(st.record_count, 2);
}

TEST_F(FtNonfused, ChecksumFaultsLeaveTheResultCorrect) {
  // A wrong checksum makes one line fail alone: the tile is recomputed (with fresh
  // checksums) and passes; C stays right.
  const struct {
    aegisFaultTarget_t target;
    aegisFaultKind_t kind;
    int bit;
    float value;
    float beta;
  } cases[] = {{AEGIS_FAULT_TARGET_COLUMN_CHECKSUM, AEGIS_FAULT_ADD, 0, 1000.0f, 0.0f},
               // Whatever the checksum's value, a flip of its top exponent bit moves it by
               // at least 2 (to Inf for values in [1, 2)): detected.
               {AEGIS_FAULT_TARGET_ROW_CHECKSUM, AEGIS_FAULT_BITFLIP, 30, 0.0f, 0.5f},
               {AEGIS_FAULT_TARGET_COLUMN_CHECKSUM, AEGIS_FAULT_BITFLIP, 30, 0.0f, 2.0f},
               // A checksum that is not finite beside finite data is a fault, not a
               // non-finite input.
               {AEGIS_FAULT_TARGET_ROW_CHECKSUM, AEGIS_FAULT_ADD, 0, INFINITY, 0.5f},
               {AEGIS_FAULT_TARGET_COLUMN_CHECKSUM, AEGIS_FAULT_ADD, 0, NAN, 0.0f}};
  size_t index = 0;
  for (const auto& x : cases) {
    const SgemmCase c = make_case(AEGIS_OP_N, AEGIS_OP_N, 160, 170, 96, 1.0f, x.beta);
    SCOPED_TRACE(c.describe() + " target " + std::to_string(x.target));
    reset_stats();
    inject({make_fault(33, 60, x.kind, x.bit, x.value, x.target)});
    const SgemmProblem p(c, case_seed(seed_, index++));
    call(p);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(p.verify());
    const aegisFtStats_t st = stats();
    EXPECT_EQ(st.detected, 1);
    EXPECT_EQ(st.recomputed, 1);
    EXPECT_EQ(st.unrecovered, 0);
    EXPECT_EQ(st.nonfinite, 0);
    ASSERT_EQ(st.record_count, 1);
    EXPECT_EQ(st.records[0].action, AEGIS_FAULT_ACTION_RECOMPUTED);
  }
}

TEST_F(FtNonfused, DetectModeReportsAndLeavesTheFault) {
  set_mode(AEGIS_FT_DETECT);
  if (HasFatalFailure()) return;
  // beta = 0: a second call on the same problem computes the same C, bit for bit.
  const SgemmCase c = make_case(AEGIS_OP_T, AEGIS_OP_T, 150, 140, 77, 1.0f, 0.0f);
  const SgemmProblem p(c, case_seed(seed_, 1));
  call(p);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(p.verify());
  const std::vector<float> clean = download(p);
  reset_stats();
  inject({make_fault(35, 37, AEGIS_FAULT_ADD, 0, 1024.0f)});
  call(p);
  if (HasFatalFailure()) return;
  const std::vector<float> faulty = download(p);
  int64_t differing = 0;
  for (int64_t j = 0; j < c.n; ++j)
    for (int64_t i = 0; i < c.m; ++i) {
      const size_t e = static_cast<size_t>(i + j * c.m);
      if (i == 35 && j == 37)
        EXPECT_NEAR(faulty[e] - clean[e], 1024.0f, 0.01f);
      else
        differing += faulty[e] != clean[e];
    }
  EXPECT_EQ(differing, 0) << "elements other than the faulty one changed";
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.detected, 1);
  EXPECT_EQ(st.corrected, 0);
  EXPECT_EQ(st.recomputed, 0);
  EXPECT_EQ(st.unrecovered, 0);
  ASSERT_EQ(st.record_count, 1);
  EXPECT_EQ(st.records[0].action, AEGIS_FAULT_ACTION_REPORTED);
  EXPECT_EQ(st.records[0].row, 35);
  EXPECT_EQ(st.records[0].col, 37);
}

TEST_F(FtNonfused, NonFiniteInputsAreNotFaults) {
  // NaN in A and B makes the checksums NaN: counted as non-finite, never as a fault.
  SgemmCase c = make_case(AEGIS_OP_N, AEGIS_OP_N, 70, 90, 40, 1.0f, 0.0f);
  c.nan_inputs = true;
  const SgemmProblem p(c, case_seed(seed_, 1));
  call(p);
  if (HasFatalFailure()) return;
  const aegisFtStats_t st = stats();
  EXPECT_GE(st.nonfinite, 1);
  EXPECT_EQ(st.detected, 0);
  EXPECT_EQ(st.record_count, 0);
}

TEST_F(FtNonfused, SmallWorkspaceRunsInPanels) {
  // 600 KB holds the checksums of 512 x 512 and one tile column of C at any tile width up
  // to 256, but not all of C: with beta != 0 the GEMM runs over column panels, each with
  // its saved C. Faults in the first and the last panel are both repaired.
  DeviceBuffer<char> ws(600 * 1024);
  ASSERT_EQ(aegisSetWorkspace(h_, ws.get(), ws.size()), AEGIS_STATUS_SUCCESS) << last_error();
  const SgemmCase c = make_case(AEGIS_OP_N, AEGIS_OP_T, 512, 512, 64, 1.0f, 0.5f);
  inject({make_fault(40, 3, AEGIS_FAULT_ADD, 0, 300.0f),
          make_fault(100, 500, AEGIS_FAULT_ADD, 0, 1000.0f),
          make_fault(101, 500, AEGIS_FAULT_ADD, 0, -200.0f)});
  const SgemmProblem p(c, case_seed(seed_, 1));
  call(p);
  if (HasFatalFailure()) return;
  EXPECT_TRUE(p.verify());
  const aegisFtStats_t st = stats();
  EXPECT_EQ(st.detected, 2);
  EXPECT_EQ(st.corrected, 1);
  EXPECT_EQ(st.recomputed, 1);
  EXPECT_EQ(st.unrecovered, 0);
  ASSERT_EQ(aegisSetWorkspace(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
}

TEST_F(FtNonfused, TooSmallWorkspaceFailsCleanly) {
  DeviceBuffer<char> ws(4096);
  ASSERT_EQ(aegisSetWorkspace(h_, ws.get(), ws.size()), AEGIS_STATUS_SUCCESS) << last_error();
  const SgemmCase c = make_case(AEGIS_OP_N, AEGIS_OP_N, 512, 512, 64, 1.0f, 0.5f);
  const SgemmProblem p(c, case_seed(seed_, 1));
  EXPECT_EQ(p.call(h_), AEGIS_STATUS_ALLOC_FAILED);
  EXPECT_NE(last_error().find("workspace"), std::string::npos) << last_error();
  EXPECT_TRUE(p.unchanged());
  ASSERT_EQ(aegisSetWorkspace(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
}

}  // namespace
}  // namespace aegis_test
