// Fused ABFT for the SIMT SGEMM kernel (after Wu et al., ICS'23), at block level here; the
// finer levels (ft_groups.h) change only the check (ft_group_check.cuh).
//
// Checksums of the C tile: for each tile row i, sum_k op(A)(i, k) bsum[k], and for each tile
// column j, sum_k asum[k] op(B)(k, j), where asum[k] sums op(A)(i, k) over the tile's MTB rows
// and bsum[k] sums op(B)(k, j) over its NTB columns. They are properties of the inputs alone,
// so they are formed before the GEMM, for every tile line at once (ft_checksums.h: the
// operand sums, then two narrow GEMMs, M x tiles_n and N x tiles_m), in pieces of K that
// match the checks. The kernel's K loop is then the plain kernel's (accumulate_k_range),
// with nothing of FT in it: every FT value held or computed next to the FFMAs cost spills
// and issue slots, and the in-loop update cost 8-15 % (docs/perf-notes.md FT-2 to FT-4).
//
// A check (after the K loop, and between K chunks when a verify interval is set) writes the
// accumulators into shared memory as a row-major tile, and each thread then walks its lines
// (rows, then columns) there: the sum, the sum of magnitudes and the largest magnitude, in a
// fixed order (the same bits every run). Each line's sum is compared with its reference
// checksum (the pieces done so far, added in order). Residuals within a bound taken from the
// checksum and the line's magnitudes are rounding for sure; otherwise a magnitude pass over
// the operands gives each line's rigorous rounding bound (abft/ft_check.h), and lines beyond
// it are bad. One bad row and one bad column locate one wrong element, which is recomputed
// from A and B; any other pattern recomputes the tile.
//
// The epilogue works from the same shared-memory tile: each thread takes runs of 32 columns
// of one row (a warp's 32 rows read and write C in 128-byte lines), computes
// out = alpha acc + beta C, checks the run's sum against alpha (sum of acc) + beta (sum of the
// old C) before storing, stores, and reads the run back: this covers the scaling and the
// store, and the old C is still in memory when a run must be computed again.
#pragma once

#include <cstdint>

#include "abft/ft_check.h"
#include "abft/ft_params.h"
#include "gemm/simt/ft_group_check.cuh"
#include "gemm/simt/ft_groups.h"
#include "gemm/simt/ft_tile.h"
#include "gemm/simt/gemm_params.h"
#include "gemm/simt/sgemm_kernel.cuh"

namespace aegis::gemm::simt {

// kLevel: what one reference checksum covers (ft_groups.h). The block level's check is
// check() below; the finer levels' is FtGroupCheck (ft_group_check.cuh). The K loop, fault
// injection and the epilogue are the same at every level.
template <class Cfg, bool kTransA, bool kTransB, FtLevel kLevel = FtLevel::kBlock>
struct FtBlock {
  static constexpr int MTB = Cfg::kMTB, NTB = Cfg::kNTB, KTB = Cfg::kKTB;
  static constexpr int MT = Cfg::kMT, NT = Cfg::kNT;
  static constexpr int kFragM = MT / 4, kFragN = NT / 4;
  static constexpr int kThreads = Cfg::kThreads;

  // The checksum groups of the tile's rows and of its columns.
  __host__ __device__ static constexpr FtGroupShape row_groups() {
    return ft_group_shape(kLevel, MTB, Cfg::kMW, MT);
  }
  __host__ __device__ static constexpr FtGroupShape col_groups() {
    return ft_group_shape(kLevel, NTB, Cfg::kNW, NT);
  }
  static constexpr int kGroupsM = row_groups().groups(), kGroupsN = col_groups().groups();
  // Lines: row i over column group g is line i + g * MTB; column j over row group g is line
  // kRowLines + j + g * NTB. At block level: the MTB rows, then the NTB columns.
  static constexpr int kRowLines = MTB * kGroupsN;
  static constexpr int kLines = kRowLines + NTB * kGroupsM;
  static constexpr int kCells = kGroupsM * kGroupsN;  // a row group crossing a column group
  static constexpr int kItems = (kLines + kThreads - 1) / kThreads;
  // The magnitude pass: |A| summed over each row group, then |B| over each column group, for
  // the KTB k of a slice.
  static constexpr int kSums = KTB * (kGroupsM + kGroupsN);
  static constexpr int kRun = 32;        // columns per epilogue run
  static constexpr int kRuns = NTB / kRun;

  // Shared memory (in floats): the tile, row-major with rows of kLdT floats, over the main
  // loop's stages (used one after the other, barriers between); then the running reference
  // checksums (kLines), the magnitude pass's sums and the misc words (the finer levels add
  // eight per cell). The 4 floats of row padding make a warp's float4 accesses to 8
  // consecutive rows cover all 32 banks.
  static constexpr int kLdT = NTB + 4;
  static constexpr int kTileFloats = MTB * kLdT;
  static constexpr int kStageFloats = Cfg::kSmemBytes / 4;
  static constexpr int kRefOffset = kTileFloats > kStageFloats ? kTileFloats : kStageFloats;
  static constexpr int kRedOffset = kRefOffset + kLines;
  static constexpr int kMiscOffset = kRedOffset + kSums;
  static constexpr int kMiscWords = kLevel == FtLevel::kBlock ? 8 : 8 + 8 * kCells;
  static constexpr int kStateOffset = kMiscOffset + kMiscWords;  // a LoopState, 8-byte aligned
  static constexpr int kSmemBytes = (kStateOffset + 4) * 4;  // LoopState: 16 bytes

  static_assert(MTB % 32 == 0 && NTB % kRun == 0, "a warp's epilogue rows are whole, runs whole");
  static_assert(kRefOffset % 4 == 0, "the tile moves as float4");

  // Indices into the misc words.
  enum { kBadRows = 0, kBadCols, kBadRow, kBadCol, kRowResidual, kColResidual, kRowBound, kColBound };

  __device__ __forceinline__ static float* red(float* smem) { return smem + kRedOffset; }
  // kMiscWords: counters and indices as int, residuals and bounds as float
  __device__ __forceinline__ static float* misc(float* smem) { return smem + kMiscOffset; }
  __device__ __forceinline__ static int* misc_int(float* smem, int w) {
    return reinterpret_cast<int*>(misc(smem) + w);
  }

  // ---- where things are -------------------------------------------------------------------
  //
  // The kernel keeps nothing of FT in registers across its main loop, which needs all of
  // them at two blocks per SM: ptxas spilled inside the slice loop when values computed
  // before the loop were reused after it. So everything after the loop reads its inputs
  // afresh (special registers through volatile asm, alpha with a volatile load), and the K
  // loop's state is in shared memory. (Before the loop the fast kernel computes its tile and
  // fragment position exactly as the plain kernel: volatile reads there made the same loop
  // 5.5 % slower.) The check and the epilogue are inline: calls made the kernel follow the
  // calling convention, which spilled in the slice loop too (measured with ptxas -v).

  // The chunk loop's state, uniform across the block: written by thread 0 before a barrier.
  struct LoopState {
    long long kt;  // K tiles done (checked) in this attempt
    int attempt;   // 0, or 1 when the tile is computed again
    int tile;      // the linear tile index (tile_coords) the block works on
  };
  __device__ __forceinline__ static LoopState* loop_state(float* smem) {
    return reinterpret_cast<LoopState*>(smem + kStateOffset);
  }
  __device__ __forceinline__ static int fresh_tid() {
    int v;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v));
    return v;
  }
  __device__ __forceinline__ static int fresh_block() {
    int v;
    asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v));
    return v;
  }
  // K tiles of the call: none when alpha = 0 (possible here only in device pointer mode),
  // which must not read A or B.
  __device__ __forceinline__ static int64_t num_k_tiles(const GemmParams<float>& p) {
    return read_scalar_again(p.alpha) == 0.0f || p.k <= 0 ? 0 : (p.k + KTB - 1) / KTB;
  }
  // The end of the chunk that starts after kt K tiles: the verify interval, or all of K.
  __device__ __forceinline__ static int64_t chunk_end(const GemmParams<float>& p, int64_t kt,
                                                      int64_t num) {
    return p.ft.verify_interval > 0 ? min(kt + p.ft.verify_interval, num) : num;
  }
  __device__ __forceinline__ static TileSpan tile_span(const GemmParams<float>& p, int tile) {
    int tm, tn;
    tile_coords(tile, p.tiles_m, p.tiles_n, tm, tn);
    const int64_t m0 = static_cast<int64_t>(tm) * MTB, n0 = static_cast<int64_t>(tn) * NTB;
    return {m0, n0, clamp_to_int(p.m - m0), clamp_to_int(p.n - n0), tm, tn};
  }
  // As in the plain kernel: blocks of 4 rows / columns, MW / kFragM apart.
  __device__ __forceinline__ static FragmentMap fragment_map() {
    const int tid = fresh_tid();
    const int warp = tid / 32, lane = tid % 32;
    const int warp_m = warp % Cfg::kWarpsM, warp_n = warp / Cfg::kWarpsM;
    const int lane_m = lane % Cfg::kLanesM, lane_n = lane / Cfg::kLanesM;
    return {warp_m * Cfg::kMW + lane_m * 4, warp_n * Cfg::kNW + lane_n * 4, Cfg::kMW / kFragM,
            Cfg::kNW / kFragN};
  }

  // ---- the tile in shared memory -----------------------------------------------------------

  // The fragment goes into the tile one float at a time, through volatile PTX that neither
  // the compiler nor ptxas merges into vectors. A float4 store needs its four accumulators in
  // one aligned quad of registers, and ptxas then allocated the main loop's accumulators in
  // such quads: 50-70 FFMAs per K tile had their three source registers in one bank (against
  // 0 in the plain kernel; scripts/sass-bank-conflicts), and the fast kernel ran 3-4 % slower
  // (measured: docs/perf-notes.md FT-7).
  __device__ __forceinline__ static void store_shared_scalar(float* p, float v) {
    asm volatile("st.volatile.shared.f32 [%0], %1;"
                 :
                 : "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))), "f"(v)
                 : "memory");
  }
  // Where fragment element (i, j) of this thread lives in the tile.
  template <class F>
  __device__ __forceinline__ static F* tile_element(F* smem, const FragmentMap& fm, int i, int j) {
    return smem + (fm.row0 + (i / 4) * fm.row_stride + i % 4) * kLdT + fm.col0 +
           (j / 4) * fm.col_stride + j % 4;
  }
  // Writes this thread's fragment into the tile (after a barrier that ends the main loop's
  // use of the stages).
  __device__ __forceinline__ static void store_tile(float* smem, const float (&acc)[MT][NT]) {
    store_tile(smem, acc, fragment_map());
  }
  __device__ __forceinline__ static void store_tile(float* smem, const float (&acc)[MT][NT],
                                                    const FragmentMap& fm) {
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int j = 0; j < NT; ++j) store_shared_scalar(tile_element(smem, fm, i, j), acc[i][j]);
  }
  // Reads this thread's fragment back (after a check, which may have repaired an element).
  __device__ __forceinline__ static void load_tile(const float* smem, float (&acc)[MT][NT],
                                                   const FragmentMap& fm) {
    // float4 reads here (only the general kernel reloads the tile): with scalar ones it
    // spilled more, and a verify interval of 64 cost +46.8 / +40.0 % at 4096 / 16384 against
    // +43.3 / +35.1 % (H200, docs/perf-notes.md FT-8).
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int j = 0; j < NT; j += 4) {
        const float4 v = *reinterpret_cast<const float4*>(tile_element(smem, fm, i, j));
        acc[i][j] = v.x;
        acc[i][j + 1] = v.y;
        acc[i][j + 2] = v.z;
        acc[i][j + 3] = v.w;
      }
  }
  // Zeroes this thread's running reference checksums (its own lines: no barrier needed).
  __device__ __forceinline__ static void clear_references(float* smem) {
    for (int line = fresh_tid(); line < kLines; line += kThreads) smem[kRefOffset + line] = 0.0f;
  }

  // ---- fault injection -------------------------------------------------------------------

  // Calls f(row index, column index) into this thread's fragment for the element at tile row
  // r, column c, if this thread holds it (the indices are constants in each unrolled call).
  template <class F>
  __device__ __forceinline__ static void at_element(const FragmentMap& fm, int64_t r, int64_t c,
                                                    F f) {
#pragma unroll
    for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (fm.row0 + fi * fm.row_stride + i == r && fm.col0 + fj * fm.col_stride + j == c)
              f(fi * 4 + i, fj * 4 + j);
  }
  // Applies fault fs to this thread's fragment element at tile row r, column c, if it has it.
  __device__ __forceinline__ static void apply_fault_at(float (&v)[MT][NT], const FragmentMap& fm,
                                                        int64_t r, int64_t c,
                                                        const abft::FaultSpec& fs) {
    at_element(fm, r, c, [&](int a, int b) {
      v[a][b] = abft::apply_fault(v[a][b], fs.kind, fs.bit, fs.value);
    });
  }

  // Applies the accumulator faults of this launch that fire after K tile kt to this thread's
  // accumulators (checksum faults are applied by the check, epilogue faults by the
  // epilogue). Called only when the launch has faults: costs nothing otherwise.
  __device__ __noinline__ static void inject(float (&acc)[MT][NT], float* smem,
                                             const GemmParams<float>& p, int64_t kt) {
    const abft::FtParams& ft = p.ft;
    const int64_t num_k_tiles = FtBlock::num_k_tiles(p);
    const FragmentMap fm = fragment_map();
    const TileSpan t = tile_span(p, loop_state(smem)->tile);
    for (int f = 0; f < ft.num_faults; ++f) {
      const abft::FaultSpec& fs = ft.faults[f];
      if (fs.k_step < 0 || fs.target != abft::kTargetAccumulator) continue;
      const int64_t at = fs.k_step < num_k_tiles ? fs.k_step : num_k_tiles - 1;
      if (at != kt) continue;
      const int64_t r = fs.row - t.m0, c = fs.col - t.n0;
      if (r < 0 || r >= MTB || c < 0 || c >= NTB) continue;
      apply_fault_at(acc, fm, r, c, fs);
    }
  }

  // ---- checking ----------------------------------------------------------------------------

  __device__ static float op_a(const GemmParams<float>& p, int64_t i, int64_t k) {
    return kTransA ? __ldg(p.A + k + i * p.lda) : __ldg(p.A + i + k * p.lda);
  }
  __device__ static float op_b(const GemmParams<float>& p, int64_t k, int64_t j) {
    return kTransB ? __ldg(p.B + j + k * p.ldb) : __ldg(p.B + k + j * p.ldb);
  }

  // mag[q] = sum over the line's k in [0, k_done) and its tile elements of
  // |a| |b|, KTB k at a time: the |A| column sums and |B| row sums of those k first (warp
  // sums, then one shared atomic per warp), then each line's products. The slow path: it
  // runs only when some residual is beyond the bound the checksum alone gives.
  __device__ static void magnitudes(float* smem, const GemmParams<float>& p, const TileSpan& t,
                                    int64_t k_done, float (&mag)[kItems]) {
    const int tid = fresh_tid(), lane = tid % 32;
    float* abs_sums = red(smem);  // (kSums): |A| sums then |B| sums of the current slice
#pragma unroll
    for (int q = 0; q < kItems; ++q) mag[q] = 0.0f;
    for (int64_t kb = 0; kb < k_done; kb += KTB) {
      for (int e = tid; e < kSums; e += kThreads) abs_sums[e] = 0.0f;
      __syncthreads();
      for (int e = tid; e < KTB * kLines; e += kThreads) {  // a warp: one kk, one operand
        const int kk = e / kLines, line = e % kLines;
        const int64_t k = kb + kk;
        float v = 0.0f;
        if (k < k_done) {
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
        for (int kk = 0; kk < KTB && kb + kk < k_done; ++kk) {
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

  // The action a fault record of verdict v (kCorrectOne or kRecompute) states.
  __device__ __forceinline__ static int fault_action(const abft::FtParams& ft, abft::Verdict v,
                                                     int attempt) {
    if (ft.mode != abft::FtMode::kCorrect) return abft::kActionReported;
    if (v == abft::Verdict::kCorrectOne) return abft::kActionCorrected;
    return attempt == 0 ? abft::kActionRecomputed : abft::kActionUnrecovered;
  }
  // Counts one check of verdict v in the handle's statistics (one thread per check): `faults`
  // is what it detected (1 at block level, the bad cells at the finer levels), all repaired in
  // place when v is kCorrectOne; kRecompute computes the tile again once.
  __device__ __forceinline__ static void count_check(const abft::FtParams& ft, abft::Verdict v,
                                                     unsigned long long faults, int attempt) {
    abft::FtDeviceStats* st = ft.stats;
    atomicAdd(&st->checks, 1ull);
    if (v == abft::Verdict::kNonFinite) {
      atomicAdd(&st->nonfinite, 1ull);
      return;
    }
    if (v == abft::Verdict::kClean) return;
    atomicAdd(&st->detected, faults);
    if (ft.mode != abft::FtMode::kCorrect) return;
    if (v == abft::Verdict::kCorrectOne)
      atomicAdd(&st->corrected, faults);
    else
      atomicAdd(attempt == 0 ? &st->recomputed : &st->unrecovered, 1ull);
  }

  // Classifies this thread's residuals (residual[q] of line tid + q * kThreads, against
  // bound[q]) across the block, leaving the single bad row/column in misc. Uniform result.
  __device__ static abft::Verdict classify_lines(float* smem, const float (&residual)[kItems],
                                                 const float (&bound)[kItems],
                                                 bool inputs_finite) {
    const int tid = fresh_tid();
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

  // Sets tile element (r, c) in shared memory to its product over the first k_done k of the
  // tile's range, computed again from the operands by warp 0. Adding the residual instead
  // would fail for the faults that matter most: a flipped exponent bit makes the element
  // dwarf its column, whose sum then no longer holds the other elements.
  __device__ static void recompute_element(float* smem, const GemmParams<float>& p,
                                           const TileSpan& t, int r, int c, int64_t k_done) {
    if (fresh_tid() >= 32) return;
    warp_recompute_element(smem, p, t, r, c, k_done, fresh_tid());
  }
  // The same by the calling warp (lane: this thread's lane).
  __device__ static void warp_recompute_element(float* smem, const GemmParams<float>& p,
                                                const TileSpan& t, int r, int c, int64_t k_done,
                                                int lane) {
    float dot = 0.0f;
    for (int64_t k = lane; k < k_done; k += 32)
      dot = fmaf(op_a(p, t.m0 + r, k), op_b(p, k, t.n0 + c), dot);
#pragma unroll
    for (int off = 16; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    if (lane == 0) smem[r * kLdT + c] = dot;
  }

  // Line totals of the tile in shared memory for line tid + q * kThreads: the sum, the sum
  // of magnitudes and the largest magnitude over the line's elements inside the matrix, in
  // a fixed order. Rows read float4s (8 consecutive rows of a warp's lanes hit all 32 banks),
  // columns read one float per row (consecutive columns across lanes).
  __device__ __forceinline__ static void line_totals(const float* tile, const TileSpan& t,
                                                     float (&sum)[kItems], float (&abs_sum)[kItems],
                                                     float (&max_abs)[kItems]) {
    // Four partial totals per line (elements 4i + p go to partial p), added at the end: four
    // chains of a quarter of the length. Still the same order every run, and a sum of n
    // terms in any fixed order stays within the bound of ft_check.h.
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const int line = fresh_tid() + q * kThreads;
      float s[4] = {0.0f, 0.0f, 0.0f, 0.0f}, a[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      float mx[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      auto add = [&](int part, float v) {  // part: a constant in every call
        s[part] += v;
        a[part] += fabsf(v);
        mx[part] = fmaxf(mx[part], fabsf(v));
      };
      if (line < MTB) {
        if (line < t.rows_left) {
          const float* row = tile + line * kLdT;
          const int cols = min(NTB, t.cols_left);
#pragma unroll 2
          for (int c = 0; c < cols; c += 4) {
            const float4 v = *reinterpret_cast<const float4*>(row + c);
            add(0, v.x);
            if (c + 1 < cols) add(1, v.y);
            if (c + 2 < cols) add(2, v.z);
            if (c + 3 < cols) add(3, v.w);
          }
        }
      } else if (line < kLines && line - MTB < t.cols_left) {
        const float* col = tile + (line - MTB);
        const int rows = min(MTB, t.rows_left);
        int r = 0;
#pragma unroll 2
        for (; r + 4 <= rows; r += 4) {
          add(0, col[r * kLdT]);
          add(1, col[(r + 1) * kLdT]);
          add(2, col[(r + 2) * kLdT]);
          add(3, col[(r + 3) * kLdT]);
        }
        for (; r < rows; ++r) add(0, col[r * kLdT]);
      }
      sum[q] = (s[0] + s[1]) + (s[2] + s[3]);
      abs_sum[q] = (a[0] + a[1]) + (a[2] + a[3]);
      max_abs[q] = fmaxf(fmaxf(mx[0], mx[1]), fmaxf(mx[2], mx[3]));
    }
  }


  // The reference pieces that end by the check after kt K tiles (all of them at the last).
  __device__ __forceinline__ static int pieces_done(const abft::FtParams& ft, int64_t kt,
                                                    int64_t num_k_tiles) {
    if (kt >= num_k_tiles) return ft.ck_pieces;
    return static_cast<int>(min(static_cast<int64_t>(ft.ck_pieces), kt * KTB / ft.ck_k_per_piece));
  }

  // Whether checksum fault fs of this launch fires in the check after k_tiles K tiles (the
  // previous check of this attempt came after k_prev): it hits the running checksum, as a
  // fault in its register would.
  __device__ __forceinline__ static bool checksum_fault_fires(const abft::FaultSpec& fs,
                                                              int64_t k_prev, int64_t k_tiles,
                                                              int64_t num_k_tiles) {
    if (fs.k_step < 0 || fs.target == abft::kTargetAccumulator) return false;
    const int64_t at = fs.k_step < num_k_tiles ? fs.k_step : num_k_tiles - 1;
    return at >= k_prev && at < k_tiles;
  }

  // Checks the tile in shared memory after k_tiles K tiles (the previous check of this
  // attempt came after k_prev): adds the reference pieces completed since to the running
  // checksums, compares, and classifies. kCorrectOne is repaired in the tile here (CORRECT
  // mode); kRecompute is left to the caller. Statistics are counted here. All threads call,
  // after a barrier that follows store_tile; a barrier ends it.
  __device__ __forceinline__ static abft::Verdict check(float* smem, const GemmParams<float>& p,
                                                        const TileSpan& t, int64_t k_prev,
                                                        int64_t k_tiles, int64_t num_k_tiles,
                                                        int attempt) {
    const int tid = fresh_tid();
    float* misc = FtBlock::misc(smem);
    auto misc_int = [&](int w) { return FtBlock::misc_int(smem, w); };
    const abft::FtParams& ft = p.ft;
    const int64_t k_done = min(k_tiles * KTB, p.k);
    float line_sum[kItems], line_abs[kItems], line_max[kItems];
    line_totals(smem, t, line_sum, line_abs, line_max);

    const int s_begin = pieces_done(ft, k_prev, num_k_tiles);
    const int s_end = pieces_done(ft, k_tiles, num_k_tiles);
    const int64_t row_piece = p.m * p.tiles_n, col_piece = p.n * p.tiles_m;
    float ck[kItems];
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const int line = tid + q * kThreads;
      ck[q] = 0.0f;
      if (line >= kLines) continue;
      float r = smem[kRefOffset + line];
      if (line < MTB) {
        if (line < t.rows_left) {
          const float* src = ft.row_ck + (t.m0 + line) + static_cast<int64_t>(t.tn) * p.m;
#pragma unroll 4
          for (int s = s_begin; s < s_end; ++s) r += __ldg(src + s * row_piece);
        }
      } else if (line - MTB < t.cols_left) {
        const float* src = ft.col_ck + (t.n0 + line - MTB) + static_cast<int64_t>(t.tm) * p.n;
#pragma unroll 4  // the loads of four pieces in flight together, added in order
        for (int s = s_begin; s < s_end; ++s) r += __ldg(src + s * col_piece);
      }
      // Checksum faults of this launch that fire in this check's K range hit the running
      // checksum, as a fault in its register would.
      if (attempt == 0) {
        for (int f = 0; f < ft.num_faults; ++f) {
          const abft::FaultSpec& fs = ft.faults[f];
          if (!checksum_fault_fires(fs, k_prev, k_tiles, num_k_tiles)) continue;
          const int64_t target = fs.target == abft::kTargetRowChecksum ? fs.row - t.m0
                                                                        : MTB + (fs.col - t.n0);
          const bool in_tile = fs.row - t.m0 >= 0 && fs.row - t.m0 < MTB && fs.col - t.n0 >= 0 &&
                               fs.col - t.n0 < NTB;
          if (in_tile && target == line) r = abft::apply_fault(r, fs.kind, fs.bit, fs.value);
        }
      }
      smem[kRefOffset + line] = r;
      ck[q] = r;
    }

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
      residual[q] = ck[q] - line_sum[q];
      // Two lower estimates of the line's magnitude S: |ck|, and the sum of |acc| without its
      // largest term (so that one wrong element cannot raise it). The second keeps lines whose
      // checksum happens to be near zero off the slow path. (An infinite checksum is no
      // estimate: it would make the bound infinite and hide itself.)
      const float rest = line_abs[q] - line_max[q];
      const float ck_estimate = isfinite(ck[q]) ? fabsf(ck[q]) : 0.0f;
      bound[q] = abft::cheap_bound(fmaxf(ck_estimate, rest), k_done, len);
      finite = finite && (isfinite(ck[q]) || isfinite(line_sum[q]));
      suspect = suspect || abft::exceeds(residual[q], bound[q]);
    }
    if (__syncthreads_or(suspect) && __syncthreads_and(finite)) {
      float mag[kItems];
      magnitudes(smem, p, t, k_done, mag);
#pragma unroll
      for (int q = 0; q < kItems; ++q) {
        const int line = tid + q * kThreads;
        if (line >= kLines) continue;
        bound[q] = abft::checksum_bound(mag[q], k_done, line < MTB ? NTB : MTB);
        if (!isfinite(ck[q]) && !isfinite(mag[q])) finite = false;  // overflow, not a fault
      }
    }
    const abft::Verdict v = classify_lines(smem, residual, bound, finite);
    const bool correct = ft.mode == abft::FtMode::kCorrect;
    if (v == abft::Verdict::kCorrectOne && correct)
      recompute_element(smem, p, t, *misc_int(kBadRow), *misc_int(kBadCol), k_done);
    if (tid == 0) {
      count_check(ft, v, 1, attempt);
      if (v == abft::Verdict::kCorrectOne || v == abft::Verdict::kRecompute) {
        const bool one = v == abft::Verdict::kCorrectOne;
        const int rows = *misc_int(kBadRows), cols = *misc_int(kBadCols);
        const long long row = one || (rows == 1 && cols == 0) ? t.m0 + *misc_int(kBadRow) : -1;
        const long long col = one || (cols == 1 && rows == 0) ? t.n0 + *misc_int(kBadCol) : -1;
        const float res = cols > 0 ? misc[kColResidual] : misc[kRowResidual];
        record(ft, t, row, col, k_tiles, res, fault_action(ft, v, attempt));
      }
    }
    __syncthreads();  // the repaired tile, misc and red are visible to all
    return v;
  }

  // What the kernel does after a check.
  enum class Next : int { kNextChunk, kRestart, kDone };

  // The check after the chunk the loop state names (the tile in shared memory, after a
  // barrier that follows store_tile), and the state's update: the next chunk, or the tile
  // again from the start (a fault not located, CORRECT mode, first attempt).
  __device__ __forceinline__ static Next check_chunk(float* smem, const GemmParams<float>& p,
                                                     const TileSpan& t) {
    LoopState* st = loop_state(smem);
    const int64_t kt = st->kt;
    const int attempt = st->attempt;
    const int64_t num = (p.k + KTB - 1) / KTB, end = chunk_end(p, kt, num);
    abft::Verdict v;
    if constexpr (kLevel == FtLevel::kBlock)
      v = check(smem, p, t, kt, end, num, attempt);
    else
      v = FtGroupCheck<FtBlock>::check(smem, p, t, kt, end, num, attempt);
    const bool restart = v == abft::Verdict::kRecompute &&
                         p.ft.mode == abft::FtMode::kCorrect && attempt == 0;
    // Everyone read the state before the check's barriers.
    if (fresh_tid() == 0) {
      st->kt = restart ? 0 : end;
      st->attempt = restart ? 1 : attempt;
    }
    __syncthreads();
    return restart ? Next::kRestart : end < num ? Next::kNextChunk : Next::kDone;
  }

  // ---- epilogue ----------------------------------------------------------------------------

  // Stores and loads of C that the compiler keeps in program order and never forwards or
  // drops (the read-back below must see memory, not a register), at L2 (.cg) like the plain
  // kernel's stores, without making each load wait for the one before it.
  __device__ __forceinline__ static void store_cg(float* p, float v) {
    asm volatile("st.global.cg.f32 [%0], %1;" ::"l"(p), "f"(v) : "memory");
  }
  __device__ __forceinline__ static void store_cg(float* p, float4 v) {
    asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y),
                 "f"(v.z), "f"(v.w)
                 : "memory");
  }
  __device__ __forceinline__ static float load_cg(const float* p) {
    float v;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
    return v;
  }
  __device__ __forceinline__ static float4 load_cg4(const float* p) {
    float4 v;
    asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p)
                 : "memory");
    return v;
  }

  // Applies this launch's epilogue faults in row r, columns c0 .. c0 + kRun - 1 of the tile
  // to the run's outputs v (inside(j): column j of the run is in C).
  template <class Inside>
  __device__ __forceinline__ static void inject_epilogue_faults(const abft::FtParams& ft,
                                                                const TileSpan& t, int r, int c0,
                                                                float (&v)[kRun], Inside inside) {
    for (int f = 0; f < ft.num_faults; ++f) {
      const abft::FaultSpec& fs = ft.faults[f];
      if (fs.k_step != abft::kKStepEpilogue || fs.target != abft::kTargetAccumulator) continue;
      if (fs.row - t.m0 != r) continue;
      const int64_t c = fs.col - t.n0 - c0;
#pragma unroll
      for (int j = 0; j < kRun; ++j)
        if (c == j && inside(j)) v[j] = abft::apply_fault(v[j], fs.kind, fs.bit, fs.value);
    }
  }
  // A run of the epilogue whose sum does not match: counted and recorded; in CORRECT mode
  // its first len columns are computed again from the tile and the old C (still in memory),
  // element by element, stored and read back as they go, and the result is true. Rolled and
  // scalar: a second unrolled copy of the run made ptxas spill inside the main loop
  // (measured).
  __device__ __forceinline__ static bool bad_run(const abft::FtParams& ft, const TileSpan& t,
                                                 int r, float residual, const float* acc_row,
                                                 float* dst, int64_t ldc, float alpha,
                                                 float beta, bool read_d, int len) {
    const bool correct = ft.mode == abft::FtMode::kCorrect;
    abft::FtDeviceStats* st = ft.stats;
    atomicAdd(&st->detected, 1ull);
    if (correct) atomicAdd(&st->recomputed, 1ull);
    record(ft, t, t.m0 + r, -1, abft::kKStepEpilogue, residual,
           correct ? abft::kActionRecomputed : abft::kActionReported);
    if (!correct) return false;
#pragma unroll 1
    for (int j = 0; j < len; ++j) {
      const float o = alpha * acc_row[j];
      const float out = read_d ? fmaf(beta, dst[j * ldc], o) : o;
      for (int tries = 0; tries < 2; ++tries) {
        store_cg(dst + j * ldc, out);
        if (__float_as_uint(load_cg(dst + j * ldc)) == __float_as_uint(out)) break;
      }
    }
    return true;
  }
  // A run whose read-back differs from what was stored (a store-path fault, CORRECT mode):
  // stored again, counted and recorded. inside(j): column j of the run is in C.
  template <class Inside>
  __device__ __forceinline__ static void store_again(const abft::FtParams& ft, const TileSpan& t,
                                                     int r, float* dst, int64_t ldc,
                                                     const float (&v)[kRun], Inside inside) {
#pragma unroll
    for (int j = 0; j < kRun; ++j)
      if (inside(j)) store_cg(dst + j * ldc, v[j]);
    atomicAdd(&ft.stats->detected, 1ull);
    atomicAdd(&ft.stats->recomputed, 1ull);
    record(ft, t, t.m0 + r, -1, abft::kKStepEpilogue, 0.0f, abft::kActionRecomputed);
  }

  // What both epilogues start from: beta (read again), C at the tile's corner, the FT mode;
  // thread 0 counts the tile's check. Locals rather than p's fields: for all the compiler
  // knows, a store to C may change p.
  struct EpilogueFrame {
    float beta;
    bool read_d;  // beta != 0: the old C is read
    int64_t ldc;
    float* C;
    int num_faults;
    bool correct;
  };
  __device__ __forceinline__ static EpilogueFrame begin_epilogue(const GemmParams<float>& p,
                                                                 const TileSpan& t, int tid) {
    EpilogueFrame f;
    f.beta = read_scalar_again(p.beta);
    f.read_d = f.beta != 0.0f;
    f.ldc = p.ldc;
    f.C = p.C + t.m0 + t.n0 * f.ldc;
    f.num_faults = p.ft.num_faults;
    f.correct = p.ft.mode == abft::FtMode::kCorrect;
    if (tid == 0) atomicAdd(&p.ft.stats->checks, 1ull);
    return f;
  }

  // The epilogue from the tile in shared memory, checked before anything is stored. Thread
  // items are runs of kRun columns of one row (a warp: 32 consecutive rows, so each C access
  // is a 128-byte line); for each run: out = alpha acc + beta C, whose sum must match
  // alpha (sum of acc) + beta (sum of the old C) within the run's rounding bound; a bad run
  // (CORRECT mode) is computed again from the tile and the old C, still in memory. Then the
  // run is stored and read back; where a value differs from what was meant, the run is
  // stored again. All threads call (after the last check's barrier); per-run work needs no
  // barrier.
  __device__ __forceinline__ static void epilogue(const float* smem, const GemmParams<float>& p,
                                                  const TileSpan& t, float alpha) {
    const int tid = fresh_tid();
    const EpilogueFrame f = begin_epilogue(p, t, tid);
    const abft::FtParams& ft = p.ft;
    for (int item = tid; item < MTB * kRuns; item += kThreads) {
      const int r = item % MTB, c0 = (item / MTB) * kRun;
      if (r >= t.rows_left || c0 >= t.cols_left) continue;
      const float* acc_row = smem + r * kLdT + c0;
      float* dst = f.C + r + c0 * f.ldc;
      auto inside = [&](int j) { return c0 + j < t.cols_left; };
      // v: the old C, then out in place (one array: the epilogue must not need more
      // registers than the main loop, measured: ptxas then spilled inside the loop).
      float v[kRun];
      // Each sum in four parts (element j in part j % 4), added at the end: shorter chains.
      float s_acc[4] = {}, s_old[4] = {}, s_mag[4] = {};
      auto total = [](const float (&x)[4]) { return (x[0] + x[1]) + (x[2] + x[3]); };
      auto make_out = [&]() {
#pragma unroll
        for (int j = 0; j < kRun; ++j) v[j] = f.read_d && inside(j) ? dst[j * f.ldc] : 0.0f;
#pragma unroll
        for (int j = 0; j < kRun; j += 4) {
          const float4 a4 = *reinterpret_cast<const float4*>(acc_row + j);
          const float a[4] = {a4.x, a4.y, a4.z, a4.w};
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            if (!inside(j + q)) continue;
            s_acc[q] += a[q];
            s_old[q] += v[j + q];
            s_mag[q] += fabsf(alpha * a[q]) + fabsf(f.beta * v[j + q]);
            const float o = alpha * a[q];
            v[j + q] = f.read_d ? fmaf(f.beta, v[j + q], o) : o;
          }
        }
      };
      make_out();
      if (f.num_faults > 0) inject_epilogue_faults(ft, t, r, c0, v, inside);
      float out_parts[4] = {};
#pragma unroll
      for (int j = 0; j < kRun; ++j)
        if (inside(j)) out_parts[j % 4] += v[j];
      const float s_out = total(out_parts), sum_acc = total(s_acc), sum_old = total(s_old);
      const float s_magnitude = total(s_mag);
      const float expect = f.read_d ? fmaf(f.beta, sum_old, alpha * sum_acc) : alpha * sum_acc;
      // Non-finite expectations come from the inputs: IEEE decides, nothing is checked (the
      // K-loop check already counted the tile's inputs).
      const float residual = expect - s_out;
      // A handful of roundings per element and the run's sums: k_done = 4 covers them.
      if (isfinite(expect) && isfinite(s_magnitude) &&
          abft::exceeds(residual, abft::rounding_bound(s_magnitude, 4, kRun))) {
        // Not located within the run: the run is computed again (CORRECT mode).
        if (bad_run(ft, t, r, residual, acc_row, dst, f.ldc, alpha, f.beta, f.read_d,
                    min(kRun, t.cols_left - c0)))
          continue;
      }
#pragma unroll
      for (int j = 0; j < kRun; ++j)
        if (inside(j)) store_cg(dst + j * f.ldc, v[j]);
      // The read-back: a group's loads all go out before any comparison. (A short-circuit
      // `differs || load != v` made every load wait for the comparison before it: 64 round
      // trips to L2 in a row per thread, 3 % of the whole kernel at 4096^3, measured.)
      constexpr int kGroup = 16;
      unsigned diff = 0;
#pragma unroll
      for (int j0 = 0; j0 < kRun; j0 += kGroup) {
        float back[kGroup];
#pragma unroll
        for (int j = 0; j < kGroup; ++j)
          back[j] = inside(j0 + j) ? load_cg(dst + (j0 + j) * f.ldc) : v[j0 + j];
#pragma unroll
        for (int j = 0; j < kGroup; ++j) diff |= __float_as_uint(back[j]) ^ __float_as_uint(v[j0 + j]);
      }
      const bool differs = diff != 0;
      if (differs && f.correct) store_again(ft, t, r, dst, f.ldc, v, inside);
    }
  }

  // epilogue() for a call whose tiles are all whole (the interior kernel): no bound per
  // column, and addresses that go from column to column by adding ldc. (epilogue() with
  // its bounds and a product j ldc per address ran ~1500 instructions per run, 70 % of what
  // the fast kernel executes after its loop at 4096^3: ncu source counters,
  // docs/perf-notes.md FT-13. It stays as it is: the same changes there made ptxas allocate
  // the main loop of the general-tile kernels worse, with spills.) The sums of magnitude are
  // |alpha| sum |acc| + |beta| sum |C|, S of the run's bound (abft::rounding_bound; their
  // rounding is within that bound's (1 + gamma) factor), and the old C is read only when
  // beta is not 0.
  __device__ __forceinline__ static void whole_tiles_epilogue(const float* smem,
                                                              const GemmParams<float>& p,
                                                              const TileSpan& t, float alpha) {
    const int tid = fresh_tid();
    const EpilogueFrame f = begin_epilogue(p, t, tid);
    const abft::FtParams& ft = p.ft;
    for (int item = tid; item < MTB * kRuns; item += kThreads) {
      const int r = item % MTB, c0 = (item / MTB) * kRun;
      const float* acc_row = smem + r * kLdT + c0;
      float* const dst = f.C + r + c0 * f.ldc;
      // v: the old C, then out in place (as in epilogue()).
      float v[kRun];
      // Each sum in four parts (element j in part j % 4), added at the end.
      float s_acc[4] = {}, s_acc_abs[4] = {}, s_old[4] = {}, s_old_abs[4] = {};
      auto total = [](const float (&x)[4]) { return (x[0] + x[1]) + (x[2] + x[3]); };
      auto make_out = [&]() {
        if (f.read_d) {
          const float* src = dst;
#pragma unroll
          for (int j = 0; j < kRun; ++j, src += f.ldc) v[j] = *src;
#pragma unroll
          for (int j = 0; j < kRun; ++j) {
            s_old[j % 4] += v[j];
            s_old_abs[j % 4] += fabsf(v[j]);
          }
        }
#pragma unroll
        for (int j = 0; j < kRun; j += 4) {
          const float4 a4 = *reinterpret_cast<const float4*>(acc_row + j);
          const float a[4] = {a4.x, a4.y, a4.z, a4.w};
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const float x = a[q];
            s_acc[q] += x;
            s_acc_abs[q] += fabsf(x);
            const float o = alpha * x;
            v[j + q] = f.read_d ? fmaf(f.beta, v[j + q], o) : o;
          }
        }
      };
      make_out();
      // Never true in the fast kernel, the only caller (calls with faults run the general
      // one); without this line, though, ptxas allocated the main loop's registers worse:
      // 700 / 794 / 524 FFMAs of 1024 with two reads in one bank (NN / NT / TN) against
      // 299 / 263 / 272 (scripts/sass-bank-conflicts).
      if (f.num_faults > 0) inject_epilogue_faults(ft, t, r, c0, v, [](int) { return true; });
      float out_parts[4] = {};
#pragma unroll
      for (int j = 0; j < kRun; ++j)
        out_parts[j % 4] += v[j];
      const float s_out = total(out_parts), sum_acc = total(s_acc), sum_old = total(s_old);
      const float s_magnitude =
          fabsf(alpha) * total(s_acc_abs) + (f.read_d ? fabsf(f.beta) * total(s_old_abs) : 0.0f);
      const float expect = f.read_d ? fmaf(f.beta, sum_old, alpha * sum_acc) : alpha * sum_acc;
      const float residual = expect - s_out;
      // As in epilogue(): non-finite expectations are not checked, k_done = 4 covers the
      // roundings, and a bad run is computed again.
      if (isfinite(expect) && isfinite(s_magnitude) &&
          abft::exceeds(residual, abft::rounding_bound(s_magnitude, 4, kRun))) {
        if (bad_run(ft, t, r, residual, acc_row, dst, f.ldc, alpha, f.beta, f.read_d, kRun))
          continue;
      }
      {
        float* d = dst;
#pragma unroll
        for (int j = 0; j < kRun; ++j, d += f.ldc)
          store_cg(d, v[j]);
      }
      // The read-back, as in epilogue(): a group's loads all go out before any comparison.
      constexpr int kGroup = 16;
      unsigned diff = 0;
      const float* back_at = dst;
#pragma unroll
      for (int j0 = 0; j0 < kRun; j0 += kGroup) {
        float back[kGroup];
#pragma unroll
        for (int j = 0; j < kGroup; ++j, back_at += f.ldc)
          back[j] = load_cg(back_at);
#pragma unroll
        for (int j = 0; j < kGroup; ++j) diff |= __float_as_uint(back[j]) ^ __float_as_uint(v[j0 + j]);
      }
      const bool differs = diff != 0;
      if (differs && f.correct) store_again(ft, t, r, dst, f.ldc, v, [](int) { return true; });
    }
  }
};

}  // namespace aegis::gemm::simt
