// The check of the fused FT-SGEMM at warp and thread level (ft_groups.h): the block level's
// check (FtBlock::check in ft_block.cuh) with lines over groups of the tile, and a verdict
// per cell (a row group crossing a column group) instead of per tile.
//
// Same steps as the block level, on the tile in shared memory:
//   1. each thread walks its lines: adds the reference pieces done since the last check to
//      the line's running checksum (kept in shared memory), sums the line's accumulators and
//      compares within the bound the checksum alone gives (abft::cheap_bound);
//   2. only if some line exceeds it (and the inputs are finite) does the block run the
//      magnitude pass for every line's rigorous bound (abft::checksum_bound) and note the
//      lines beyond it in their cells;
//   3. each cell is classified like a block-level tile (abft::classify): one bad row and one
//      bad column of a cell with agreeing residuals locate one wrong element, which is
//      computed again; any other pattern in any cell recomputes the tile. So one fault per
//      cell is repaired in place: 256 per 128 x 128 tile at thread level, 8 at warp level.
// Statistics: `detected` counts bad cells, `corrected` the elements repaired, `recomputed`
// the tiles computed again; one record per bad cell.
#pragma once

#include <cstdint>

#include "abft/ft_check.h"
#include "abft/ft_params.h"
#include "gemm/simt/ft_groups.h"
#include "gemm/simt/ft_tile.h"
#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {

// Ft: the level's FtBlock (its shared-memory layout, tile, operands and records).
template <class Ft>
struct FtGroupCheck {
  static constexpr int MTB = Ft::MTB, NTB = Ft::NTB, KTB = Ft::KTB;
  static constexpr int kThreads = Ft::kThreads, kWarps = kThreads / 32;
  static constexpr int kLines = Ft::kLines, kRowLines = Ft::kRowLines, kItems = Ft::kItems;
  static constexpr int kCells = Ft::kCells, kGroupsM = Ft::kGroupsM, kGroupsN = Ft::kGroupsN;
  static constexpr int kLdT = Ft::kLdT;

  // A line: row `index` over column group `group`, or column `index` over row group `group`.
  struct Line {
    bool is_row;
    int index, group;
  };
  __device__ __forceinline__ static Line line_of(int line) {
    if (line < kRowLines) return {true, line % MTB, line / MTB};
    const int l = line - kRowLines;
    return {false, l % NTB, l / NTB};
  }
  // Elements a line sums: a column group's width for rows, a row group's height for columns.
  __device__ __forceinline__ static int length(const Line& l) {
    return l.is_row ? Ft::col_groups().width : Ft::row_groups().width;
  }
  __device__ __forceinline__ static int cell_of(const Line& l) {
    return l.is_row ? Ft::row_groups().group_of(l.index) * kGroupsN + l.group
                    : l.group * kGroupsN + Ft::col_groups().group_of(l.index);
  }
  __device__ __forceinline__ static bool inside(const Line& l, const TileSpan& t) {
    return l.is_row ? l.index < t.rows_left : l.index < t.cols_left;
  }

  // ---- misc words: tile counters, then eight arrays of kCells --------------------------------
  enum { kBadCells = 0, kRecomputeCells = 1 };
  enum { kCellRows = 0, kCellCols, kCellRow, kCellCol, kCellRowRes, kCellColRes, kCellRowBound,
         kCellColBound };
  __device__ __forceinline__ static int* counter(float* smem, int w) {
    return Ft::misc_int(smem, w);
  }
  __device__ __forceinline__ static float* cell_words(float* smem, int array) {
    return Ft::misc(smem) + 8 + array * kCells;
  }
  __device__ __forceinline__ static int* cell_ints(float* smem, int array) {
    return reinterpret_cast<int*>(cell_words(smem, array));
  }

  // The sum, the sum of magnitudes and the largest magnitude of a line's elements inside the
  // matrix, from the tile in shared memory, in a fixed order (four interleaved parts).
  __device__ __forceinline__ static void totals(const float* tile, const TileSpan& t,
                                                const Line& l, float& sum, float& abs_sum,
                                                float& max_abs) {
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f}, a[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float mx[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    auto add = [&](int part, float v) {
      s[part] += v;
      a[part] += fabsf(v);
      mx[part] = fmaxf(mx[part], fabsf(v));
    };
    if (inside(l, t)) {
      if (l.is_row) {
        constexpr FtGroupShape g = Ft::col_groups();
        const float* row = tile + l.index * kLdT + g.base(l.group);
#pragma unroll
        for (int r = 0; r < g.runs(); ++r) {
          const int c = g.base(l.group) + r * g.stride();
          const float4 v = *reinterpret_cast<const float4*>(row + r * g.stride());
          if (c < t.cols_left) add(0, v.x);
          if (c + 1 < t.cols_left) add(1, v.y);
          if (c + 2 < t.cols_left) add(2, v.z);
          if (c + 3 < t.cols_left) add(3, v.w);
        }
      } else {
        constexpr FtGroupShape g = Ft::row_groups();
        const float* col = tile + l.index;
#pragma unroll
        for (int r = 0; r < g.runs(); ++r) {
          const int row0 = g.base(l.group) + r * g.stride();
#pragma unroll
          for (int q = 0; q < 4; ++q)
            if (row0 + q < t.rows_left) add(q, col[(row0 + q) * kLdT]);
        }
      }
    }
    sum = (s[0] + s[1]) + (s[2] + s[3]);
    abs_sum = (a[0] + a[1]) + (a[2] + a[3]);
    max_abs = fmaxf(fmaxf(mx[0], mx[1]), fmaxf(mx[2], mx[3]));
  }

  // Adds the reference pieces [s_begin, s_end) of line `line` to its running checksum in
  // shared memory (and any checksum fault of this launch that fires in this check's K range,
  // as a fault in its register would), and returns the new value.
  __device__ static float update_reference(float* smem, const GemmParams<float>& p,
                                           const TileSpan& t, int line, const Line& l,
                                           int s_begin, int s_end, int64_t k_prev,
                                           int64_t k_tiles, int64_t num_k_tiles, int attempt) {
    const abft::FtParams& ft = p.ft;
    float r = smem[Ft::kRefOffset + line];
    if (inside(l, t)) {
      if (l.is_row) {
        const int64_t width = static_cast<int64_t>(p.tiles_n) * kGroupsN;
        const float* src =
            ft.row_ck + (t.m0 + l.index) + (static_cast<int64_t>(t.tn) * kGroupsN + l.group) * p.m;
#pragma unroll 4  // the loads of four pieces in flight together, added in order
        for (int s = s_begin; s < s_end; ++s) r += __ldg(src + s * p.m * width);
      } else {
        const int64_t width = static_cast<int64_t>(p.tiles_m) * kGroupsM;
        const float* src =
            ft.col_ck + (t.n0 + l.index) + (static_cast<int64_t>(t.tm) * kGroupsM + l.group) * p.n;
#pragma unroll 4
        for (int s = s_begin; s < s_end; ++s) r += __ldg(src + s * p.n * width);
      }
    }
    if (attempt == 0) {
      for (int f = 0; f < ft.num_faults; ++f) {
        const abft::FaultSpec& fs = ft.faults[f];
        if (!Ft::checksum_fault_fires(fs, k_prev, k_tiles, num_k_tiles)) continue;
        const int64_t rr = fs.row - t.m0, cc = fs.col - t.n0;
        if (rr < 0 || rr >= MTB || cc < 0 || cc >= NTB) continue;
        const int target =
            fs.target == abft::kTargetRowChecksum
                ? static_cast<int>(rr) + Ft::col_groups().group_of(static_cast<int>(cc)) * MTB
                : kRowLines + static_cast<int>(cc) +
                      Ft::row_groups().group_of(static_cast<int>(rr)) * NTB;
        if (target == line) r = abft::apply_fault(r, fs.kind, fs.bit, fs.value);
      }
    }
    smem[Ft::kRefOffset + line] = r;
    return r;
  }

  // mag[q] = sum over k < k_done and the elements of line tid + q * kThreads of |a| |b|: the
  // |A| sums of each row group and |B| sums of each column group for KTB k at a time, then
  // each line's products. The slow path (some residual beyond the cheap bound).
  __device__ static void magnitudes(float* smem, const GemmParams<float>& p, const TileSpan& t,
                                    int64_t k_done, float (&mag)[kItems]) {
    const int tid = Ft::fresh_tid();
    float* abs_sums = Ft::red(smem);  // [row group][kk], then [kGroupsM + column group][kk]
#pragma unroll
    for (int q = 0; q < kItems; ++q) mag[q] = 0.0f;
    for (int64_t kb = 0; kb < k_done; kb += KTB) {
      for (int e = tid; e < Ft::kSums; e += kThreads) abs_sums[e] = 0.0f;
      __syncthreads();
      for (int e = tid; e < KTB * (MTB + NTB); e += kThreads) {
        const int kk = e / (MTB + NTB), x = e % (MTB + NTB);
        const int64_t k = kb + kk;
        if (k >= k_done) continue;
        if (x < MTB) {
          if (x < t.rows_left)
            atomicAdd(&abs_sums[Ft::row_groups().group_of(x) * KTB + kk],
                      fabsf(Ft::op_a(p, t.m0 + x, k)));
        } else if (x - MTB < t.cols_left) {
          atomicAdd(&abs_sums[(kGroupsM + Ft::col_groups().group_of(x - MTB)) * KTB + kk],
                    fabsf(Ft::op_b(p, k, t.n0 + x - MTB)));
        }
      }
      __syncthreads();
#pragma unroll
      for (int q = 0; q < kItems; ++q) {
        const int line = tid + q * kThreads;
        if (line >= kLines) continue;
        const Line l = line_of(line);
        if (!inside(l, t)) continue;
        for (int kk = 0; kk < KTB && kb + kk < k_done; ++kk) {
          const int64_t k = kb + kk;
          mag[q] = l.is_row ? fmaf(fabsf(Ft::op_a(p, t.m0 + l.index, k)),
                                   abs_sums[(kGroupsM + l.group) * KTB + kk], mag[q])
                            : fmaf(abs_sums[l.group * KTB + kk],
                                   fabsf(Ft::op_b(p, k, t.n0 + l.index)), mag[q]);
        }
      }
      __syncthreads();
    }
  }

  // The verdict of cell c from its noted lines (after the barrier that ends the noting).
  __device__ static abft::Verdict cell_verdict(float* smem, int c) {
    const int rows = cell_ints(smem, kCellRows)[c], cols = cell_ints(smem, kCellCols)[c];
    if (rows == 0 && cols == 0) return abft::Verdict::kClean;
    const float rr = cell_words(smem, kCellRowRes)[c], cr = cell_words(smem, kCellColRes)[c];
    // As at block level: the two residuals of one wrong element agree up to their bounds and
    // the rounding of the two line sums that contain it.
    const int lengths = Ft::row_groups().width + Ft::col_groups().width;
    const float tolerance = cell_words(smem, kCellRowBound)[c] + cell_words(smem, kCellColBound)[c] +
                            (2.0f * lengths + 4.0f) * abft::kUnitRoundoff * fmaxf(fabsf(rr), fabsf(cr));
    return abft::classify(rows, cols, rr, cr, tolerance, true);
  }

  // The check after k_tiles K tiles (the previous one of this attempt came after k_prev), on
  // the tile in shared memory after a barrier that follows store_tile. Repairs located
  // elements in the tile (CORRECT mode), counts statistics; kRecompute is left to the caller.
  // Ends with a barrier. Out of line: inlined into the fast kernel, even reduced to a barrier,
  // it made ptxas spill 35-48 registers inside the main loop (measured with cuobjdump; the
  // block level's inline check does not, and no rule was found for why).
  __device__ __noinline__ static abft::Verdict check(float* smem, const GemmParams<float>& p,
                                        const TileSpan& t, int64_t k_prev, int64_t k_tiles,
                                        int64_t num_k_tiles, int attempt) {
    const int tid = Ft::fresh_tid();
    const abft::FtParams& ft = p.ft;
    const int64_t k_done = min(k_tiles * KTB, p.k);
    const int s_begin = Ft::pieces_done(ft, k_prev, num_k_tiles);
    const int s_end = Ft::pieces_done(ft, k_tiles, num_k_tiles);

    // 1. Every line against the bound its checksum and its own magnitudes give. A checksum
    // that is not finite comes from the inputs when the line's accumulators are not finite
    // either (as at block level).
    bool finite = true, suspect = false;
#pragma unroll 1
    for (int line = tid; line < kLines; line += kThreads) {
      const Line l = line_of(line);
      const float ck = update_reference(smem, p, t, line, l, s_begin, s_end, k_prev, k_tiles,
                                        num_k_tiles, attempt);
      float sum, abs_sum, max_abs;
      totals(smem, t, l, sum, abs_sum, max_abs);
      const float ck_estimate = isfinite(ck) ? fabsf(ck) : 0.0f;
      const float bound = abft::cheap_bound(fmaxf(ck_estimate, abs_sum - max_abs), k_done, length(l));
      finite = finite && (isfinite(ck) || isfinite(sum));
      suspect = suspect || abft::exceeds(ck - sum, bound);
    }
    bool all_finite = __syncthreads_and(finite);
    const bool any_suspect = __syncthreads_or(suspect);

    // 2. The rigorous bounds, and the lines beyond them noted in their cells.
    abft::Verdict v = all_finite ? abft::Verdict::kClean : abft::Verdict::kNonFinite;
    if (any_suspect && all_finite) {
      for (int c = tid; c < kCells; c += kThreads)
        cell_ints(smem, kCellRows)[c] = cell_ints(smem, kCellCols)[c] = 0;
      if (tid == 0) *counter(smem, kBadCells) = *counter(smem, kRecomputeCells) = 0;
      float mag[kItems];
      magnitudes(smem, p, t, k_done, mag);  // its barriers order the clearing above
#pragma unroll
      for (int q = 0; q < kItems; ++q) {
        const int line = tid + q * kThreads;
        if (line >= kLines) continue;
        const Line l = line_of(line);
        const float ck = smem[Ft::kRefOffset + line];
        float sum, abs_sum, max_abs;
        totals(smem, t, l, sum, abs_sum, max_abs);
        if (!isfinite(ck) && !isfinite(mag[q])) finite = false;  // overflow, not a fault
        const float residual = ck - sum;
        const float bound = abft::checksum_bound(mag[q], k_done, length(l));
        if (!abft::exceeds(residual, bound)) continue;
        const int c = cell_of(l);
        if (l.is_row) {
          atomicAdd(&cell_ints(smem, kCellRows)[c], 1);
          cell_ints(smem, kCellRow)[c] = l.index;
          cell_words(smem, kCellRowRes)[c] = residual;
          cell_words(smem, kCellRowBound)[c] = bound;
        } else {
          atomicAdd(&cell_ints(smem, kCellCols)[c], 1);
          cell_ints(smem, kCellCol)[c] = l.index;
          cell_words(smem, kCellColRes)[c] = residual;
          cell_words(smem, kCellColBound)[c] = bound;
        }
      }
      all_finite = __syncthreads_and(finite);
      // 3. The cells' verdicts: any cell that cannot be repaired recomputes the tile.
      if (all_finite) {
        for (int c = tid; c < kCells; c += kThreads) {
          const abft::Verdict cv = cell_verdict(smem, c);
          if (cv == abft::Verdict::kClean) continue;
          atomicAdd(counter(smem, kBadCells), 1);
          if (cv != abft::Verdict::kCorrectOne) atomicAdd(counter(smem, kRecomputeCells), 1);
        }
      }
      __syncthreads();
      v = !all_finite                           ? abft::Verdict::kNonFinite
          : *counter(smem, kRecomputeCells) > 0 ? abft::Verdict::kRecompute
          : *counter(smem, kBadCells) > 0       ? abft::Verdict::kCorrectOne
                                                : abft::Verdict::kClean;
    }

    const bool correct = ft.mode == abft::FtMode::kCorrect;
    if (v == abft::Verdict::kCorrectOne && correct) {
      // Each warp computes the located elements of every kWarps-th cell again.
      const int warp = tid / 32, lane = tid % 32;
      for (int c = warp; c < kCells; c += kWarps)
        if (cell_verdict(smem, c) == abft::Verdict::kCorrectOne)
          Ft::warp_recompute_element(smem, p, t, cell_ints(smem, kCellRow)[c],
                                     cell_ints(smem, kCellCol)[c], k_done, lane);
    }
    if (v == abft::Verdict::kCorrectOne || v == abft::Verdict::kRecompute) {
      const int action = Ft::fault_action(ft, v, attempt);
      for (int c = tid; c < kCells; c += kThreads) {
        const int rows = cell_ints(smem, kCellRows)[c], cols = cell_ints(smem, kCellCols)[c];
        if (rows == 0 && cols == 0) continue;
        const long long row = rows == 1 ? t.m0 + cell_ints(smem, kCellRow)[c] : -1;
        const long long col = cols == 1 ? t.n0 + cell_ints(smem, kCellCol)[c] : -1;
        const float res = cols > 0 ? cell_words(smem, kCellColRes)[c] : cell_words(smem, kCellRowRes)[c];
        Ft::record(ft, t, row, col, k_tiles, res, action);
      }
    }
    if (tid == 0)
      Ft::count_check(ft, v, static_cast<unsigned long long>(*counter(smem, kBadCells)), attempt);
    __syncthreads();  // the repaired tile is visible to all; misc may be reused
    return v;
  }
};

}  // namespace aegis::gemm::simt
