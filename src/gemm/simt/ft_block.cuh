// Fused block-level ABFT for the SIMT SGEMM kernel (Wu et al., ICS'23, threadblock level).
//
// Checksums of the C tile: for each tile row i, sum_k op(A)(i, k) bsum[k], and for each tile
// column j, sum_k asum[k] op(B)(k, j), where asum[k] sums op(A)(i, k) over the tile's MTB rows
// and bsum[k] sums op(B)(k, j) over its NTB columns. Both sum vectors are properties of the
// inputs alone: one memory-bound pass forms them for every tile row and column before the
// GEMM (ft_operand_sums.h), instead of every thread block encoding the same A panel again
// (tiles_n times) inside its K loop.
//
// The K loop is the plain kernel's, slice for slice, with nothing of FT in it: the 16x8
// fragments leave no register to spare, and every FT value held or computed next to the
// FFMAs cost issue slots and spills (docs/perf-notes.md FT-2, FT-3). Instead the slices go
// into a ring of kRing shared-memory stages, and every kPhase slices (and before each check)
// the loop pauses for an update phase that adds the slices of the ring not yet counted to
// the checksums:
//   update: the tile's rows and columns in quads of 4 lines; thread t owns one row quad and
//           one column quad and, of each slice, the k steps of its group (t / quads): one
//           16-byte load of the quad's operands and one sum per k step, 4 FMAs. Its partial
//           checksums wait in shared memory between phases; each phase loads the next phase's
//           operand sums from global memory and stores them when it ends.
// A line's checksum is the sum of its groups' partials, in group order (line_checksums).
//
// A check compares each checksum with the sum of the accumulators of its line (line totals
// below: warp butterflies, no atomics, same bits every run). Residuals within a bound taken
// from the checksum itself are rounding for sure; otherwise a magnitude pass over the operands
// gives each line's rigorous rounding bound (abft/ft_check.h), and lines beyond it are bad.
// One bad row and one bad column locate one wrong element, repaired by the residual; any
// other pattern recomputes the tile.
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

  // The update's work split: quads of 4 lines, k{Row,Col}Groups threads per quad, each taking
  // the k steps kk = group + u * groups (u < k{Row,Col}Units) of every slice.
  static constexpr int kRowQuads = MTB / 4, kColQuads = NTB / 4;
  static constexpr int kRowGroups = kThreads / kRowQuads, kColGroups = kThreads / kColQuads;
  static constexpr int kRowUnits = KTB / kRowGroups, kColUnits = KTB / kColGroups;
  static_assert(kThreads % kRowQuads == 0 && kThreads % kColQuads == 0,
                "every thread owns exactly one row quad and one column quad");
  static_assert(KTB % kRowGroups == 0 && KTB % kColGroups == 0 && kRowUnits > 0 &&
                    kColUnits > 0,
                "the update's k steps divide among the threads of a quad");

  // The ring of stages and the update phases: a phase adds at most kPhase slices, and the
  // K loop writes slice kt + 1 while a phase may still read slice kt + 1 - kPhase... kt, so
  // kRing >= kPhase + 2 keeps them apart.
  static constexpr int kRing = 8, kPhase = kRing - 2;
  static_assert((kRing & (kRing - 1)) == 0, "ring positions wrap with a mask");

  // Shared memory (in floats): the ring, the update's partial checksums (8 per thread: its row
  // quad, then its column quad), the operand sums of two phases (kPhase slices of kSums
  // each), then the red and misc areas.
  static constexpr int kStageFloatsA = KTB * Cfg::kLdAs, kStageFloatsB = KTB * Cfg::kLdBs;
  static constexpr int kPartialsOffset = kRing * (kStageFloatsA + kStageFloatsB);
  static constexpr int kSumsOffset = kPartialsOffset + 8 * kThreads;
  static constexpr int kPhaseSums = kPhase * kSums;
  static constexpr int kRedOffset = kSumsOffset + 2 * kPhaseSums;
  // Line-total partials (see write_line_partials): (kWarpsN, MTB) rows, (kWarpsM, NTB) columns
  // per array; the epilogue needs four (sum of acc, of the old C, magnitude, stored values);
  // the magnitude pass's sums reuse the area.
  static constexpr int kPartFloats = Cfg::kWarpsN * MTB + Cfg::kWarpsM * NTB;
  static constexpr int kRedArrays = 4;
  static constexpr int kRedFloats = kRedArrays * kPartFloats;
  static constexpr int kMiscOffset = kRedOffset + kRedFloats;
  static constexpr int kMiscWords = 8;
  static constexpr int kSmemBytes = (kMiscOffset + kMiscWords) * 4;

  static_assert(MTB % 32 == 0 && NTB % 32 == 0, "a warp's lines are all rows or all columns");
  static_assert(kRedFloats >= kSums, "the magnitude pass keeps its sums in the red area");
  static_assert(kPartialsOffset % 4 == 0, "partials move as float4");

  // Indices into the misc words.
  enum { kBadRows = 0, kBadCols, kBadRow, kBadCol, kRowResidual, kColResidual, kRowBound, kColBound };

  // Everything is static: the checksum partials live in shared memory, the accumulators in
  // the kernel's registers; what runs inside the K loop rarely (fault injection, the checks
  // between chunks) is out of line and gets copies of the accumulators, so that its code does
  // not weigh on the main loop's registers.
  // kRedFloats
  __device__ __forceinline__ static float* red(float* smem) { return smem + kRedOffset; }
  // kMiscWords: counters and indices as int, residuals and bounds as float
  __device__ __forceinline__ static float* misc(float* smem) { return smem + kMiscOffset; }
  __device__ __forceinline__ static int* misc_int(float* smem, int w) {
    return reinterpret_cast<int*>(misc(smem) + w);
  }

  // ---- update phases -------------------------------------------------------------------

  __device__ __forceinline__ static float4* partials(float* smem) {
    return reinterpret_cast<float4*>(smem + kPartialsOffset) + 2 * threadIdx.x;
  }
  // Zeroes this thread's partial checksums (its own slots: no barrier needed).
  __device__ __forceinline__ static void clear_partials(float* smem) {
    float4* c = partials(smem);
    c[0] = c[1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }

  // The operand sums of slices first .. first + kPhase - 1 (those before num_k_tiles) for
  // phase buffer `buf`: slot j * kSums + q is asum (q < KTB) or bsum (q >= KTB) of
  // k = k_begin + (first + j) KTB + q % KTB. Loaded a phase ahead into registers (kSumRegs
  // per thread) and stored when the phase that loaded them ends.
  static constexpr int kSumRegs = (kPhaseSums + kThreads - 1) / kThreads;
  struct PhaseSums {
    const float* a_row;  // this tile row's A sums, from k_begin
    const float* b_row;  // this tile column's B sums, from k_begin
    float v[kSumRegs];
    __device__ __forceinline__ PhaseSums(const abft::FtParams& ft, int tm, int tn, int64_t k_begin)
        : a_row(ft.a_sums + static_cast<int64_t>(tm) * ft.sums_ld + k_begin),
          b_row(ft.b_sums + static_cast<int64_t>(tn) * ft.sums_ld + k_begin) {}
    __device__ __forceinline__ void load(int64_t first, int64_t num_k_tiles) {
#pragma unroll
      for (int r = 0; r < kSumRegs; ++r) {
        const int e = threadIdx.x + r * kThreads, j = e / kSums, q = e % kSums;
        const int64_t k = (first + j) * KTB + q % KTB;
        v[r] = e < kPhaseSums && first + j < num_k_tiles ? __ldg((q < KTB ? a_row : b_row) + k)
                                                         : 0.0f;
      }
    }
    __device__ __forceinline__ void store(float* smem, int buf) const {
      float* dst = smem + kSumsOffset + buf * kPhaseSums;
#pragma unroll
      for (int r = 0; r < kSumRegs; ++r) {
        const int e = threadIdx.x + r * kThreads;
        if (e < kPhaseSums) dst[e] = v[r];
      }
    }
  };

  // Adds slices first .. first + count - 1 (ring positions from ring0 on, sums in phase
  // buffer `buf`) to this thread's partial checksums, and moves the next phase's sums
  // (loaded here, from slice `first + count` on) into the other buffer. The slices and these
  // sums are published by block barriers since they were stored.
  __device__ __forceinline__ static void update_phase(float* smem, int ring0, int count, int buf,
                                                      PhaseSums& next, int64_t next_first,
                                                      int64_t num_k_tiles) {
    const int t = threadIdx.x;
    next.load(next_first, num_k_tiles);
    const float* sums = smem + kSumsOffset + buf * kPhaseSums;
    const int row_off = (t / kRowQuads) * Cfg::kLdAs + 4 * (t % kRowQuads);
    const int col_off = (t / kColQuads) * Cfg::kLdBs + 4 * (t % kColQuads);
    float4* c = partials(smem);
    float4 rows = c[0], cols = c[1];
    auto fma4 = [](float4& acc, const float4 x, float s) {
      acc.x = fmaf(x.x, s, acc.x);
      acc.y = fmaf(x.y, s, acc.y);
      acc.z = fmaf(x.z, s, acc.z);
      acc.w = fmaf(x.w, s, acc.w);
    };
#pragma unroll 1
    for (int j = 0; j < count; ++j) {
      const int ring = (ring0 + j) & (kRing - 1);
      const float* As_s = smem + ring * kStageFloatsA;
      const float* Bs_s = smem + kRing * kStageFloatsA + ring * kStageFloatsB;
      const float* s = sums + j * kSums;
#pragma unroll
      for (int u = 0; u < kRowUnits; ++u) {  // rows: op(A)(rows, kk) bsum[kk]
        const int kk = t / kRowQuads + u * kRowGroups;
        fma4(rows, *reinterpret_cast<const float4*>(As_s + row_off + u * kRowGroups * Cfg::kLdAs),
             s[KTB + kk]);
      }
#pragma unroll
      for (int u = 0; u < kColUnits; ++u) {  // columns: asum[kk] op(B)(kk, columns)
        const int kk = t / kColQuads + u * kColGroups;
        fma4(cols, *reinterpret_cast<const float4*>(Bs_s + col_off + u * kColGroups * Cfg::kLdBs),
             s[kk]);
      }
    }
    c[0] = rows;
    c[1] = cols;
    next.store(smem, buf ^ 1);
  }

  // ck[q] = the checksum of line tid + q * kThreads: its groups' partials added in group
  // order. After a block barrier that follows the last update phase.
  __device__ __forceinline__ static void line_checksums(const float* smem, float (&ck)[kItems]) {
    const float* part = smem + kPartialsOffset;  // (thread, 8): row quad, then column quad
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const int line = threadIdx.x + q * kThreads;
      float s = 0.0f;
      if (line < MTB) {
#pragma unroll
        for (int g = 0; g < kRowGroups; ++g) s += part[(g * kRowQuads + line / 4) * 8 + line % 4];
      } else if (line < kLines) {
        const int c = line - MTB;
#pragma unroll
        for (int g = 0; g < kColGroups; ++g)
          s += part[(g * kColQuads + c / 4) * 8 + 4 + c % 4];
      }
      ck[q] = s;
    }
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

  // Applies the faults of this launch that fire after K tile kt (or, kt < 0, those of the
  // epilogue are handled by the epilogue itself) to this thread's accumulators and partial
  // checksums (a checksum fault hits the partial of the line's first group, owned by thread
  // line / 4, as it stands: the update phases lag the K loop by up to kPhase slices). Called
  // only when the launch has faults: costs nothing otherwise.
  __device__ __noinline__ static void inject(float (&acc)[MT][NT], float* smem,
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
        apply_fault_at(acc, fm, r, c, fs);
      } else {
        const bool row = fs.target == abft::kTargetRowChecksum;
        const int line = static_cast<int>(row ? r : c);
        if (static_cast<int>(threadIdx.x) != line / 4) continue;
        float* quad = reinterpret_cast<float*>(partials(smem)) + (row ? 0 : 4);
        quad[line % 4] = abft::apply_fault(quad[line % 4], fs.kind, fs.bit, fs.value);
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

  // ---- line totals (checks and epilogue) ---------------------------------------------------
  //
  // A line total (row or column sum, or maximum, of a value over the tile) in three steps,
  // deterministic and without atomics (float atomics on shared memory are compare-and-swap
  // loops, and 16 threads share each row: measured, they and the epilogue's serialized
  // read-back made each tile's checks cost as much as ~150 K slices):
  //   1. each thread folds its fragment's rows (over its NT columns) and columns (over MT);
  //   2. the lanes of a warp that share rows (or columns) combine them by a transposing
  //      butterfly: each step a lane keeps half of its values and sends the other half to its
  //      partner, so R values over L lanes take R - R / L shuffles and leave R / L per lane;
  //   3. one lane per line and warp writes the warp's partial, (kWarpsN, MTB) rows then
  //      (kWarpsM, NTB) columns; after a barrier each line's owner folds them in warp order.

  __host__ __device__ static constexpr int log2_exact(int x) {
    return x <= 1 ? 0 : 1 + log2_exact(x / 2);
  }

  struct Plus {
    __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
  };
  struct Max {
    __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
  };

  // Step 2 for R values across the L lanes that differ in lane bits kBit0 .. kBit0 +
  // log2(L) - 1. Afterwards slot s < max(R / L, 1) holds the total of value
  // slot_origin(s); where R < L, several lanes hold each total and `writer` picks one.
  template <int R, int L, int kBit0, class Op>
  __device__ __forceinline__ static void transpose_reduce(float (&v)[R], int lane, Op op) {
#pragma unroll
    for (int step = 0; (1 << step) < L; ++step) {
      const int m = 1 << (kBit0 + step);
      const bool upper = (lane & m) != 0;
      const int n = R >> step;  // values this lane still holds
      if (n >= 2) {
#pragma unroll
        for (int q = 0; q < n / 2; ++q) {
          const float send = upper ? v[q] : v[q + n / 2];
          const float keep = upper ? v[q + n / 2] : v[q];
          v[q] = op(keep, __shfl_xor_sync(0xffffffffu, send, m));
        }
      } else {
        v[0] = op(v[0], __shfl_xor_sync(0xffffffffu, v[0], m));
      }
    }
  }
  template <int R, int L, int kBit0>
  __device__ __forceinline__ static int slot_origin(int s, int lane) {
#pragma unroll
    for (int step = 0; (1 << step) < L; ++step)
      if ((R >> step) >= 2 && (lane & (1 << (kBit0 + step))) != 0) s += (R >> step) / 2;
    return s;
  }
  template <int R, int L, int kBit0>
  __device__ __forceinline__ static bool writer(int lane) {
    bool w = true;
#pragma unroll
    for (int step = 0; (1 << step) < L; ++step)
      if ((R >> step) < 2) w = w && (lane & (1 << (kBit0 + step))) == 0;
    return w;
  }

  // Steps 1-3 up to the barrier: this warp's partials of op over v(fi, i, fj, j) into `part`
  // (kPartFloats). Every slot is written, so `part` needs no clearing.
  template <class Value, class Op>
  __device__ __forceinline__ static void write_line_partials(float* part, const FragmentMap& fm,
                                                             Value v, Op op) {
    constexpr int kLanesM = Cfg::kLanesM, kLanesN = Cfg::kLanesN;
    constexpr int kRowBit0 = log2_exact(kLanesM);  // lane = lane_m + kLanesM * lane_n
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_m = warp % Cfg::kWarpsM, warp_n = warp / Cfg::kWarpsM;
    float rows[MT], cols[NT];
#pragma unroll
    for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        float s = v(fi, i, 0, 0);
#pragma unroll
        for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (fj + j > 0) s = op(s, v(fi, i, fj, j));
        rows[fi * 4 + i] = s;
      }
#pragma unroll
    for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        float s = v(0, 0, fj, j);
#pragma unroll
        for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
          for (int i = 0; i < 4; ++i)
            if (fi + i > 0) s = op(s, v(fi, i, fj, j));
        cols[fj * 4 + j] = s;
      }
    transpose_reduce<MT, kLanesN, kRowBit0>(rows, lane, op);
    transpose_reduce<NT, kLanesM, 0>(cols, lane, op);
    constexpr int kRowsLeft = MT / kLanesN > 0 ? MT / kLanesN : 1;
    constexpr int kColsLeft = NT / kLanesM > 0 ? NT / kLanesM : 1;
    if (writer<MT, kLanesN, kRowBit0>(lane)) {
#pragma unroll
      for (int s = 0; s < kRowsLeft; ++s) {
        const int r = slot_origin<MT, kLanesN, kRowBit0>(s, lane);  // fi * 4 + i
        part[warp_n * MTB + fm.row0 + (r / 4) * fm.row_stride + r % 4] = rows[s];
      }
    }
    if (writer<NT, kLanesM, 0>(lane)) {
#pragma unroll
      for (int s = 0; s < kColsLeft; ++s) {
        const int c = slot_origin<NT, kLanesM, 0>(s, lane);  // fj * 4 + j
        part[Cfg::kWarpsN * MTB + warp_m * NTB + fm.col0 + (c / 4) * fm.col_stride + c % 4] =
            cols[s];
      }
    }
  }

  // Step 3 after the barrier: total[q] of line tid + q * kThreads (0 past the last line).
  template <class Op>
  __device__ __forceinline__ static void combine_line_partials(const float* part, Op op,
                                                               float (&total)[kItems]) {
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const int line = threadIdx.x + q * kThreads;
      float s = 0.0f;
      if (line < MTB) {
        s = part[line];
#pragma unroll
        for (int w = 1; w < Cfg::kWarpsN; ++w) s = op(s, part[w * MTB + line]);
      } else if (line < kLines) {
        const float* cols = part + Cfg::kWarpsN * MTB + (line - MTB);
        s = cols[0];
#pragma unroll
        for (int w = 1; w < Cfg::kWarpsM; ++w) s = op(s, cols[w * NTB]);
      }
      total[q] = s;
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
    at_element(fm, r, c, [&](int, int) { mine = true; });
    if (__ballot_sync(0xffffffffu, mine) == 0) return;  // not this warp's element
    const int lane = threadIdx.x % 32;
    float dot = 0.0f;
    for (int64_t k = t.k_begin + lane; k < t.k_begin + k_done; k += 32)
      dot = fmaf(op_a(p, t.m0 + r, k), op_b(p, k, t.n0 + c), dot);
#pragma unroll
    for (int off = 16; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    at_element(fm, r, c, [&](int a, int b) { acc[a][b] = dot; });
  }

  // Checks the accumulators after k_tiles K tiles. kCorrectOne is repaired here (CORRECT
  // mode); kRecompute is left to the caller. Statistics are counted here. All threads call.
  // Inlined after the K loop (a call would take the accumulators through a stack copy);
  // check_call is the out-of-line form for the checks between K chunks, inside the loop.
  __device__ __forceinline__ static abft::Verdict check(float (&acc)[MT][NT],
                                                         const float (&ck)[kItems], float* smem,
                                                         const GemmParams<float>& p,
                                                         FragmentMap fm, TileSpan t,
                                                         int64_t k_tiles, int attempt) {
    const int tid = threadIdx.x;
    float* misc = FtBlock::misc(smem);
    auto misc_int = [&](int w) { return FtBlock::misc_int(smem, w); };
    const int64_t k_done = min(k_tiles * KTB, t.k_end - t.k_begin);
    // Per line: the sum of acc, the sum of |acc| and the largest |acc|.
    float* part = red(smem);
    auto value = [&](int fi, int i, int fj, int j) { return acc[fi * 4 + i][fj * 4 + j]; };
    auto magnitude = [&](int fi, int i, int fj, int j) {
      return fabsf(acc[fi * 4 + i][fj * 4 + j]);
    };
    write_line_partials(part, fm, value, Plus());
    write_line_partials(part + kPartFloats, fm, magnitude, Plus());
    write_line_partials(part + 2 * kPartFloats, fm, magnitude, Max());
    __syncthreads();
    float line_sum[kItems], line_abs[kItems], line_max[kItems];
    combine_line_partials(part, Plus(), line_sum);
    combine_line_partials(part + kPartFloats, Plus(), line_abs);
    combine_line_partials(part + 2 * kPartFloats, Max(), line_max);

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
      // checksum happens to be near zero off the slow path.
      const float rest = line_abs[q] - line_max[q];
      // (An infinite checksum is no estimate: it would make the bound infinite and hide
      // itself.)
      const float ck_estimate = isfinite(ck[q]) ? fabsf(ck[q]) : 0.0f;
      bound[q] = abft::cheap_bound(fmaxf(ck_estimate, rest), k_done, len);
      finite = finite && (isfinite(ck[q]) || isfinite(line_sum[q]));
      suspect = suspect || abft::exceeds(residual[q], bound[q]);
    }
    // Everyone has read the partials: the magnitude pass may reuse the red area.
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

  __device__ __noinline__ static abft::Verdict check_call(float (&acc)[MT][NT],
                                                           const float (&ck)[kItems], float* smem,
                                                           const GemmParams<float>& p,
                                                           FragmentMap fm, TileSpan t,
                                                           int64_t k_tiles, int attempt) {
    return check(acc, ck, smem, p, fm, t, k_tiles, attempt);
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

  // The epilogue, checked before anything is stored: out = alpha acc + beta C for this thread's
  // fragment, whose row and column sums must match alpha (acc sums) + beta (old C sums). Any
  // bad line (CORRECT mode) recomputes every out value from acc and the old C (read once into
  // registers). After the store each thread reads its elements back (all loads in flight at
  // once) and, if any differs from what it meant to store, stores its fragment again. All
  // threads call. Inlined at the kernel's end, where the main loop's registers are free: a
  // call would take the accumulators through a stack copy.
  __device__ __forceinline__ static void epilogue(const float (&acc)[MT][NT], float* smem,
                                                  const GemmParams<float>& p, FragmentMap fm,
                                                  TileSpan t, float alpha, float beta) {
    const int tid = threadIdx.x;
    float* misc = FtBlock::misc(smem);
    auto misc_int = [&](int w) { return FtBlock::misc_int(smem, w); };
    const bool read_d = beta != 0.0f;
    // Locals rather than p's fields: for all the compiler knows, a store to C may change p,
    // and it reloaded p.ldc around every store (measured).
    const int64_t ldc = p.ldc;
    float* const C = p.C + t.m0 + t.n0 * ldc;
    const bool vec = p.c_vec;
    const abft::FtParams& ft = p.ft;
    const int num_faults = ft.num_faults;
    const int rows_left = t.rows_left, cols_left = t.cols_left;
    auto row_of = [&](int fi, int i) { return fm.row0 + fi * fm.row_stride + i; };
    auto col_of = [&](int fj, int j) { return fm.col0 + fj * fm.col_stride + j; };
    auto inside = [&](int fi, int i, int fj, int j) {
      return row_of(fi, i) < rows_left && col_of(fj, j) < cols_left;
    };
    // Column j of fragment block (fi, fj): 4 rows, one float4 where C allows and all exist.
    auto column = [&](int fi, int fj, int j) { return C + row_of(fi, 0) + col_of(fj, j) * ldc; };
    auto whole = [&](int fi, int fj, int j) {
      return vec && row_of(fi, 3) < rows_left && col_of(fj, j) < cols_left;
    };

    // oc: the old C (zeros where beta = 0 or outside the matrix), then out in place. Each
    // fragment value is computed in one place (the fault loop inlined at every use of an
    // output value made the compile time grow tenfold).
    float oc[MT][NT];
    auto load_old = [&]() {
#pragma unroll
      for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
        for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
          for (int j = 0; j < 4; ++j) {
            float o[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            if (read_d) {
              const float* src = column(fi, fj, j);
              if (whole(fi, fj, j)) {
                const float4 v = *reinterpret_cast<const float4*>(src);
                o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
              } else {
#pragma unroll
                for (int i = 0; i < 4; ++i)
                  if (inside(fi, i, fj, j)) o[i] = src[i];
              }
            }
#pragma unroll
            for (int i = 0; i < 4; ++i) oc[fi * 4 + i][fj * 4 + j] = o[i];
          }
    };
    // oc = alpha acc + beta oc, with the epilogue's injected faults when with_faults.
    auto make_out = [&](bool with_faults) {
#pragma unroll
      for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
              float o = alpha * acc[fi * 4 + i][fj * 4 + j];
              if (read_d) o = fmaf(beta, oc[fi * 4 + i][fj * 4 + j], o);
              oc[fi * 4 + i][fj * 4 + j] = inside(fi, i, fj, j) ? o : 0.0f;
            }
      if (!with_faults) return;
      for (int f = 0; f < num_faults; ++f) {
        const abft::FaultSpec& fs = ft.faults[f];
        if (fs.k_step != abft::kKStepEpilogue || fs.target != abft::kTargetAccumulator) continue;
        const int64_t r = fs.row - t.m0, c = fs.col - t.n0;
        if (r < rows_left && c < cols_left) apply_fault_at(oc, fm, r, c, fs);
      }
    };

    // Line totals of acc, the old C, the magnitude and out.
    float* part = red(smem);
    load_old();
    write_line_partials(part, fm, [&](int fi, int i, int fj, int j) {
      return inside(fi, i, fj, j) ? acc[fi * 4 + i][fj * 4 + j] : 0.0f;
    }, Plus());
    if (read_d)
      write_line_partials(part + kPartFloats, fm, [&](int fi, int i, int fj, int j) {
        return oc[fi * 4 + i][fj * 4 + j];
      }, Plus());
    write_line_partials(part + 2 * kPartFloats, fm, [&](int fi, int i, int fj, int j) {
      if (!inside(fi, i, fj, j)) return 0.0f;
      return fabsf(alpha * acc[fi * 4 + i][fj * 4 + j]) + fabsf(beta * oc[fi * 4 + i][fj * 4 + j]);
    }, Plus());
    make_out(num_faults > 0);
    write_line_partials(part + 3 * kPartFloats, fm, [&](int fi, int i, int fj, int j) {
      return oc[fi * 4 + i][fj * 4 + j];
    }, Plus());
    __syncthreads();
    float s_acc[kItems], s_old[kItems], s_mag[kItems], s_out[kItems];
    combine_line_partials(part, Plus(), s_acc);
    if (read_d) combine_line_partials(part + kPartFloats, Plus(), s_old);
    combine_line_partials(part + 2 * kPartFloats, Plus(), s_mag);
    combine_line_partials(part + 3 * kPartFloats, Plus(), s_out);

    float residual[kItems], bound[kItems];
    bool finite = true;  // non-finite expectations come from the inputs: IEEE decides
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const int line = tid + q * kThreads;
      residual[q] = 0.0f;
      bound[q] = 0.0f;
      if (line >= kLines) continue;
      const float expect = read_d ? fmaf(beta, s_old[q], alpha * s_acc[q]) : alpha * s_acc[q];
      residual[q] = expect - s_out[q];
      // A handful of roundings per element and the line sums: k_done = 4 covers them.
      bound[q] = abft::rounding_bound(s_mag[q], 4, line < MTB ? NTB : MTB);
      finite = finite && isfinite(expect) && isfinite(s_mag[q]);
    }
    // (classify_lines' first barrier also orders the reads of `part` above before any reuse.)
    const abft::Verdict v = classify_lines(smem, residual, bound, finite);
    // kNonFinite: stored as computed; the K-loop check already counted the tile's inputs.
    const bool correct = ft.mode == abft::FtMode::kCorrect;
    const bool bad = v == abft::Verdict::kCorrectOne || v == abft::Verdict::kRecompute;
    if (bad && correct) {  // out again from acc and the old C, still in memory
      load_old();
      make_out(false);
    }
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

    // Store (each element is read and written by its own thread only), then read back.
    auto store_all = [&]() {
#pragma unroll
      for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
        for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
          for (int j = 0; j < 4; ++j) {
            float* dst = column(fi, fj, j);
            if (whole(fi, fj, j)) {
              store_cg(dst, make_float4(oc[fi * 4][fj * 4 + j], oc[fi * 4 + 1][fj * 4 + j],
                                        oc[fi * 4 + 2][fj * 4 + j], oc[fi * 4 + 3][fj * 4 + j]));
            } else {
#pragma unroll
              for (int i = 0; i < 4; ++i)
                if (inside(fi, i, fj, j)) store_cg(dst + i, oc[fi * 4 + i][fj * 4 + j]);
            }
          }
    };
    store_all();
    bool differs = false;
#pragma unroll
    for (int fi = 0; fi < kFragM; ++fi)
#pragma unroll
      for (int fj = 0; fj < kFragN; ++fj)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const float* src = column(fi, fj, j);
          float back[4];
          if (whole(fi, fj, j)) {
            const float4 b = load_cg4(src);
            back[0] = b.x, back[1] = b.y, back[2] = b.z, back[3] = b.w;
          } else {
#pragma unroll
            for (int i = 0; i < 4; ++i) back[i] = inside(fi, i, fj, j) ? load_cg(src + i) : 0.0f;
          }
#pragma unroll
          for (int i = 0; i < 4; ++i)
            differs = differs ||
                      __float_as_uint(back[i]) != __float_as_uint(oc[fi * 4 + i][fj * 4 + j]);
        }
    // A store-path fault: this thread's fragment goes out again (CORRECT mode).
    if (differs && correct) store_all();
    if (__syncthreads_or(differs) && tid == 0 && correct) {
      atomicAdd(&ft.stats->detected, 1ull);
      atomicAdd(&ft.stats->corrected, 1ull);
      record(ft, t, -1, -1, abft::kKStepEpilogue, 0.0f, abft::kActionCorrected);
    }
  }
};

}  // namespace aegis::gemm::simt
