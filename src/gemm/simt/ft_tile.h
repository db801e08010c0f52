// Where a fused FT-SGEMM block works: its tile in C, and its thread's fragment in the tile.
#pragma once

#include <cstdint>

namespace aegis::gemm::simt {

// Where this thread's fragment sits in the tile: element acc[fi * 4 + i][fj * 4 + j] is tile
// row row0 + fi * row_stride + i, tile column col0 + fj * col_stride + j.
struct FragmentMap {
  int row0, col0;
  int row_stride, col_stride;
};

// The tile being computed: its origin and how much of it lies in the matrix. Its K range is
// all of K, from 0: FT never splits K.
struct TileSpan {
  int64_t m0, n0;
  int rows_left, cols_left;  // clamped to int; >= the tile size means a full tile
  int tm, tn;                // tile row and column indices
};

}  // namespace aegis::gemm::simt
