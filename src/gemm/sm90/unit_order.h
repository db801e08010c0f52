// The persistent sm90 grid's order of work units (sm90_kernel.cuh): which output tile and K
// slice the u-th unit is. Host and device code, so that the CPU tests can check the order.
#pragma once

#include <cstdint>

#include "common/fast_divisor.h"

namespace aegis::gemm::sm90 {

// The persistent grid's walk over its work units, its divisions prepared on the host: units
// are numbered slice by slice, and within a slice in bands of group_m unit rows, down each
// band's rows column by column (tile_coords).
struct UnitOrder {
  FastDivisor units_per_slice;  // unit rows x unit columns
  FastDivisor per_group;        // group_m x unit columns: the units of a band
  FastDivisor group_rows;       // group_m
  FastDivisor last_group_rows;  // the last band's unit rows (group_m or fewer)
  int last_group = 0;
};

// group_m unit rows per band (choose_group_m).
inline UnitOrder make_unit_order(int unit_rows, int unit_cols, int group_m) {
  UnitOrder order;
  order.units_per_slice = FastDivisor(static_cast<uint32_t>(unit_rows * unit_cols));
  order.per_group = FastDivisor(static_cast<uint32_t>(group_m * unit_cols));
  order.group_rows = FastDivisor(static_cast<uint32_t>(group_m));
  order.last_group = (unit_rows - 1) / group_m;
  order.last_group_rows =
      FastDivisor(static_cast<uint32_t>(unit_rows - order.last_group * group_m));
  return order;
}

// Output tile (tm, tn) of the t-th unit of a K slice in the grouped order: down group_m unit
// rows, then on to the next column, one band of group_m rows after the other (the last band
// may have fewer rows).
AEGIS_HOST_DEVICE inline void tile_coords(int t, const UnitOrder& order, int& tm, int& tn) {
  const int group = static_cast<int>(order.per_group.quotient(t));
  const int in_group = t - group * static_cast<int>(order.per_group.divisor());
  const FastDivisor rows = group == order.last_group ? order.last_group_rows : order.group_rows;
  const int column = static_cast<int>(rows.quotient(in_group));
  tm = group * static_cast<int>(order.group_rows.divisor()) + in_group -
       column * static_cast<int>(rows.divisor());
  tn = column;
}

}  // namespace aegis::gemm::sm90
