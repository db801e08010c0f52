// Every compiled SGEMM configuration, forced through aegisSetSgemmOverride, at sizes around
// its tile edges, in all four transpose pairs, with and without split-K.
//
// Tests: SgemmConfigs/EdgeSizes.<config>_<ops>, e.g.
//   SgemmConfigs/EdgeSizes.sgemm_simt_128x128x8_w32x64_t8x8_NT,
// SgemmWholeTiles.EveryConfigAndTranspose (the interior kernels) and
// SgemmSmallSanitizer.EveryConfigAndTranspose (part of the compute-sanitizer subset).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "gpu_test_util.h"

namespace aegis_test {
namespace {

struct Mnk {
  int64_t m, n, k;
};

// Sizes straddling the tile edges of every config (tiles are 32, 64 and 128 wide; k slices
// 8 and 16), 131 prime, 257 past two 128-tiles; k = 1; k much deeper than m, n (split-K has
// room: up to 8 slices of >= 4 k-tiles); 1:10 and 10:1 aspects.
const Mnk kEdgeSizes[] = {
    {1, 1, 1},       {1, 1, 257},     {1, 131, 33},    {131, 1, 33},    {31, 31, 31},
    {32, 32, 32},    {33, 33, 33},    {31, 33, 32},    {33, 31, 1},     {32, 33, 31},
    {63, 63, 63},    {64, 64, 64},    {65, 65, 65},    {63, 65, 64},    {65, 64, 1},
    {64, 63, 127},   {127, 127, 127}, {128, 128, 128}, {129, 129, 129}, {127, 129, 128},
    {129, 127, 31},  {128, 129, 1},   {131, 131, 131}, {131, 127, 257}, {257, 257, 257},
    {257, 131, 65},  {33, 257, 129},  {640, 64, 65},   {64, 640, 63},   {640, 64, 1},
    {33, 31, 1031},  {65, 63, 2053},  {1, 1, 2053},    {129, 65, 1031}, {257, 33, 512},
    {31, 129, 4099},
};

// Rotating alpha/beta (beta = 0 comes with a NaN-filled C) and layouts (tight / ld = rows + 3,
// aligned / one float off): over the list every combination of the two occurs.
struct Scalars {
  float alpha, beta;
};
const Scalars kScalars[] = {{1.0f, 0.0f}, {-1.5f, 0.5f}, {1.0f, -2.0f}};

SgemmCase edge_case(aegisOperation_t ta, aegisOperation_t tb, const Mnk& s, size_t index) {
  SgemmCase c;
  c.transa = ta;
  c.transb = tb;
  c.m = s.m;
  c.n = s.n;
  c.k = s.k;
  c.alpha = kScalars[index % 3].alpha;
  c.beta = kScalars[index % 3].beta;
  c.padded_ld = index % 4 == 1 || index % 4 == 3;
  c.unaligned = index % 4 >= 2;
  return c;
}

struct ConfigOps {
  std::string config;
  aegisOperation_t transa, transb;
};

class EdgeSizes : public GpuTest {
 public:
  explicit EdgeSizes(ConfigOps p) : p_(std::move(p)) {}

  void TestBody() override {
    bool split_seen = false;
    size_t index = 0;
    for (const Mnk& s : kEdgeSizes) {
      for (int max_split : {1, 8}) {
        ASSERT_EQ(aegisSetSgemmOverride(h_, p_.config.c_str(), max_split), AEGIS_STATUS_SUCCESS)
            << last_error();
        const SgemmCase c = edge_case(p_.transa, p_.transb, s, index);
        std::string kernel;
        int split = 0;
        EXPECT_TRUE(run_sgemm_case(h_, c, case_seed(seed_, index * 2 + (max_split > 1)), &kernel,
                                   &split))
            << "override max_split " << max_split;
        EXPECT_TRUE(kernel_is_config(kernel, p_.config))
            << c.describe() << ": ran " << kernel << ", forced " << p_.config;
        if (max_split == 1)
          EXPECT_EQ(split, 1) << c.describe() << ": split-K used with max_split 1";
        else
          EXPECT_LE(split, max_split) << c.describe();
        split_seen = split_seen || split > 1;
        if (HasFatalFailure()) return;
      }
      ++index;
    }
    EXPECT_TRUE(split_seen) << "no size ran with split-K: the split path went untested";
  }

 private:
  ConfigOps p_;
};

const aegisOperation_t kOps[] = {AEGIS_OP_N, AEGIS_OP_T};

// One forced call of run_every_config_and_transpose: its size and split-K limit.
struct ForcedCase {
  Mnk size;
  int max_split;
};

// Runs `cases` in every compiled configuration and transpose pair, each forced through
// aegisSetSgemmOverride; make_case(ta, tb, size, index) builds the call (index counts all
// calls). Each pair must have used split-K at least once.
template <class MakeCase>
void run_every_config_and_transpose(aegisHandle_t h, uint64_t seed,
                                    const std::vector<ForcedCase>& cases, MakeCase make_case) {
  size_t index = 0;
  for (int i = 0; i < aegisSgemmConfigCount(); ++i) {
    const std::string config = aegisSgemmConfigName(i);
    for (aegisOperation_t ta : kOps)
      for (aegisOperation_t tb : kOps) {
        bool split_seen = false;
        for (const ForcedCase& x : cases) {
          ASSERT_EQ(aegisSetSgemmOverride(h, config.c_str(), x.max_split), AEGIS_STATUS_SUCCESS);
          const SgemmCase c = make_case(ta, tb, x.size, index);
          std::string kernel;
          int split = 0;
          EXPECT_TRUE(run_sgemm_case(h, c, case_seed(seed, index), &kernel, &split))
              << config << " max_split " << x.max_split;
          EXPECT_TRUE(kernel_is_config(kernel, config)) << kernel << " vs " << config;
          EXPECT_LE(split, x.max_split) << c.describe();
          split_seen = split_seen || split > 1;
          ++index;
        }
        EXPECT_TRUE(split_seen) << config << " " << op_letters(ta, tb) << ": split-K not used";
      }
  }
}

// Whole tiles: m and n multiples of 128 (and so of every tile), k of 16, tight aligned
// operands. Such calls run a configuration's interior kernel where it has one (no bounds
// checks in its K loop; src/gemm/simt/sgemm_kernel.cuh), with and without split-K, k of
// one, two, three and 65 slices.
using SgemmWholeTiles = GpuTest;
TEST_F(SgemmWholeTiles, EveryConfigAndTranspose) {
  std::vector<ForcedCase> cases;
  for (const Mnk& s : {Mnk{128, 128, 16}, Mnk{256, 128, 32}, Mnk{128, 384, 48},
                       Mnk{256, 256, 1040}})
    for (int max_split : {1, 8}) cases.push_back({s, max_split});
  run_every_config_and_transpose(
      h_, seed_, cases, [](aegisOperation_t ta, aegisOperation_t tb, const Mnk& s, size_t i) {
        SgemmCase c = edge_case(ta, tb, s, 0);  // tight and aligned
        c.alpha = kScalars[i % 3].alpha;
        c.beta = kScalars[i % 3].beta;
        return c;
      });
}

// Part of the sanitizer subset: a handful of small cases per config and transpose pair,
// split-K included.
TEST_F(SgemmSmallSanitizer, EveryConfigAndTranspose) {
  // Kept small for compute-sanitizer: no split on the first two sizes, up to 8 slices on the
  // deeper two.
  run_every_config_and_transpose(
      h_, seed_, {{{33, 31, 65}, 1}, {{1, 1, 1}, 1}, {{65, 63, 257}, 8}, {{31, 129, 130}, 8}},
      [](aegisOperation_t ta, aegisOperation_t tb, const Mnk& s, size_t i) {
        SgemmCase c = edge_case(ta, tb, s, i);
        c.padded_ld = i % 2 == 0;
        c.unaligned = i % 3 != 0;
        return c;
      });
}

}  // namespace

void register_sgemm_config_tests() {
  for (int i = 0; i < aegisSgemmConfigCount(); ++i) {
    const std::string config = aegisSgemmConfigName(i);
    for (aegisOperation_t ta : kOps)
      for (aegisOperation_t tb : kOps) {
        const std::string name = config + "_" + op_letters(ta, tb);
        const ConfigOps param{config, ta, tb};
        ::testing::RegisterTest("SgemmConfigs/EdgeSizes", name.c_str(), nullptr, nullptr,
                                __FILE__, __LINE__,
                                [param]() -> GpuTest* { return new EdgeSizes(param); });
      }
  }
}

}  // namespace aegis_test
