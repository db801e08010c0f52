// Tile schedules of the SYMV/HEMV kernels (symv_kernel.cuh), host- and device-callable so
// the CPU tests check them: which stored tiles a thread block owns and where the
// deterministic mode keeps its partial sums.
#pragma once

#include <cmath>
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
// Block column of linear tile index lin in [0, T): a square-root estimate, then exact steps.
AEGIS_BLAS2_HD inline int64_t symv_column_of(int64_t lin, int64_t nt, bool upper) {
  double est;
  if (upper) {
    est = (sqrt(8.0 * double(lin) + 1.0) - 1.0) / 2.0;  // c (c + 1) / 2 <= lin
  } else {
    const double b = 2.0 * double(nt) + 1.0;  // c (2 nt + 1 - c) / 2 <= lin
    const double d = b * b - 8.0 * double(lin);
    est = (b - sqrt(d > 0 ? d : 0.0)) / 2.0;
  }
  int64_t c = int64_t(est);
  if (c < 0) c = 0;
  if (c > nt - 1) c = nt - 1;
  while (c > 0 && symv_column_offset(nt, c, upper) > lin) --c;
  while (c + 1 < nt && symv_column_offset(nt, c + 1, upper) <= lin) ++c;
  return c;
}
// Thread block b of G owns linear tiles [symv_range_begin(b), symv_range_begin(b + 1)).
AEGIS_BLAS2_HD inline int64_t symv_range_begin(int64_t b, int64_t total, int64_t G) {
  return b * total / G;
}
// The thread block whose range holds linear tile t.
AEGIS_BLAS2_HD inline int64_t symv_block_of(int64_t t, int64_t total, int64_t G) {
  return ((t + 1) * G - 1) / total;
}
// Slot of the column sums of block b's segment in block column c (deterministic mode):
// b + c. A block's segments are consecutive block columns and block b + 1 starts in b's
// last column or the next, so the slots are distinct and fewer than G + nt.
AEGIS_BLAS2_HD inline int64_t symv_wave_slot(int64_t b, int64_t c) { return b + c; }

}  // namespace aegis::blas2
