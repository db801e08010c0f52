// GEMM dispatch logic: shape classes, tuning tables, the kernel registry, split-K and the
// plan a handle makes. Pure host code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "common/context.h"
#include "deviceless.h"
#include "dispatch/gemm_dispatch.h"
#include "dispatch/gemm_ex_dispatch.h"
#include "dispatch/tuning_table.h"
#include "gemm/simt/sgemm_registry.h"
#include "gemm/tc/tc_registry.h"

namespace aegis_test {
namespace {

using aegis::dispatch::choose_split_k;
using aegis::dispatch::find_tuning_table;
using aegis::dispatch::k_per_split;
using aegis::dispatch::kMinSplitKTiles;
using aegis::dispatch::plan_sgemm;
using aegis::dispatch::sgemm_row;
using aegis::dispatch::SgemmPlan;
using aegis::dispatch::TuningTable;
using aegis::gemm::simt::find_sgemm_instance;
using aegis::gemm::simt::sgemm_instances;
using aegis::gemm::simt::SgemmInstance;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// ---- shape classes --------------------------------------------------------------------

struct ShapeCase {
  int64_t m, n, k;
  aegisShapeClass_t expected;
};

TEST(ShapeClass, BaselineShapes) {
  // The shapes of BASELINE-H200.md. Rules: work = m n k; small if work <= 2^26; else tall
  // if m >= 8n; else wide if n >= 8m; else medium up to 2^32, large up to 2^37, else huge.
  const ShapeCase cases[] = {
      {64, 64, 256, AEGIS_SHAPE_SMALL},      {128, 128, 128, AEGIS_SHAPE_SMALL},
      {160, 160, 256, AEGIS_SHAPE_SMALL},    {256, 256, 256, AEGIS_SHAPE_SMALL},
      {384, 384, 256, AEGIS_SHAPE_SMALL},    {4096, 128, 4096, AEGIS_SHAPE_TALL},
      {65536, 128, 128, AEGIS_SHAPE_TALL},   {128, 4096, 4096, AEGIS_SHAPE_WIDE},
      {1024, 1024, 1024, AEGIS_SHAPE_MEDIUM}, {4096, 4096, 128, AEGIS_SHAPE_MEDIUM},
      {2048, 2048, 2048, AEGIS_SHAPE_LARGE}, {4096, 4096, 4096, AEGIS_SHAPE_LARGE},
      {8192, 8192, 1024, AEGIS_SHAPE_LARGE}, {8192, 8192, 8192, AEGIS_SHAPE_HUGE},
      {16384, 16384, 16384, AEGIS_SHAPE_HUGE}, {16384, 16384, 1024, AEGIS_SHAPE_HUGE},
  };
  for (const ShapeCase& c : cases) {
    EXPECT_EQ(aegisGemmShapeClass(c.m, c.n, c.k), c.expected)
        << c.m << "x" << c.n << "x" << c.k << ": got "
        << aegisShapeClassName(aegisGemmShapeClass(c.m, c.n, c.k)) << ", expected "
        << aegisShapeClassName(c.expected);
  }
}

TEST(ShapeClass, Boundaries) {
  const ShapeCase cases[] = {
      {0, 0, 0, AEGIS_SHAPE_SMALL},
      {1, 1, 1, AEGIS_SHAPE_SMALL},
      {64, 1024, 1024, AEGIS_SHAPE_SMALL},        // work = 2^26 exactly
      {65536, 1, 1024, AEGIS_SHAPE_SMALL},        // thin but small
      {65, 1024, 1024, AEGIS_SHAPE_WIDE},         // just over 2^26, n >= 8m
      {1024, 65, 1024, AEGIS_SHAPE_TALL},         // m >= 8n
      {8192, 1024, 1024, AEGIS_SHAPE_TALL},       // m = 8n exactly
      {8191, 1024, 1024, AEGIS_SHAPE_LARGE},      // m just under 8n: by work
      {1024, 8192, 1024, AEGIS_SHAPE_WIDE},       // n = 8m exactly
      {2048, 2048, 1024, AEGIS_SHAPE_MEDIUM},     // work = 2^32 exactly
      {2048, 2048, 1025, AEGIS_SHAPE_LARGE},
      {4096, 4096, 8192, AEGIS_SHAPE_LARGE},      // work = 2^37 exactly
      {4096, 4096, 8193, AEGIS_SHAPE_HUGE},
      {1 << 20, 1 << 20, 1 << 20, AEGIS_SHAPE_HUGE},  // work = 2^60 must not overflow
      {int64_t(1) << 31, 4, 1 << 20, AEGIS_SHAPE_TALL},
  };
  for (const ShapeCase& c : cases) {
    EXPECT_EQ(aegisGemmShapeClass(c.m, c.n, c.k), c.expected)
        << c.m << "x" << c.n << "x" << c.k << ": got "
        << aegisShapeClassName(aegisGemmShapeClass(c.m, c.n, c.k)) << ", expected "
        << aegisShapeClassName(c.expected);
  }
}

TEST(ShapeClass, PublicMatchesInternal) {
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<int> e(0, 15);
  for (int i = 0; i < 10000; ++i) {
    const int64_t m = int64_t(1) << e(rng), n = int64_t(1) << e(rng), k = (int64_t(1) << e(rng)) + 1;
    ASSERT_EQ(aegisGemmShapeClass(m, n, k), aegis::dispatch::gemm_shape_class(m, n, k));
  }
}

// ---- kernel registry --------------------------------------------------------------------

struct DefRow {
  int mtb, ntb, ktb, mw, nw, mt, nt;
  int frag_buffers = 2;  // optional eighth column; other than 2 it names a "_f<n>" instance
  std::string name() const {
    char buf[96];
    std::snprintf(buf, sizeof(buf), "sgemm_simt_%dx%dx%d_w%dx%d_t%dx%d", mtb, ntb, ktb, mw, nw,
                  mt, nt);
    return frag_buffers == 2 ? std::string(buf) : buf + std::string("_f") + std::to_string(frag_buffers);
  }
};

// Rows of src/gemm/simt/instances/sgemm_configs.def: every configuration a build can contain.
std::vector<DefRow> read_config_table() {
  std::vector<DefRow> rows;
  std::ifstream in(AEGIS_SGEMM_CONFIGS_DEF);
  std::string line;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream fields(line);
    DefRow r{};
    if (fields >> r.mtb >> r.ntb >> r.ktb >> r.mw >> r.nw >> r.mt >> r.nt) {
      if (!(fields >> r.frag_buffers)) r.frag_buffers = 2;
      rows.push_back(r);
    }
  }
  return rows;
}

std::vector<const SgemmInstance*> all_instances() {
  int count = 0;
  const SgemmInstance* const* list = sgemm_instances(&count);
  return std::vector<const SgemmInstance*>(list, list + count);
}

bool full_build() { return all_instances().size() == read_config_table().size(); }

TEST(Registry, MatchesConfigTable) {
  const std::vector<DefRow> table = read_config_table();
  ASSERT_FALSE(table.empty()) << "cannot read " << AEGIS_SGEMM_CONFIGS_DEF;
  const auto instances = all_instances();
  ASSERT_FALSE(instances.empty());
  ASSERT_EQ(static_cast<int>(instances.size()), aegisSgemmConfigCount());

  // Instances appear in table order (a build may leave rows out: AEGIS_SGEMM_CONFIGS).
  size_t row = 0;
  for (size_t i = 0; i < instances.size(); ++i) {
    const SgemmInstance& inst = *instances[i];
    SCOPED_TRACE(inst.name);
    EXPECT_STREQ(aegisSgemmConfigName(static_cast<int>(i)), inst.name);
    while (row < table.size() && table[row].name() != inst.name) ++row;
    ASSERT_LT(row, table.size()) << "instance not in the table, or out of table order";
    const DefRow& r = table[row];
    EXPECT_EQ(inst.mtb, r.mtb);
    EXPECT_EQ(inst.ntb, r.ntb);
    EXPECT_EQ(inst.ktb, r.ktb);
    EXPECT_EQ(inst.threads, (r.mtb / r.mw) * (r.ntb / r.nw) * 32);
    EXPECT_GE(inst.blocks_per_sm, 1);
    EXPECT_LE(inst.blocks_per_sm * inst.threads, 2048) << "more threads than an SM holds";
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) EXPECT_NE(inst.launch[ta][tb], nullptr) << ta << tb;
    EXPECT_EQ(find_sgemm_instance(inst.name), &inst);
  }
}

TEST(Registry, Lookup) {
  EXPECT_EQ(find_sgemm_instance(nullptr), nullptr);
  EXPECT_EQ(find_sgemm_instance(""), nullptr);
  EXPECT_EQ(find_sgemm_instance("sgemm_simt_1x1x1_w1x1_t1x1"), nullptr);
  const std::string first = all_instances()[0]->name;
  EXPECT_EQ(find_sgemm_instance((first + "x").c_str()), nullptr) << "no prefix matches";
  EXPECT_EQ(find_sgemm_instance(first.substr(0, first.size() - 1).c_str()), nullptr);
}

// ---- tuning tables ----------------------------------------------------------------------

// Device names that reach every table of this build (there is no enumeration API).
const char* const kDeviceNames[] = {"NVIDIA H200", "NVIDIA H200 NVL", "NVIDIA H100 80GB HBM3",
                                    "NVIDIA A100-SXM4-80GB", "", "no device"};

std::vector<const TuningTable*> reachable_tables() {
  std::vector<const TuningTable*> tables;
  for (const char* name : kDeviceNames) {
    const TuningTable* t = find_tuning_table(name);
    bool seen = false;
    for (const TuningTable* u : tables) seen = seen || u == t;
    if (t && !seen) tables.push_back(t);
  }
  return tables;
}

TEST(TuningTable, FoundByDeviceName) {
  const TuningTable* h200 = find_tuning_table("NVIDIA H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_STREQ(h200->name, "h200");
  ASSERT_NE(find_tuning_table("NVIDIA H200 NVL"), nullptr);
  EXPECT_STREQ(find_tuning_table("NVIDIA H200 NVL")->name, "h200");
  for (const char* other : {"Some Unknown GPU", "", "NVIDIA GeForce RTX 4090"}) {
    const TuningTable* t = find_tuning_table(other);
    ASSERT_NE(t, nullptr) << other;
    EXPECT_STREQ(t->name, "default") << "device \"" << other << "\"";
  }
  ASSERT_NE(find_tuning_table(nullptr), nullptr);
  EXPECT_STREQ(find_tuning_table(nullptr)->name, "default");
}

TEST(TuningTable, EveryRowNamesABuildableConfig) {
  std::set<std::string> table_names;
  for (const DefRow& r : read_config_table()) table_names.insert(r.name());
  const bool full = full_build();
  for (const TuningTable* t : reachable_tables()) {
    SCOPED_TRACE(std::string("table ") + t->name);
    ASSERT_GT(t->sgemm_row_count, 0);
    ASSERT_NE(t->sgemm_rows, nullptr);
    for (int i = 0; i < t->sgemm_row_count; ++i) {
      const auto& row = t->sgemm_rows[i];
      ASSERT_NE(row.config, nullptr);
      EXPECT_EQ(table_names.count(row.config), 1u)
          << row.config << " is not a row of sgemm_configs.def";
      if (full) {
        EXPECT_NE(find_sgemm_instance(row.config), nullptr)
            << row.config << " is not in the registry";
      }
      EXPECT_GE(row.max_split, 1) << row.config;
      EXPECT_GE(static_cast<int>(row.shape_class), 0);
      EXPECT_LT(static_cast<int>(row.shape_class), static_cast<int>(AEGIS_SHAPE_COUNT));
    }
  }
}

TEST(TuningTable, EveryShapeClassHasARow) {
  for (const TuningTable* t : reachable_tables()) {
    SCOPED_TRACE(std::string("table ") + t->name);
    for (int c = 0; c < AEGIS_SHAPE_COUNT; ++c) {
      const auto cls = static_cast<aegisShapeClass_t>(c);
      int rows = 0;
      for (int i = 0; i < t->sgemm_row_count; ++i) rows += t->sgemm_rows[i].shape_class == cls;
      EXPECT_EQ(rows, 1) << aegisShapeClassName(cls) << " must have exactly one row";
      EXPECT_EQ(sgemm_row(*t, cls).shape_class, cls) << aegisShapeClassName(cls);
    }
  }
}

// Tensor-core rows: a table either has none (the mma.sync fallback serves every shape) or
// exactly one per shape class, each naming a TMA kernel of this build.
TEST(TuningTable, GemmExRowsNameBuiltTensorCoreKernels) {
  for (const TuningTable* t : reachable_tables()) {
    SCOPED_TRACE(std::string("table ") + t->name);
    if (t->gemm_ex_row_count == 0) {
      EXPECT_EQ(t->gemm_ex_rows, nullptr);
      continue;
    }
    ASSERT_NE(t->gemm_ex_rows, nullptr);
    for (int c = 0; c < AEGIS_SHAPE_COUNT; ++c) {
      const auto cls = static_cast<aegisShapeClass_t>(c);
      int rows = 0;
      for (int i = 0; i < t->gemm_ex_row_count; ++i) rows += t->gemm_ex_rows[i].shape_class == cls;
      EXPECT_EQ(rows, 1) << aegisShapeClassName(cls) << " must have exactly one row";
      const auto* row = aegis::dispatch::gemm_ex_row(*t, cls);
      ASSERT_NE(row, nullptr) << aegisShapeClassName(cls);
      const auto* inst = aegis::gemm::tc::find_tc_instance(row->config);
      ASSERT_NE(inst, nullptr) << row->config << " is not a tensor-core kernel of this build";
      EXPECT_TRUE(inst->needs.tma_operands)
          << row->config << ": the fallback is not a table choice, dispatch reaches it anyway";
      if (row->few_tiles_config) {
        const auto* few = aegis::gemm::tc::find_tc_instance(row->few_tiles_config);
        ASSERT_NE(few, nullptr) << row->few_tiles_config
                                << " is not a tensor-core kernel of this build";
        EXPECT_TRUE(few->needs.tma_operands) << row->few_tiles_config;
      }
      if (row->one_wave_config) {
        const auto* one_wave = aegis::gemm::tc::find_tc_instance(row->one_wave_config);
        ASSERT_NE(one_wave, nullptr) << row->one_wave_config
                                     << " is not a tensor-core kernel of this build";
        EXPECT_TRUE(one_wave->needs.tma_operands) << row->one_wave_config;
        EXPECT_LT(one_wave->tile_m * one_wave->tile_n, inst->tile_m * inst->tile_n)
            << row->one_wave_config << ": a one-wave kernel has smaller tiles than the row's";
      }
    }
  }
  EXPECT_GT(find_tuning_table("NVIDIA H200")->gemm_ex_row_count, 0);
}

TEST(TuningTable, FewTilesKernelFallsBackToMediumThenSmall) {
  using aegis::dispatch::few_tiles_config;
  using aegis::dispatch::GemmExTuningRow;
  const GemmExTuningRow rows[] = {
      {AEGIS_SHAPE_SMALL, "small_kernel"},
      {AEGIS_SHAPE_MEDIUM, "medium_kernel", "medium_few"},
      {AEGIS_SHAPE_LARGE, "large_kernel"},
      {AEGIS_SHAPE_TALL, "tall_kernel", "tall_few"},
  };
  TuningTable table{"test", "", nullptr, 0, nullptr, 0, rows, 4};
  EXPECT_STREQ(few_tiles_config(table, AEGIS_SHAPE_TALL), "tall_few");
  EXPECT_STREQ(few_tiles_config(table, AEGIS_SHAPE_MEDIUM), "medium_few");
  // A row without its own, or no row at all: the medium class's.
  EXPECT_STREQ(few_tiles_config(table, AEGIS_SHAPE_LARGE), "medium_few");
  EXPECT_STREQ(few_tiles_config(table, AEGIS_SHAPE_HUGE), "medium_few");
  // No medium few-tiles kernel either: the small class's kernel.
  const GemmExTuningRow without_medium_few[] = {
      {AEGIS_SHAPE_SMALL, "small_kernel"},
      {AEGIS_SHAPE_MEDIUM, "medium_kernel"},
  };
  table.gemm_ex_rows = without_medium_few;
  table.gemm_ex_row_count = 2;
  EXPECT_STREQ(few_tiles_config(table, AEGIS_SHAPE_LARGE), "small_kernel");
  EXPECT_STREQ(few_tiles_config(table, AEGIS_SHAPE_SMALL), "small_kernel");
  table.gemm_ex_rows = nullptr;
  table.gemm_ex_row_count = 0;
  EXPECT_EQ(few_tiles_config(table, AEGIS_SHAPE_LARGE), nullptr);
}

TEST(TuningTable, BothTablesAreReachable) {
  std::set<std::string> names;
  for (const TuningTable* t : reachable_tables()) names.insert(t->name);
  EXPECT_EQ(names.count("h200"), 1u);
  EXPECT_EQ(names.count("default"), 1u);
}

// ---- split-K ----------------------------------------------------------------------------

struct SplitCase {
  int64_t m, n, k;
  int mtb, ntb, ktb, max_split, block_slots;  // block_slots: SMs x resident blocks per SM
  size_t workspace;
};

std::string describe(const SplitCase& c) {
  std::ostringstream os;
  os << "m=" << c.m << " n=" << c.n << " k=" << c.k << " tile=" << c.mtb << "x" << c.ntb << "x"
     << c.ktb << " max_split=" << c.max_split << " block_slots=" << c.block_slots
     << " workspace=" << c.workspace;
  return os.str();
}

// Checks every promise of choose_split_k / k_per_split for one case; returns the split.
int check_split(const SplitCase& c) {
  SCOPED_TRACE(describe(c));
  const int s = choose_split_k(c.m, c.n, c.k, c.mtb, c.ntb, c.ktb, c.max_split, c.block_slots,
                               c.workspace);
  const int64_t tiles = ceil_div(c.m, c.mtb) * ceil_div(c.n, c.ntb);
  EXPECT_GE(s, 1);
  if (c.max_split <= 1) {
    EXPECT_EQ(s, 1) << "max_split <= 1 never splits";
  }
  if (2 * tiles > c.block_slots) {
    EXPECT_EQ(s, 1) << "tiles alone fill more than half the block slots";
  }
  if (c.max_split >= 1) {
    EXPECT_LE(s, c.max_split);
  }

  const int64_t kps = k_per_split(c.k, s, c.ktb);
  EXPECT_EQ(kps % c.ktb, 0) << "k_per_split = " << kps << " is not a multiple of ktb";
  EXPECT_EQ(ceil_div(c.k, kps), s) << "k_per_split = " << kps << ": slices with work != split";
  if (s > 1) {
    EXPECT_LE(static_cast<uint64_t>(s) * static_cast<uint64_t>(c.m) *
                  static_cast<uint64_t>(c.n) * sizeof(float),
              c.workspace)
        << "partial sums do not fit the workspace";
    EXPECT_GE(kps, int64_t(kMinSplitKTiles) * c.ktb)
        << "slices shallower than kMinSplitKTiles k-tiles";
    const int64_t last = c.k - (s - 1) * kps;
    EXPECT_GT(last, 0) << "empty last slice";
  }
  // Split-K must actually happen where it clearly pays and is possible: the grid fills at
  // most half the GPU, two full-depth slices fit in k, and the workspace holds them.
  if (c.max_split >= 2 && tiles * 2 <= c.block_slots &&
      c.k >= 2 * int64_t(kMinSplitKTiles) * c.ktb &&
      2 * static_cast<uint64_t>(c.m) * static_cast<uint64_t>(c.n) * sizeof(float) <= c.workspace) {
    EXPECT_GE(s, 2) << "split-K not used where it is possible and the grid is under half a wave";
  }
  return s;
}

TEST(SplitK, KPerSplit) {
  for (int ktb : {4, 8, 16, 32})
    for (int64_t k : {int64_t(1), int64_t(7), int64_t(8), int64_t(33), int64_t(1000),
                      int64_t(4097), int64_t(1) << 33})
      for (int split : {1, 2, 3, 7, 8, 16}) {
        SCOPED_TRACE("k=" + std::to_string(k) + " split=" + std::to_string(split) +
                     " ktb=" + std::to_string(ktb));
        const int64_t kps = k_per_split(k, split, ktb);
        EXPECT_EQ(kps % ktb, 0);
        EXPECT_GE(kps * split, k) << "slices do not cover k";
        EXPECT_LT(kps - ktb, ceil_div(k, split)) << "slices deeper than needed";
      }
}

TEST(SplitK, FixedCases) {
  const size_t ws = size_t(32) << 20;
  // One tile on 132 block slots, deep k: splits, up to max_split.
  EXPECT_EQ(check_split({32, 32, 4096, 32, 32, 8, 16, 132, ws}), 16);
  EXPECT_EQ(check_split({32, 32, 4096, 32, 32, 8, 8, 132, ws}), 8);
  // Shallow k: no slice can have kMinSplitKTiles k-tiles.
  EXPECT_EQ(check_split({32, 32, 8 * kMinSplitKTiles * 2 - 1, 32, 32, 8, 16, 132, ws}), 1);
  EXPECT_EQ(check_split({1, 1, 1, 128, 128, 8, 16, 132, ws}), 1);
  // Enough tiles to fill every block slot: never splits.
  EXPECT_EQ(check_split({128 * 12, 128 * 11, 1 << 16, 128, 128, 8, 16, 132, ws}), 1);
  // No workspace: never splits.
  EXPECT_EQ(check_split({64, 64, 1 << 16, 64, 64, 8, 16, 132, 0}), 1);
  // Workspace for exactly three slices.
  EXPECT_EQ(check_split({64, 64, 1 << 16, 64, 64, 8, 16, 132, size_t(3) * 64 * 64 * 4}), 3);
  // max_split 0 or 1, or a negative value, never splits.
  for (int ms : {-3, 0, 1}) EXPECT_EQ(check_split({64, 64, 1 << 16, 64, 64, 8, ms, 132, ws}), 1);
  // Odd k, rounded slices: the count is exact.
  check_split({33, 31, 257, 32, 32, 8, 8, 132, ws});
  check_split({65, 63, 2053, 64, 64, 16, 8, 132, ws});
  check_split({33, 31, 1031, 128, 128, 8, 8, 132, ws});
}

TEST(SplitK, RandomProperties) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto instances = all_instances();
  auto log_uniform = [&](int64_t hi) {  // 1 .. hi, log-distributed
    std::uniform_real_distribution<double> e(0.0, std::log2(static_cast<double>(hi)));
    return std::max<int64_t>(1, static_cast<int64_t>(std::exp2(e(rng))));
  };
  const int tiles[] = {16, 32, 64, 128, 256};
  const int ktbs[] = {4, 8, 16, 32};
  const int slots[] = {1, 2, 16, 108, 132, 264, 1056, 2112};
  const size_t workspaces[] = {0, 1024, size_t(1) << 20, size_t(32) << 20, size_t(1) << 40};
  int split_seen = 0;
  for (int i = 0; i < 100000 && !HasFailure(); ++i) {
    SplitCase c{};
    c.m = log_uniform(1 << 20);
    c.n = log_uniform(1 << 20);
    c.k = log_uniform(int64_t(1) << 24);
    if (i % 2 == 0) {  // a compiled configuration
      const SgemmInstance& inst = *instances[rng() % instances.size()];
      c.mtb = inst.mtb;
      c.ntb = inst.ntb;
      c.ktb = inst.ktb;
    } else {
      c.mtb = tiles[rng() % 5];
      c.ntb = tiles[rng() % 5];
      c.ktb = ktbs[rng() % 4];
    }
    c.max_split = static_cast<int>(rng() % 20) - 2;  // -2 .. 17
    c.block_slots = slots[rng() % 8];
    c.workspace = workspaces[rng() % 5];
    split_seen += check_split(c) > 1;
  }
  EXPECT_GT(split_seen, 1000) << "the random cases hardly ever split: generator broken?";
}

// ---- plans on a handle --------------------------------------------------------------------

struct PlanShape {
  int64_t m, n, k;
};
const PlanShape kPlanShapes[] = {
    {64, 64, 256},     {128, 128, 128},   {160, 160, 256},   {256, 256, 256},
    {384, 384, 256},   {1024, 1024, 1024}, {4096, 128, 4096}, {128, 4096, 4096},
    {65536, 128, 128}, {4096, 4096, 128}, {2048, 2048, 2048}, {8192, 8192, 1024},
    {16384, 16384, 16384}, {1, 1, 1},     {33, 31, 2053},    {7, 9000, 5},
};

class Plan : public DevicelessHandle {
 protected:
  // A workspace the planner may count on; never dereferenced on the host.
  void give_workspace(size_t bytes) {
    workspace_.resize(bytes / 16 + 1);
    ASSERT_EQ(aegisSetWorkspace(h_, workspace_.data(), bytes), AEGIS_STATUS_SUCCESS)
        << last_error();
  }
  // The plan the table row (or override) implies, computed from the parts.
  void expect_plan(const PlanShape& s, const char* config, int max_split) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k));
    const SgemmPlan plan = plan_sgemm(*h_, s.m, s.n, s.k);
    EXPECT_EQ(plan.shape_class, aegisGemmShapeClass(s.m, s.n, s.k));
    const SgemmInstance* want = find_sgemm_instance(config);
    if (!want) want = all_instances()[0];  // a row this build left out: the first config
    ASSERT_NE(plan.instance, nullptr);
    EXPECT_STREQ(plan.instance->name, want->name);
    // Blocks the GPU runs at once: SMs x the blocks per SM the kernel's launch bounds allow.
    const int slots = kDevicelessSmCount * want->blocks_per_sm;
    const int split = choose_split_k(s.m, s.n, s.k, want->mtb, want->ntb, want->ktb, max_split,
                                     slots, h_->workspace_bytes());
    EXPECT_EQ(plan.split_k, split);
    if (plan.split_k > 1) {
      EXPECT_EQ(plan.k_per_split, k_per_split(s.k, plan.split_k, want->ktb));
      EXPECT_EQ(ceil_div(s.k, plan.k_per_split), plan.split_k);
    } else {
      EXPECT_GE(plan.k_per_split, s.k);
    }
  }
  struct alignas(16) Chunk {
    unsigned char bytes[16];
  };
  std::vector<Chunk> workspace_;
};

TEST_F(Plan, FollowsTheTableRow) {
  ASSERT_NE(h_->tuning, nullptr);
  for (size_t ws : {size_t(0), size_t(32) << 20}) {
    SCOPED_TRACE("workspace " + std::to_string(ws));
    if (ws) give_workspace(ws);
    for (const PlanShape& s : kPlanShapes) {
      const auto& row = sgemm_row(*h_->tuning, aegisGemmShapeClass(s.m, s.n, s.k));
      expect_plan(s, row.config, row.max_split);
    }
  }
}

// A side of at most 64 outside the small class: the narrow tile, not the class's 128 x 128.
TEST_F(Plan, NarrowSidesTakeNarrowTiles) {
  h_->tuning = find_tuning_table("NVIDIA H200");
  give_workspace(size_t(32) << 20);
  const struct {
    PlanShape shape;
    const char* config;
  } cases[] = {
      {{4096, 32, 4096}, "sgemm_simt_128x32x16_w32x32_t8x4"},
      {{4096, 16, 4096}, "sgemm_simt_128x32x16_w32x32_t8x4"},
      {{8192, 64, 8192}, "sgemm_simt_128x64x8_w64x32_t8x8"},
      {{32, 8192, 8192}, "sgemm_simt_32x32x8_w32x32_t4x8"},
      {{64, 4096, 4096}, "sgemm_simt_64x64x8_w32x32_t8x4"},
      {{48, 40, 1 << 20}, "sgemm_simt_64x64x8_w32x32_t8x4"},  // both narrow, deep K
  };
  for (const auto& c : cases) {
    ASSERT_NE(aegisGemmShapeClass(c.shape.m, c.shape.n, c.shape.k), AEGIS_SHAPE_SMALL);
    if (!find_sgemm_instance(c.config)) continue;  // a build without it keeps the row's tile
    expect_plan(c.shape, c.config, aegis::dispatch::kNarrowMaxSplit);
  }
  // A side of 65 keeps the class's tile.
  const auto& row = sgemm_row(*h_->tuning, aegisGemmShapeClass(4096, 65, 4096));
  expect_plan({4096, 65, 4096}, row.config, row.max_split);
}

TEST_F(Plan, WithoutWorkspaceNeverSplits) {
  for (const PlanShape& s : kPlanShapes) EXPECT_EQ(plan_sgemm(*h_, s.m, s.n, s.k).split_k, 1);
}

TEST_F(Plan, FollowsTheH200Table) {
  // Named on the handle, as on a GPU without a table of its own (aegisSetTuningTable).
  ASSERT_EQ(aegisSetTuningTable(h_, "h200"), AEGIS_STATUS_SUCCESS) << last_error();
  ASSERT_EQ(h_->tuning, find_tuning_table("NVIDIA H200"));
  give_workspace(size_t(32) << 20);
  for (const PlanShape& s : kPlanShapes) {
    const auto& row = sgemm_row(*h_->tuning, aegisGemmShapeClass(s.m, s.n, s.k));
    expect_plan(s, row.config, row.max_split);
  }
  // A small, deep product on a mostly idle GPU is split wherever its row allows splitting
  // (the tuner decides whether it does).
  const auto& small_row = sgemm_row(*h_->tuning, aegisGemmShapeClass(64, 64, 4096));
  if (small_row.max_split > 1) {
    EXPECT_GT(plan_sgemm(*h_, 64, 64, 4096).split_k, 1);
  }
}

TEST_F(Plan, HonoursTheOverride) {
  give_workspace(size_t(32) << 20);
  for (int i = 0; i < aegisSgemmConfigCount(); ++i) {
    const char* name = aegisSgemmConfigName(i);
    SCOPED_TRACE(name);
    for (int max_split : {1, 3, 8}) {
      ASSERT_EQ(aegisSetSgemmOverride(h_, name, max_split), AEGIS_STATUS_SUCCESS) << last_error();
      for (const PlanShape& s : kPlanShapes) {
        expect_plan(s, name, max_split);
        EXPECT_LE(plan_sgemm(*h_, s.m, s.n, s.k).split_k, max_split);
      }
    }
    // max_split 0: the configuration is forced, the split limit stays the table row's.
    ASSERT_EQ(aegisSetSgemmOverride(h_, name, 0), AEGIS_STATUS_SUCCESS);
    for (const PlanShape& s : kPlanShapes) {
      const auto& row = sgemm_row(*h_->tuning, aegisGemmShapeClass(s.m, s.n, s.k));
      expect_plan(s, name, row.max_split);
    }
  }
  // Cleared: back to the table.
  ASSERT_EQ(aegisSetSgemmOverride(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
  for (const PlanShape& s : kPlanShapes) {
    const auto& row = sgemm_row(*h_->tuning, aegisGemmShapeClass(s.m, s.n, s.k));
    expect_plan(s, row.config, row.max_split);
  }
}

TEST_F(Plan, SplitForcedThroughOverrideIsUsed) {
  // What the GPU edge-size tests rely on to exercise split-K in every configuration.
  give_workspace(size_t(32) << 20);
  for (int i = 0; i < aegisSgemmConfigCount(); ++i) {
    ASSERT_EQ(aegisSetSgemmOverride(h_, aegisSgemmConfigName(i), 8), AEGIS_STATUS_SUCCESS);
    EXPECT_EQ(plan_sgemm(*h_, 65, 63, 2053).split_k, 8) << aegisSgemmConfigName(i);
  }
}

}  // namespace
}  // namespace aegis_test
