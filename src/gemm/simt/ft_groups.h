// What one reference checksum of the fused FT-SGEMM covers, by level (aegisSetFtLevel).
//
// A checksum line is a row of C summed over a group of the tile's columns, or a column summed
// over a group of its rows. The level sets the groups:
//   block:  the whole tile (MTB rows, NTB columns): one group per dimension;
//   warp:   a warp's part of the tile (MW rows, NW columns);
//   thread: a thread's fragment (MT rows, NT columns), which the kernel spreads over its
//           warp's part as blocks of 4 (gemm/simt/sgemm_kernel.cuh): thread lane l of a warp
//           holds the runs of 4 that start at l * 4, l * 4 + 4 * lanes, ... within it.
// Every group is a set of runs of 4 consecutive elements, run r of group g starting at
// base(g) + r * stride() (tile-relative). A finer group means more reference checksums
// (the narrow GEMMs of ft_checksums.h grow as 1 / width) and finer location: one pair of
// crossing checksums (a cell) repairs one element, so a thread-level check can repair a
// fault in every thread's fragment at once.
#pragma once

#include "common/host_device.h"

namespace aegis::gemm::simt {

// The fused levels; the values are those of aegisFtLevel_t.
enum class FtLevel : int { kBlock = 0, kWarp = 1, kThread = 2 };
constexpr int kFtFusedLevels = 3;

struct FtGroupShape {
  int tile;   // MTB or NTB
  int span;   // elements of one warp's part (MW or NW); the tile at block level
  int lanes;  // groups interleaved within a span (a warp's lanes along it, thread level), else 1
  int width;  // elements per group

  AEGIS_HOST_DEVICE constexpr int groups() const { return tile / width; }
  AEGIS_HOST_DEVICE constexpr int runs() const { return width / 4; }
  AEGIS_HOST_DEVICE constexpr int stride() const { return 4 * lanes; }
  AEGIS_HOST_DEVICE constexpr int base(int g) const { return (g / lanes) * span + (g % lanes) * 4; }
  // The group of tile-relative element e.
  AEGIS_HOST_DEVICE constexpr int group_of(int e) const {
    return (e / span) * lanes + (e % span) % (4 * lanes) / 4;
  }
  // Groups that are one contiguous range each.
  AEGIS_HOST_DEVICE constexpr bool contiguous() const { return lanes == 1; }
};

// tile: MTB (NTB); warp: MW (NW); thread: MT (NT).
AEGIS_HOST_DEVICE constexpr FtGroupShape ft_group_shape(FtLevel level, int tile, int warp,
                                                        int thread) {
  return level == FtLevel::kBlock  ? FtGroupShape{tile, tile, 1, tile}
         : level == FtLevel::kWarp ? FtGroupShape{tile, warp, 1, warp}
                                   : FtGroupShape{tile, warp, warp / thread, thread};
}

}  // namespace aegis::gemm::simt
