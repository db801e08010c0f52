// Fused block-level ABFT for the SIMT SGEMM kernel (Wu et al., ICS'23, threadblock level).
//
// Per K tile (slice) of KTB steps, once the slice is in shared memory:
//   encode: asum[k] = sum_i op(A)(i, k) over the tile's MTB rows and bsum[k] = sum_j op(B)(k, j)
//           over its NTB columns, one warp-reduced pair of sums per warp;
//   update: one thread per line (tile row or column) adds the slice to its checksum,
//           row i: sum_k op(A)(i, k) bsum[k]; column j: sum_k asum[k] op(B)(k, j).
// Both read the stage the main loop reads, so FT instances keep three stages: a slice is
// encoded in the iteration that computes it and its checksums are updated in the next, while
// the stage written at the end of that iteration is a third one (no extra barrier).
//
// A check compares each checksum with the sum of the accumulators of its line (shared-memory
// atomics). Residuals within a bound taken from the checksum itself are rounding for sure;
// otherwise a magnitude pass over the operands gives each line's rigorous rounding bound
// (abft/ft_check.h), and lines beyond it are bad. One bad row and one bad column locate one
// wrong element, repaired by the residual; any other pattern recomputes the tile.
//
// The epilogue computes alpha acc + beta C, checks its row and column sums against
// alpha (sums of acc) + beta (sums of the old C) before storing, and reads the stored values
// back: this covers the scaling and the store.
#pragma once

#include <cstdint>

#include "abft/ft_check.h"
#include "abft/ft_params.h"
#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {

// Where this thread's fragment sits in the tile: element acc[fi * 4 + i][fj * 4 + j] is tile
// row row0 + fi * row_stride + i, tile column col0 + fj * col_stride + j.
struct FragmentMap {
  int row0, col0;
  int row_stride, col_stride;
};

// The tile being computed: its origin, the K range and how much of it lies in the matrix.
struct TileSpan {
  int64_t m0, n0;
  int64_t k_begin, k_end;
  int rows_left, cols_left;  // clamped to int; >= the tile size means a full tile
};

template <class Cfg, bool kTransA, bool kTransB>
struct FtBlock {
  static constexpr int MTB = Cfg::kMTB, NTB = Cfg::kNTB, KTB = Cfg::kKTB;
  static constexpr int MT = Cfg::kMT, NT = Cfg::kNT;
  static constexpr int kFragM = MT / 4, kFragN = NT / 4;
  static constexpr int kThreads = Cfg::kThreads, kWarps = kThreads / 32;
  static constexpr int kLines = MTB + NTB;  // rows first, then columns
  static constexpr int kItems = (kLines + kThreads - 1) / kThreads;
  static constexpr int kSums = 2 * KTB;  // asum[0..KTB) then bsum[0..KTB)

  // Shared memory after the three stages (in floats).
  static constexpr int kStages = 3;
  static constexpr int kStageFloatsA = KTB * Cfg::kLdAs, kStageFloatsB = KTB * Cfg::kLdBs;
  static constexpr int kSumsOffset = kStages * (kStageFloatsA + kStageFloatsB);
  static constexpr int kRedOffset = kSumsOffset + kStages * kSums;
  static constexpr int kRedArrays = 4;  // epilogue: sum acc, sum old C, magnitude, stored
  static constexpr int kMiscOffset = kRedOffset + kRedArrays * kLines;
  static constexpr int kMiscWords = 8;
  static constexpr int kSmemBytes = (kMiscOffset + kMiscWords) * 4;

  static_assert(MTB % 32 == 0 && NTB % 32 == 0, "a warp's lines are all rows or all columns");
  static_assert(kLines >= kSums, "the magnitude pass keeps its sums in the first red array");

  // Indices into the misc words.
  enum { kBadRows = 0, kBadCols, kBadRow, kBadCol, kRowResidual, kColResidual, kRowBound, kColBound };

  // Everything is static: the kernel keeps the checksums (ck[q]: line tid + q * kThreads)
  // in its own registers, and the rarely run parts are out-of-line functions that get
  // copies of the accumulators, so their code does not weigh on the main loop's registers.
  __device__ __forceinline__ static float* sums(float* smem) { return smem + kSumsOffset; }
  // (kRedArrays, kLines)
  __device__ __forceinline__ static float* red(float* smem) { return smem + kRedOffset; }
  // kMiscWords: counters and indices as int, residuals and bounds as float
  __device__ __forceinline__ static float* misc(float* smem) { return smem + kMiscOffset; }
  __device__ __forceinline__ static int* misc_int(float* smem, int w) {
    return reinterpret_cast<int*>(misc(smem) + w);
  }

  // ---- encode and update ---------------------------------------------------------------

  // Partial sum of one shared-memory row of LEN floats by this lane (float4 where the row
  // is long enough, so a warp reads whole 512-byte lines).
  template <int LEN>
  __device__ __forceinline__ static float row_partial(const float* row, int lane) {
    float s = 0.0f;
    if constexpr (LEN % 128 == 0) {
#pragma unroll
      for (int v = 0; v < LEN / 128; ++v) {
        const float4 x = reinterpret_cast<const float4*>(row)[lane + 32 * v];
        s += (x.x + x.y) + (x.z + x.w);
      }
    } else {
#pragma unroll
      for (int v = 0; v < LEN / 32; ++v) s += row[lane + 32 * v];
    }
    return s;
  }

  // Lane's partial of sum q (q < KTB: row q of the A stage; else row q - KTB of the B stage).
  __device__ __forceinline__ static float sum_partial(const float* As_s, const float* Bs_s, int q,
                                                      int lane) {
    if (q < KTB) return row_partial<MTB>(As_s + q * Cfg::kLdAs, lane);
    return row_partial<NTB>(Bs_s + (q - KTB) * Cfg::kLdBs, lane);
  }

  // Encodes the slice in stage `stage`: warp w reduces sums w, w + kWarps, ... two at a time
  // (one shuffle exchange hands each half-warp one of the pair, then four steps finish both).
  // Where there are as many warps as k steps, warp w takes exactly asum[w] and bsum[w]: no
  // loop and no branch, so the compiler can interleave this work with the FFMAs around it.
  __device__ __forceinline__ static void encode(float* smem, const float* As_s, const float* Bs_s,
                                                int stage) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float* out = sums(smem) + stage * kSums;
    auto reduce_pair = [&](float x0, float x1) {
      float keep = lane < 16 ? x0 : x1;
      const float send = lane < 16 ? x1 : x0;
      keep += __shfl_xor_sync(0xffffffffu, send, 16);
#pragma unroll
      for (int off = 8; off > 0; off /= 2) keep += __shfl_xor_sync(0xffffffffu, keep, off);
      return keep;  // lane 0: the sum of x0, lane 16: the sum of x1
    };
    if constexpr (KTB == kWarps) {
      const float keep = reduce_pair(row_partial<MTB>(As_s + warp * Cfg::kLdAs, lane),
                                     row_partial<NTB>(Bs_s + warp * Cfg::kLdBs, lane));
      if (lane == 0) out[warp] = keep;
      if (lane == 16) out[KTB + warp] = keep;
    } else {
      for (int q0 = warp; q0 < kSums; q0 += 2 * kWarps) {
        const int q1 = q0 + kWarps;
        const float keep = reduce_pair(sum_partial(As_s, Bs_s, q0, lane),
                                       q1 < kSums ? sum_partial(As_s, Bs_s, q1, lane) : 0.0f);
        if (lane == 0) out[q0] = keep;
        if (lane == 16 && q1 < kSums) out[q1] = keep;
      }
    }
  }

  // Adds the slice in stage `stage` (encoded in the previous iteration) to the checksums when
  // `apply` (computed either way and selected, so that no branch splits the FFMA stream; a
  // stage not yet written holds garbage that the select discards). Items whose lines are all
  // rows or all columns, which the unrolled loop knows at compile time, take no branch either.
  __device__ __forceinline__ static void update(float (&ck)[kItems], float* smem,
                                                const float* As_s, const float* Bs_s, int stage,
                                                bool apply) {
    const float* s = sums(smem) + stage * kSums;
    auto row_sum = [&](int i, float c) {
#pragma unroll
      for (int k = 0; k < KTB; ++k) c = fmaf(As_s[k * Cfg::kLdAs + i], s[KTB + k], c);
      return c;
    };
    auto col_sum = [&](int j, float c) {
#pragma unroll
      for (int k = 0; k < KTB; ++k) c = fmaf(s[k], Bs_s[k * Cfg::kLdBs + j], c);
      return c;
    };
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const int line = threadIdx.x + q * kThreads;
      if ((q + 1) * kThreads <= MTB) {  // all rows
        const float c = row_sum(line, ck[q]);
        ck[q] = apply ? c : ck[q];
      } else if (q * kThreads >= MTB) {  // columns, past the last one for some threads
        const bool valid = line < kLines;
        const float c = col_sum(valid ? line - MTB : 0, ck[q]);
        ck[q] = apply && valid ? c : ck[q];
      } else if (apply) {  // rows and columns in one item (warp-uniform: MTB % 32 == 0)
        if (line < MTB)
          ck[q] = row_sum(line, ck[q]);
        else if (line < kLines)
          ck[q] = col_sum(line - MTB, ck[q]);
      }
    }
  }

  // ---- fault injection -------------------------------------------------------------------

  // Applies the faults of this launch that fire after K tile kt (or, kt < 0, those of the
  // epilogue are handled by the epilogue itself) to this thread's accumulators and
  // checksums. Called only when the launch has faults: costs nothing otherwise.
  __device__ __noinline__ static void inject(float (&acc)[MT][NT], float (&ck)[kItems],
                                             const abft::FtParams& ft, int64_t kt,
                                             int64_t num_k_tiles, FragmentMap fm, TileSpan t) {
    for (int f = 0; f < ft.num_faults; ++f) {
      const abft::FaultSpec& fs = ft.faults[f];
      if (fs.k_step < 0) continue;
      const int64_t at = fs.k_step < num_k_tiles ? fs.k_step : num_k_tiles - 1;
      if (at != kt) continue;
      const int64_t r = fs.row - t.m0, c = fs.col - t.n0;
      if (r < 0 || r >= MTB || c < 0 || c >= NTB) continue;
      if (fs.target == abft::kTargetAccumulator) {
#pragma unroll
        for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
          for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
              for (int j = 0; j < 4; ++j)
                if (fm.row0 + fi * fm.row_stride + i == r && fm.col0 + fj * fm.col_stride + j == c)
                  acc[fi * 4 + i][fj * 4 + j] =
                      abft::apply_fault(acc[fi * 4 + i][fj * 4 + j], fs.kind, fs.bit, fs.value);
      } else {
        const int line = fs.target == abft::kTargetRowChecksum ? static_cast<int>(r)
                                                                : MTB + static_cast<int>(c);
#pragma unroll
        for (int q = 0; q < kItems; ++q)
          if (threadIdx.x + q * kThreads == line)
            ck[q] = abft::apply_fault(ck[q], fs.kind, fs.bit, fs.value);
      }
    }
  }

  // ---- checking ----------------------------------------------------------------------------

  __device__ static float op_a(const GemmParams<float>& p, int64_t i, int64_t k) {
    return kTransA ? __ldg(p.A + k + i * p.lda) : __ldg(p.A + i + k * p.lda);
  }
  __device__ static float op_b(const GemmParams<float>& p, int64_t k, int64_t j) {
    return kTransB ? __ldg(p.B + j + k * p.ldb) : __ldg(p.B + k + j * p.ldb);
  }

  // mag[q] = sum over the line's k in [k_begin, k_begin + k_done) and its tile elements of
  // |a| |b|, slice by slice: the slice's |A| column sums and |B| row sums first (warp sums,
  // then one shared atomic per warp), then each line's products. The slow path: it runs
  // only when some residual is beyond the bound the checksum alone gives.
  __device__ static void magnitudes(float* smem, const GemmParams<float>& p, const TileSpan& t,
                                    int64_t k_done, float (&mag)[kItems]) {
    const int tid = threadIdx.x, lane = tid % 32;
    float* abs_sums = red(smem);  // (kSums): |A| sums then |B| sums of the current slice
#pragma unroll
    for (int q = 0; q < kItems; ++q) mag[q] = 0.0f;
    const int64_t k_stop = t.k_begin + k_done;
    for (int64_t kb = t.k_begin; kb < k_stop; kb += KTB) {
      for (int e = tid; e < kSums; e += kThreads) abs_sums[e] = 0.0f;
      __syncthreads();
      for (int e = tid; e < KTB * kLines; e += kThreads) {  // a warp: one kk, one operand
        const int kk = e / kLines, line = e % kLines;
        const int64_t k = kb + kk;
        float v = 0.0f;
        if (k < k_stop) {
          if (line < MTB) {
            if (line < t.rows_left) v = fabsf(op_a(p, t.m0 + line, k));
          } else if (line - MTB < t.cols_left) {
            v = fabsf(op_b(p, k, t.n0 + line - MTB));
          }
        }
#pragma unroll
        for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
        if (lane == 0) atomicAdd(&abs_sums[(line < MTB ? 0 : KTB) + kk], v);
      }
      __syncthreads();
#pragma unroll
      for (int q = 0; q < kItems; ++q) {
        const int line = tid + q * kThreads;
        if (line >= kLines) continue;
        for (int kk = 0; kk < KTB && kb + kk < k_stop; ++kk) {
          const int64_t k = kb + kk;
          if (line < MTB) {
            if (line < t.rows_left)
              mag[q] = fmaf(fabsf(op_a(p, t.m0 + line, k)), abs_sums[KTB + kk], mag[q]);
          } else if (line - MTB < t.cols_left) {
            mag[q] = fmaf(abs_sums[kk], fabsf(op_b(p, k, t.n0 + line - MTB)), mag[q]);
          }
        }
      }
      __syncthreads();
    }
  }

  // Raises dst[line] (as the bits of a non-negative float) to this thread's row and column
  // maxima of |acc| (rows first).
  __device__ __forceinline__ static void max_line_abs(float* dst, const float (&acc)[MT][NT],
                                                      const FragmentMap& fm) {
    unsigned* bits = reinterpret_cast<unsigned*>(dst);
#pragma unroll
    for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        float m = 0.0f;
#pragma unroll
        for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
          for (int j = 0; j < 4; ++j) m = fmaxf(m, fabsf(acc[fi * 4 + i][fj * 4 + j]));
        atomicMax(&bits[fm.row0 + fi * fm.row_stride + i], __float_as_uint(m));
      }
#pragma unroll
    for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        float m = 0.0f;
#pragma unroll
        for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
          for (int i = 0; i < 4; ++i) m = fmaxf(m, fabsf(acc[fi * 4 + i][fj * 4 + j]));
        atomicMax(&bits[MTB + fm.col0 + fj * fm.col_stride + j], __float_as_uint(m));
      }
  }

  // Adds this thread's row and column sums of v(fi, i, fj, j) into dst[line] (rows first).
  template <class Value>
  __device__ __forceinline__ static void add_line_sums(float* dst, const FragmentMap& fm,
                                                       Value v) {
#pragma unroll
    for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        float s = 0.0f;
#pragma unroll
        for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
          for (int j = 0; j < 4; ++j) s += v(fi, i, fj, j);
        atomicAdd(&dst[fm.row0 + fi * fm.row_stride + i], s);
      }
#pragma unroll
    for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        float s = 0.0f;
#pragma unroll
        for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
          for (int i = 0; i < 4; ++i) s += v(fi, i, fj, j);
        atomicAdd(&dst[MTB + fm.col0 + fj * fm.col_stride + j], s);
      }
  }

  // Records a fault (thread 0 only) in the handle's statistics.
  __device__ static void record(const abft::FtParams& ft, const TileSpan& t, long long row,
                                long long col, long long k_step, float residual, int action) {
    abft::FtDeviceStats* st = ft.stats;
    const unsigned long long slot = atomicAdd(&st->record_count, 1ull) % abft::kMaxRecords;
    abft::FtRecord& r = st->records[slot];
    r.call = ft.call;
    r.tile_row = t.m0;
    r.tile_col = t.n0;
    r.row = row;
    r.col = col;
    r.k_step = k_step;
    r.residual = residual;
    r.action = action;
  }

  // Classifies this thread's residuals (residual[q] of line tid + q * kThreads, against
  // bound[q]) across the block, leaving the single bad row/column in misc. Uniform result.
  __device__ static abft::Verdict classify_lines(float* smem, const float (&residual)[kItems],
                                                 const float (&bound)[kItems],
                                                 bool inputs_finite) {
    const int tid = threadIdx.x;
    float* misc = FtBlock::misc(smem);
    auto misc_int = [&](int w) { return FtBlock::misc_int(smem, w); };
    if (tid == 0) *misc_int(kBadRows) = *misc_int(kBadCols) = 0;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const int line = tid + q * kThreads;
      if (line >= kLines || !abft::exceeds(residual[q], bound[q])) continue;
      if (line < MTB) {
        atomicAdd(misc_int(kBadRows), 1);
        *misc_int(kBadRow) = line;
        misc[kRowResidual] = residual[q];
        misc[kRowBound] = bound[q];
      } else {
        atomicAdd(misc_int(kBadCols), 1);
        *misc_int(kBadCol) = line - MTB;
        misc[kColResidual] = residual[q];
        misc[kColBound] = bound[q];
      }
    }
    const bool all_finite = __syncthreads_and(inputs_finite);
    // The two residuals of one wrong element agree up to their bounds, plus the rounding of
    // line sums that contain the wrong element itself (which may dwarf everything else).
    const float rr = misc[kRowResidual], cr = misc[kColResidual];
    const float tolerance = misc[kRowBound] + misc[kColBound] +
                            (2.0f * kLines + 4.0f) * abft::kUnitRoundoff * fmaxf(fabsf(rr), fabsf(cr));
    return abft::classify(*misc_int(kBadRows), *misc_int(kBadCols), rr, cr, tolerance, all_finite);
  }

  // Sets the accumulator of tile element (r, c) to its product over the first k_done k of the
  // tile's range, computed again from the operands by the owner's warp. Adding the residual
  // instead would fail for the faults that matter most: a flipped exponent bit makes the
  // element dwarf its column, whose sum then no longer holds the other elements.
  __device__ static void recompute_element(float (&acc)[MT][NT], const GemmParams<float>& p,
                                           const FragmentMap& fm, const TileSpan& t, int r, int c,
                                           int64_t k_done) {
    bool mine = false;
#pragma unroll
    for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
          for (int j = 0; j < 4; ++j)
            mine = mine || (fm.row0 + fi * fm.row_stride + i == r &&
                            fm.col0 + fj * fm.col_stride + j == c);
    if (__ballot_sync(0xffffffffu, mine) == 0) return;  // not this warp's element
    const int lane = threadIdx.x % 32;
    float dot = 0.0f;
    for (int64_t k = t.k_begin + lane; k < t.k_begin + k_done; k += 32)
      dot = fmaf(op_a(p, t.m0 + r, k), op_b(p, k, t.n0 + c), dot);
#pragma unroll
    for (int off = 16; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    if (!mine) return;
#pragma unroll
    for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (fm.row0 + fi * fm.row_stride + i == r && fm.col0 + fj * fm.col_stride + j == c)
              acc[fi * 4 + i][fj * 4 + j] = dot;
  }

  // Checks the accumulators after k_tiles K tiles. kCorrectOne is repaired here (CORRECT
  // mode); kRecompute is left to the caller. Statistics are counted here. All threads call.
  __device__ __noinline__ static abft::Verdict check(float (&acc)[MT][NT],
                                                      const float (&ck)[kItems], float* smem,
                                                      const GemmParams<float>& p, FragmentMap fm,
                                                      TileSpan t, int64_t k_tiles, int attempt) {
    const int tid = threadIdx.x;
    float* red = FtBlock::red(smem);
    float* misc = FtBlock::misc(smem);
    auto misc_int = [&](int w) { return FtBlock::misc_int(smem, w); };
    const int64_t k_done = min(k_tiles * KTB, t.k_end - t.k_begin);
    float* s_abs = red + kLines;      // sums of |acc| per line
    float* s_max = red + 2 * kLines;  // largest |acc| per line
    for (int e = tid; e < 3 * kLines; e += kThreads) red[e] = 0.0f;
    __syncthreads();
    add_line_sums(red, fm, [&](int fi, int i, int fj, int j) { return acc[fi * 4 + i][fj * 4 + j]; });
    add_line_sums(s_abs, fm,
                  [&](int fi, int i, int fj, int j) { return fabsf(acc[fi * 4 + i][fj * 4 + j]); });
    max_line_abs(s_max, acc, fm);
    __syncthreads();

    float residual[kItems], bound[kItems];
    // finite: no line of this thread has non-finite inputs. A checksum that is not finite
    // comes from the inputs (Inf/NaN, or overflow) when the line's accumulators are not
    // finite either; beside finite accumulators it is a fault in the checksum (its residual
    // is not finite, so the line is bad), unless the magnitude pass below finds that the
    // line's magnitude itself overflows.
    bool finite = true, suspect = false;
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const int line = tid + q * kThreads;
      residual[q] = 0.0f;
      bound[q] = 0.0f;
      if (line >= kLines) continue;
      const int len = line < MTB ? NTB : MTB;
      residual[q] = ck[q] - red[line];
      // Two lower estimates of the line's magnitude S: |ck|, and the sum of |acc| without its
      // largest term (so that one wrong element cannot raise it). The second keeps lines whose
      // checksum happens to be near zero off the slow path.
      const float rest = s_abs[line] - s_max[line];
      // (An infinite checksum is no estimate: it would make the bound infinite and hide
      // itself.)
      const float ck_estimate = isfinite(ck[q]) ? fabsf(ck[q]) : 0.0f;
      bound[q] = abft::cheap_bound(fmaxf(ck_estimate, rest), k_done, len);
      finite = finite && (isfinite(ck[q]) || isfinite(red[line]));
      suspect = suspect || abft::exceeds(residual[q], bound[q]);
    }
    // Everyone has read red: the magnitude pass may reuse it.
    if (__syncthreads_or(suspect) && __syncthreads_and(finite)) {
      float mag[kItems];
      magnitudes(smem, p, t, k_done, mag);
#pragma unroll
      for (int q = 0; q < kItems; ++q) {
        const int line = tid + q * kThreads;
        if (line >= kLines) continue;
        bound[q] = abft::rounding_bound(mag[q], k_done, line < MTB ? NTB : MTB);
        if (!isfinite(ck[q]) && !isfinite(mag[q])) finite = false;  // overflow, not a fault
      }
    }
    const abft::Verdict v = classify_lines(smem, residual, bound, finite);
    const abft::FtParams& ft = p.ft;
    const bool correct = ft.mode == abft::FtMode::kCorrect;
    if (v == abft::Verdict::kCorrectOne && correct)
      recompute_element(acc, p, fm, t, *misc_int(kBadRow), *misc_int(kBadCol), k_done);
    if (tid == 0) {
      abft::FtDeviceStats* st = ft.stats;
      atomicAdd(&st->checks, 1ull);
      if (v == abft::Verdict::kNonFinite) {
        atomicAdd(&st->nonfinite, 1ull);
      } else if (v != abft::Verdict::kClean) {
        atomicAdd(&st->detected, 1ull);
        const bool one = v == abft::Verdict::kCorrectOne;
        const int rows = *misc_int(kBadRows), cols = *misc_int(kBadCols);
        const long long row = one || (rows == 1 && cols == 0) ? t.m0 + *misc_int(kBadRow) : -1;
        const long long col = one || (cols == 1 && rows == 0) ? t.n0 + *misc_int(kBadCol) : -1;
        const float res = cols > 0 ? misc[kColResidual] : misc[kRowResidual];
        int action = abft::kActionReported;
        if (correct && one) {
          action = abft::kActionCorrected;
          atomicAdd(&st->corrected, 1ull);
        } else if (correct) {
          action = attempt == 0 ? abft::kActionRecomputed : abft::kActionUnrecovered;
          atomicAdd(attempt == 0 ? &st->recomputed : &st->unrecovered, 1ull);
        }
        record(ft, t, row, col, k_tiles, res, action);
      }
    }
    __syncthreads();  // misc and red are free again
    return v;
  }

  // ---- epilogue ----------------------------------------------------------------------------

  // The epilogue, checked before anything is stored: out = alpha acc + beta C for this thread's
  // fragment (in a stack array: this runs once per tile), whose row and column sums must match
  // alpha (acc sums) + beta (old C sums). Any bad line (CORRECT mode) recomputes every out
  // value from acc and the old C, which is still in memory. After the store each thread reads
  // its elements back and rewrites any that differ from what it meant to store. All threads
  // call.
  __device__ __noinline__ static void epilogue(const float (&acc)[MT][NT], float* smem,
                                               const GemmParams<float>& p, FragmentMap fm,
                                               TileSpan t, float alpha, float beta) {
    const int tid = threadIdx.x;
    float* red = FtBlock::red(smem);
    float* misc = FtBlock::misc(smem);
    auto misc_int = [&](int w) { return FtBlock::misc_int(smem, w); };
    const bool read_d = beta != 0.0f;
    float* s_acc = red;
    float* s_old = red + kLines;
    float* s_mag = red + 2 * kLines;
    float* s_out = red + 3 * kLines;
    float* C = p.C + t.m0 + t.n0 * p.ldc;
    auto row_of = [&](int fi, int i) { return fm.row0 + fi * fm.row_stride + i; };
    auto col_of = [&](int fj, int j) { return fm.col0 + fj * fm.col_stride + j; };
    auto inside = [&](int fi, int i, int fj, int j) {
      return row_of(fi, i) < t.rows_left && col_of(fj, j) < t.cols_left;
    };
    auto at = [&](int fi, int i, int fj, int j) -> float* {
      return C + row_of(fi, i) + static_cast<int64_t>(col_of(fj, j)) * p.ldc;
    };
    auto old_c = [&](int fi, int i, int fj, int j) {
      return read_d && inside(fi, i, fj, j) ? *at(fi, i, fj, j) : 0.0f;
    };
    const abft::FtParams& ft = p.ft;
    float out[MT][NT];
    auto compute_out = [&](bool with_faults) {
#pragma unroll
      for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
              float o = alpha * acc[fi * 4 + i][fj * 4 + j];
              if (read_d) o = fmaf(beta, old_c(fi, i, fj, j), o);
              if (with_faults) {
                for (int f = 0; f < ft.num_faults; ++f) {
                  const abft::FaultSpec& fs = ft.faults[f];
                  if (fs.k_step == abft::kKStepEpilogue && fs.target == abft::kTargetAccumulator &&
                      fs.row == t.m0 + row_of(fi, i) && fs.col == t.n0 + col_of(fj, j))
                    o = abft::apply_fault(o, fs.kind, fs.bit, fs.value);
                }
              }
              out[fi * 4 + i][fj * 4 + j] = inside(fi, i, fj, j) ? o : 0.0f;
            }
    };

    for (int e = tid; e < kRedArrays * kLines; e += kThreads) red[e] = 0.0f;
    __syncthreads();
    compute_out(ft.num_faults > 0);
    add_line_sums(s_acc, fm, [&](int fi, int i, int fj, int j) {
      return inside(fi, i, fj, j) ? acc[fi * 4 + i][fj * 4 + j] : 0.0f;
    });
    if (read_d) add_line_sums(s_old, fm, old_c);
    add_line_sums(s_mag, fm, [&](int fi, int i, int fj, int j) {
      if (!inside(fi, i, fj, j)) return 0.0f;
      return fabsf(alpha * acc[fi * 4 + i][fj * 4 + j]) + fabsf(beta * old_c(fi, i, fj, j));
    });
    add_line_sums(s_out, fm, [&](int fi, int i, int fj, int j) { return out[fi * 4 + i][fj * 4 + j]; });
    __syncthreads();

    float residual[kItems], bound[kItems];
    bool finite = true;  // non-finite expectations come from the inputs: IEEE decides
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const int line = tid + q * kThreads;
      residual[q] = 0.0f;
      bound[q] = 0.0f;
      if (line >= kLines) continue;
      const float expect = fmaf(beta, s_old[line], alpha * s_acc[line]);
      residual[q] = expect - s_out[line];
      // A handful of roundings per element and the line sums: k_done = 4 covers them.
      bound[q] = abft::rounding_bound(s_mag[line], 4, line < MTB ? NTB : MTB);
      finite = finite && isfinite(expect) && isfinite(s_mag[line]);
    }
    const abft::Verdict v = classify_lines(smem, residual, bound, finite);
    // kNonFinite: stored as computed; the K-loop check already counted the tile's inputs.
    const bool correct = ft.mode == abft::FtMode::kCorrect;
    const bool bad = v == abft::Verdict::kCorrectOne || v == abft::Verdict::kRecompute;
    if (bad && correct) compute_out(false);
    if (tid == 0) {
      abft::FtDeviceStats* st = ft.stats;
      atomicAdd(&st->checks, 1ull);
      if (bad) {
        atomicAdd(&st->detected, 1ull);
        const bool one = v == abft::Verdict::kCorrectOne;
        int action = abft::kActionReported;
        if (correct) {
          action = one ? abft::kActionCorrected : abft::kActionRecomputed;
          atomicAdd(one ? &st->corrected : &st->recomputed, 1ull);
        }
        const int rows = *misc_int(kBadRows), cols = *misc_int(kBadCols);
        record(ft, t, one || (rows == 1 && cols == 0) ? t.m0 + *misc_int(kBadRow) : -1,
               one || (cols == 1 && rows == 0) ? t.n0 + *misc_int(kBadCol) : -1,
               abft::kKStepEpilogue, cols > 0 ? misc[kColResidual] : misc[kRowResidual], action);
      }
    }
    // Every thread has read its old C: store, then check what landed.
    __syncthreads();
    bool rewrote = false;
#pragma unroll
    for (int pass = 0; pass < 2; ++pass) {
#pragma unroll
      for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
              if (!inside(fi, i, fj, j)) continue;
              volatile float* d = at(fi, i, fj, j);
              const float o = out[fi * 4 + i][fj * 4 + j];
              if (pass == 0) {
                *d = o;
              } else if (__float_as_uint(*d) != __float_as_uint(o)) {
                *d = o;
                rewrote = true;
              }
            }
    }
    if (__syncthreads_or(rewrote) && tid == 0 && correct) {
      atomicAdd(&ft.stats->detected, 1ull);
      atomicAdd(&ft.stats->corrected, 1ull);
      record(ft, t, -1, -1, abft::kKStepEpilogue, 0.0f, abft::kActionCorrected);
    }
  }
};

}  // namespace aegis::gemm::simt
