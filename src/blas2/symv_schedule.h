// Tile schedules of the SYMV/HEMV kernels (symv_kernel.cuh), host- and device-callable so
// the CPU tests check them: which stored tiles a thread block owns and where the
// deterministic mode keeps its partial sums.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define AEGIS_BLAS2_HD __host__ __device__
#else
#define AEGIS_BLAS2_HD
#endif

namespace aegis::blas2 {

// Stored tiles of block column c: lower c .. nt - 1 (nt - c tiles), upper 0 .. c (c + 1).
AEGIS_BLAS2_HD inline int64_t symv_tile_count(int64_t nt, int64_t c, bool upper) {
  return upper ? c + 1 : nt - c;
}

// One-wave schedule. Linear index of block column c's first tile (its diagonal).
AEGIS_BLAS2_HD inline int64_t symv_column_offset(int64_t nt, int64_t c, bool upper) {
  return upper ? c * (c + 1) / 2 : c * nt - c * (c - 1) / 2;
}
AEGIS_BLAS2_HD inline int64_t symv_total_tiles(int64_t nt) { return nt * (nt + 1) / 2; }
// Block column of linear tile index lin in [0, T): a binary search over the column offsets
// (integer operations only, so the kernel keeps it and what depends on it in uniform
// registers: a floating-point square root would move the whole segment state into the
// per-thread registers that the tile loop needs).
AEGIS_BLAS2_HD inline int64_t symv_column_of(int64_t lin, int64_t nt, bool upper) {
  int64_t lo = 0, hi = nt - 1;
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (symv_column_offset(nt, mid, upper) <= lin) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
// G thread blocks share T tiles: q = T / G each and one more for the first r = T % G
// (q >= 1: G <= T). Block b owns linear tiles [symv_range_begin(b), symv_range_begin(b + 1)).
AEGIS_BLAS2_HD inline int64_t symv_range_begin(int64_t b, int64_t q, int64_t r) {
  return b * q + (b < r ? b : r);
}
// The thread block whose range holds linear tile t.
AEGIS_BLAS2_HD inline int64_t symv_block_of(int64_t t, int64_t q, int64_t r) {
  const int64_t long_tiles = r * (q + 1);  // tiles of the first r blocks
  return t < long_tiles ? t / (q + 1) : r + (t - long_tiles) / q;
}
// Slot of the column sums of block b's segment in block column c (deterministic mode):
// b + c. A block's segments are consecutive block columns and block b + 1 starts in b's
// last column or the next, so the slots are distinct and fewer than G + nt.
AEGIS_BLAS2_HD inline int64_t symv_wave_slot(int64_t b, int64_t c) { return b + c; }

}  // namespace aegis::blas2
