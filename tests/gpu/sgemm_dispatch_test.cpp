// aegisSgemm through dispatch (no override): the benchmark shapes that are cheap to verify,
// every shape class, all four transpose pairs.
//
// Tests: SgemmDispatch/TableShapes.<ops> (e.g. SgemmDispatch/TableShapes.TN),
//        SgemmDispatch.ConjugateTransposeIsTranspose, SgemmSmallSanitizer.DispatchAllTransposes.
#include <gtest/gtest.h>

#include <string>

#include "aegis/aegis.h"
#include "gpu_test_util.h"

namespace aegis_test {
namespace {

struct DispatchShape {
  int64_t m, n, k;
  int64_t col_step;  // verify a sample of columns where the FP64 reference would be slow
};

// From BASELINE-H200.md where cheap, plus one large and one huge product checked on sampled
// columns (prime steps, so the samples fall at every position within a tile).
const DispatchShape kShapes[] = {
    {64, 64, 256, 1},       {128, 128, 128, 1},    {160, 160, 256, 1},
    {256, 256, 256, 1},     {384, 384, 256, 1},    {1024, 1024, 1024, 1},
    {4096, 128, 1024, 1},   {128, 4096, 1024, 1},  {65536, 128, 128, 1},
    {4096, 4096, 128, 1},   {8192, 8192, 1024, 61}, {8192, 8192, 2112, 127},
};

class TableShapes : public GpuTest {
 public:
  TableShapes(aegisOperation_t ta, aegisOperation_t tb) : ta_(ta), tb_(tb) {}

  void TestBody() override {
    int index = 0;
    for (const DispatchShape& s : kShapes) {
      SgemmCase c;
      c.transa = ta_;
      c.transb = tb_;
      c.m = s.m;
      c.n = s.n;
      c.k = s.k;
      c.col_step = s.col_step;
      c.alpha = index % 2 ? -1.5f : 1.0f;
      c.beta = index % 2 ? 0.5f : 0.0f;
      c.padded_ld = index % 3 == 2;
      c.unaligned = index % 5 == 4;
      std::string kernel;
      int split = 0;
      EXPECT_TRUE(run_sgemm_case(h_, c, case_seed(seed_, index), &kernel, &split))
          << "shape class " << aegisShapeClassName(aegisGemmShapeClass(s.m, s.n, s.k));
      EXPECT_FALSE(kernel.empty()) << c.describe() << ": no kernel reported";
      EXPECT_GE(split, 1) << c.describe();
      ++index;
    }
  }

 private:
  aegisOperation_t ta_, tb_;
};

const aegisOperation_t kOps[] = {AEGIS_OP_N, AEGIS_OP_T};

}  // namespace

void register_sgemm_dispatch_tests() {
  for (aegisOperation_t ta : kOps)
    for (aegisOperation_t tb : kOps)
      ::testing::RegisterTest("SgemmDispatch/TableShapes", op_letters(ta, tb).c_str(), nullptr,
                              nullptr, __FILE__, __LINE__,
                              [ta, tb]() -> GpuTest* { return new TableShapes(ta, tb); });
}

namespace {

using SgemmDispatch = GpuTest;

TEST_F(SgemmDispatch, ConjugateTransposeIsTranspose) {
  // For real types AEGIS_OP_C means AEGIS_OP_T.
  const aegisOperation_t pairs[][2] = {{AEGIS_OP_C, AEGIS_OP_N},
                                       {AEGIS_OP_N, AEGIS_OP_C},
                                       {AEGIS_OP_C, AEGIS_OP_C},
                                       {AEGIS_OP_C, AEGIS_OP_T}};
  int index = 0;
  for (const auto& ops : pairs) {
    SgemmCase c;
    c.transa = ops[0];
    c.transb = ops[1];
    c.m = 129;
    c.n = 65;
    c.k = 33;
    c.beta = 0.5f;
    EXPECT_TRUE(run_sgemm_case(h_, c, case_seed(seed_, index++)));
  }
}

TEST_F(SgemmSmallSanitizer, DispatchAllTransposes) {
  const int64_t sizes[][3] = {{33, 31, 65}, {129, 65, 257}, {64, 640, 63}};
  int index = 0;
  for (aegisOperation_t ta : kOps)
    for (aegisOperation_t tb : kOps)
      for (const auto& s : sizes) {
        SgemmCase c;
        c.transa = ta;
        c.transb = tb;
        c.m = s[0];
        c.n = s[1];
        c.k = s[2];
        c.alpha = -1.5f;
        c.beta = index % 2 ? 0.5f : 0.0f;
        c.padded_ld = index % 2 == 1;
        c.unaligned = index % 3 == 1;
        EXPECT_TRUE(run_sgemm_case(h_, c, case_seed(seed_, index++)));
      }
}

}  // namespace
}  // namespace aegis_test
