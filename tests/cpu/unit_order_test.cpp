// The sm90 kernels' work order without divisions (gemm/sm90/unit_order.h, common/fast_divisor.h):
// the quotients must be exact, and the order must still be the grouped order it replaced,
// visiting every tile once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/fast_divisor.h"
#include "gemm/sm90/unit_order.h"

namespace {

using aegis::FastDivisor;
using aegis::gemm::sm90::make_unit_order;
using aegis::gemm::sm90::tile_coords;

TEST(FastDivisor, QuotientsAreExact) {
  std::mt19937 random(7);
  for (uint32_t d = 1; d <= 3000; ++d) {
    const FastDivisor divisor(d);
    ASSERT_EQ(divisor.divisor(), d);
    for (uint32_t n = 0; n < 3 * d + 5; ++n)
      ASSERT_EQ(divisor.quotient(n), n / d) << n << " / " << d;
    for (int i = 0; i < 100; ++i) {
      const uint32_t n = random() & 0x7fffffffu;
      ASSERT_EQ(divisor.quotient(n), n / d) << n << " / " << d;
    }
    ASSERT_EQ(divisor.quotient(0x7fffffffu), 0x7fffffffu / d) << d;
  }
  for (int i = 0; i < 20000; ++i) {  // large divisors, up to 2^31 - 1
    const uint32_t d = std::max<uint32_t>(1, (random() & 0x7fffffffu) >> (random() % 31));
    const uint32_t n = random() & 0x7fffffffu;
    const FastDivisor divisor(d);
    ASSERT_EQ(divisor.quotient(n), n / d) << n << " / " << d;
    ASSERT_EQ(divisor.quotient(d - 1), 0u) << d;
    ASSERT_EQ(divisor.quotient(d), 1u) << d;
  }
  EXPECT_EQ(FastDivisor().quotient(12345), 12345u);
}

TEST(UnitOrder, IsTheGroupedOrderAndVisitsEveryTileOnce) {
  for (int rows = 1; rows <= 37; ++rows)
    for (int cols = 1; cols <= 23; ++cols)
      for (int group_m = 1; group_m <= rows + 1; ++group_m) {
        const auto order = make_unit_order(rows, cols, group_m);
        ASSERT_EQ(order.units_per_slice.divisor(), uint32_t(rows * cols));
        std::vector<int> seen(size_t(rows * cols), 0);
        for (int t = 0; t < rows * cols; ++t) {
          int tm = -1, tn = -1;
          tile_coords(t, order, tm, tn);
          // The order it replaced, written with divisions.
          const int per_group = group_m * cols;
          const int group = t / per_group;
          const int first_m = group * group_m;
          const int band_rows = std::min(rows - first_m, group_m);
          const int in_group = t - group * per_group;
          const auto where = [&] {
            return std::to_string(rows) + "x" + std::to_string(cols) + " g" +
                   std::to_string(group_m) + " t" + std::to_string(t);
          };
          ASSERT_EQ(tm, first_m + in_group % band_rows) << where();
          ASSERT_EQ(tn, in_group / band_rows) << where();
          ASSERT_TRUE(tm >= 0 && tm < rows && tn >= 0 && tn < cols);
          ++seen[size_t(tn * rows + tm)];
        }
        for (int v : seen) ASSERT_EQ(v, 1) << rows << "x" << cols << " g" << group_m;
      }
}

}  // namespace
