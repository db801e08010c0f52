// SYMV/HEMV one-wave schedule (src/blas2/symv_schedule.h): every stored tile is owned by
// exactly one thread block, the segments a block walks are the ones the kernel walks, the
// deterministic column-part slots are distinct and in range, and the reduction kernel reads
// exactly the slots that were written. Pure host code; the kernel and the reduction call the
// same functions on the device.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "aegis/aegis.h"
#include "blas2/blas2_launch.h"
#include "blas2/symv_schedule.h"
#include "common/context.h"
#include "deviceless.h"
#include "dispatch/blas2_dispatch.h"

namespace aegis_test {
namespace {

using namespace aegis::blas2;

TEST(Blas2Schedule, ColumnOfMatchesTheOffsets) {
  for (bool upper : {false, true})
    for (int64_t nt : {1, 2, 3, 7, 64, 129, 1000}) {
      const int64_t total = symv_total_tiles(nt);
      int64_t c = 0;
      for (int64_t lin = 0; lin < total; ++lin) {
        while (c + 1 < nt && symv_column_offset(nt, c + 1, upper) <= lin) ++c;
        ASSERT_EQ(symv_column_of(lin, nt, upper), c) << "nt " << nt << " lin " << lin << " upper " << upper;
      }
      EXPECT_EQ(symv_column_offset(nt, nt - 1, upper) + symv_tile_count(nt, nt - 1, upper), total);
    }
  // Large triangles (sizes beyond any GPU memory): spot checks at column starts and ends.
  for (bool upper : {false, true})
    for (int64_t nt : {int64_t(1) << 15, int64_t(3) << 16}) {
      for (int64_t c : {int64_t(0), int64_t(1), nt / 3, nt / 2, nt - 2, nt - 1}) {
        const int64_t first = symv_column_offset(nt, c, upper);
        const int64_t last = first + symv_tile_count(nt, c, upper) - 1;
        EXPECT_EQ(symv_column_of(first, nt, upper), c);
        EXPECT_EQ(symv_column_of(last, nt, upper), c);
      }
    }
}

// Walks the schedule as symv_kernel<..., WAVE = true> does and checks it against what
// symv_reduce_kernel<..., WAVE = true> reads.
void check_wave_schedule(int64_t nt, bool upper, int64_t s) {
  const int64_t total = symv_total_tiles(nt);
  const int64_t G = (total + s - 1) / s;  // SymvFamily::chunks_max
  const int64_t q = total / G, r = total % G;  // SymvFamily::launch
  std::set<std::pair<int64_t, int64_t>> tiles;  // (block column, tile within it)
  std::set<int64_t> slots;
  std::map<int64_t, std::vector<int64_t>> writers;  // block column -> blocks, in order
  for (int64_t b = 0; b < G; ++b) {
    int64_t lin = symv_range_begin(b, q, r);
    const int64_t lin_end = symv_range_begin(b + 1, q, r);
    ASSERT_LT(lin, lin_end) << "empty range: block " << b;
    ASSERT_LE(lin_end - lin, s);
    int64_t c = symv_column_of(lin, nt, upper);
    int64_t t0 = lin - symv_column_offset(nt, c, upper);
    for (;;) {
      ASSERT_GE(t0, 0);
      ASSERT_LT(t0, symv_tile_count(nt, c, upper));
      const int64_t t1 = std::min(symv_tile_count(nt, c, upper), t0 + (lin_end - lin));
      for (int64_t t = t0; t < t1; ++t) ASSERT_TRUE(tiles.insert({c, t}).second) << "tile twice";
      const int64_t slot = symv_wave_slot(b, c);
      ASSERT_TRUE(slots.insert(slot).second) << "slot twice: block " << b << " column " << c;
      ASSERT_LT(slot, G + nt);
      writers[c].push_back(b);
      lin += t1 - t0;
      if (lin >= lin_end) break;
      ++c;
      t0 = 0;
      ASSERT_LT(c, nt);
    }
  }
  ASSERT_EQ(int64_t(tiles.size()), total);
  for (int64_t rb = 0; rb < nt; ++rb) {
    const int64_t first = symv_column_offset(nt, rb, upper);
    const int64_t b0 = symv_block_of(first, q, r);
    const int64_t b1 = symv_block_of(first + symv_tile_count(nt, rb, upper) - 1, q, r);
    std::vector<int64_t> expect;
    for (int64_t b = b0; b <= b1; ++b) expect.push_back(b);
    ASSERT_EQ(writers[rb], expect) << "nt " << nt << " S " << s << " column " << rb;
  }
}

TEST(Blas2Schedule, WaveCoversEveryTileOnceAndReductionReadsWhatWasWritten) {
  for (bool upper : {false, true})
    for (int64_t nt : {1, 2, 3, 5, 8, 17, 64, 130})
      for (int64_t s : {1, 2, 3, 4, 7, 16, 33, 100, 100000}) {
        if (s > symv_total_tiles(nt) && s != 100000) continue;
        check_wave_schedule(nt, upper, std::min(s, symv_total_tiles(nt)));
        if (::testing::Test::HasFatalFailure()) return;
      }
}

TEST(Blas2Schedule, RangesAreEvenAndBlockOfIsTheRangeHolder) {
  for (int64_t total : {1, 10, 8256, 32896})
    for (int64_t G : {int64_t(1), int64_t(7), int64_t(528), total}) {
      if (G > total) continue;
      const int64_t q = total / G, r = total % G;
      EXPECT_EQ(symv_range_begin(0, q, r), 0);
      EXPECT_EQ(symv_range_begin(G, q, r), total);
      for (int64_t b = 0; b < G; b += 1 + G / 101) {
        const int64_t len = symv_range_begin(b + 1, q, r) - symv_range_begin(b, q, r);
        EXPECT_TRUE(len == q || len == q + 1) << len;
      }
      for (int64_t t = 0; t < total; t += 1 + total / 97) {
        const int64_t b = symv_block_of(t, q, r);
        EXPECT_LE(symv_range_begin(b, q, r), t);
        EXPECT_GT(symv_range_begin(b + 1, q, r), t);
      }
    }
}

class Blas2WaveDispatch : public DevicelessHandle {};

TEST_F(Blas2WaveDispatch, AutomaticSplitMakesOneWaveAndOverridesServeTheRoutine) {
  int count = 0;
  const Blas2Instance* const* all = blas2_instances(&count);
  int waves = 0;
  for (int i = 0; i < count; ++i) {
    const Blas2Instance& inst = *all[i];
    if (!inst.wave) continue;
    ++waves;
    EXPECT_TRUE(inst.family == Family::Symv || inst.family == Family::Hemv) << inst.name;
    const std::string name = inst.name;
    EXPECT_EQ(name.substr(name.size() - 5), "_wave");
    ASSERT_EQ(aegisSetBlas2Override(h_, inst.name, 0), AEGIS_STATUS_SUCCESS);
    for (int64_t n : {1, 63, 1000, 8192, 16384}) {
      Blas2Call call;
      call.family = inst.family;
      call.m = call.n = call.lda = n;
      const Precision p = inst.precision;
      const auto c = aegis::dispatch::choose_blas2(*h_, p, call);
      ASSERT_EQ(c.instance, &inst) << inst.name;
      const int64_t nt = (n + inst.nb - 1) / inst.nb;
      const int64_t total = symv_total_tiles(nt);
      EXPECT_GE(c.y_split, 1);
      EXPECT_LE(c.y_split, total);
      // One wave: no more blocks than the SMs hold (at most 16 blocks of 128+ threads each).
      const int64_t blocks = (total + c.y_split - 1) / c.y_split;
      EXPECT_LE(blocks, int64_t(kDevicelessSmCount) * 16) << inst.name << " n " << n;
      if (total >= int64_t(kDevicelessSmCount) * 16) {
        EXPECT_GE(blocks, int64_t(kDevicelessSmCount)) << inst.name << " n " << n << ": less than a wave";
      }
      // Workspace: column slots (G + nt) and one row part per off-diagonal tile.
      EXPECT_EQ(inst.workspace_bytes(call, c.y_split),
                size_t(blocks + nt + nt * (nt - 1) / 2) * size_t(inst.nb) *
                    aegis::blas2::precision_bytes(p));
    }
  }
  EXPECT_GT(waves, 0) << "no one-wave SYMV/HEMV instance in this build";
  aegisSetBlas2Override(h_, nullptr, 0);
}

}  // namespace
}  // namespace aegis_test
