// The non-fused FT-SGEMM baseline: checksums encoded by separate kernels before a plain
// GEMM, verified (and repaired) by a separate kernel after it. It exists to be measured
// against the fused levels, so it favours plain, obviously correct kernels.
//
// Checksums. C is cut into the GEMM's tiles of tile_m x tile_n. For tile row block t and
// column j, and for row i and tile column block u:
//   col_ck[t][j] = alpha sum_k (sum_{i in t} op(A)_ik) op(B)_kj + beta sum_{i in t} Cold_ij
//   row_ck[u][i] = alpha sum_k op(A)_ik (sum_{j in u} op(B)_kj) + beta sum_{j in u} Cold_ij
// with the magnitudes the threshold scales with (the same sums over absolute values):
//   col_mag[t][j] = |alpha| sum_k (sum_i |op(A)_ik|) |op(B)_kj| + |beta| sum_i |Cold_ij|.
// Both are small products of the operands' block sums with the other operand: one kernel
// forms the block sums of a K chunk, one multiplies them out (checksum_product_kernel).
// alpha = 0 reads neither A nor B, beta = 0 never reads C (NaN there must not matter).
//
// Threshold. A line (column j of tile t, or row i of tile u) is bad when
// |checksum - sum of the final C over the line| > abft::rounding_bound(mag, k_done, tile_len)
// with tile_len = tile_m for columns, tile_n for rows, and k_done = k + chunks + 2. Each
// side's error is at most gamma_(k_done + tile_len) S, S the exact magnitude: the checksum
// goes through a tile_len-long block sum of the operand (or of Cold, for the beta term),
// the K dot product (k FMAs, plus one addition per K chunk it is accumulated over), alpha *
// and the beta addition; C goes through k FMAs, alpha *, the beta FMA and the tile_len-long
// sum over the line. rounding_bound allows both chains, the residual's own rounding, and
// the computed mag falling short of S. Every sum is bounded by gamma_n times the exact
// magnitude in any summation order, so the bound holds whatever order the GEMM and these
// kernels add in.
//
// Verdicts (abft::classify) per tile, in the verify kernel:
//   kNonFinite   magnitudes not finite (Inf/NaN inputs, overflow): counted in nonfinite,
//                nothing is checked. (A non-finite checksum beside a finite magnitude is a
//                fault: its line is bad.)
//   kCorrectOne  DETECT: counted and reported. CORRECT: the located element is recomputed
//                from A, B and Cold (not patched with the residual: a large fault absorbs
//                the rest of the line's sum, so checksum - sum loses the true value), then
//                the tile is checked again; if it still fails it is recomputed as below.
//   kRecompute   DETECT: counted and reported. CORRECT: the block recomputes the whole tile
//                and, independently of the stored checksums (which may be the faulty part),
//                fresh checksums of it; the tile must pass against those, else it counts as
//                unrecovered.
// Records carry k_step = k: the check runs once, after all of K (and the epilogue). The
// baseline has no K tiles of its own (the GEMM instance's k_tb is not known here), so the
// count is in K elements, i.e. K tiles of width 1.
//
// Cold. Recomputing a tile with beta != 0 needs the C the call started with, which the GEMM
// overwrites. In CORRECT mode (unless beta is a host zero) the GEMM therefore runs over
// column panels of C, whole tiles wide: each panel's Cold is copied into the workspace, the
// panel is multiplied, faults are injected and the panel is verified. A panel is as wide as
// the workspace allows (all of C when it fits), so the workspace needed stays bounded by one
// tile column of Cold; see nonfused_workspace_bytes.
#include "abft/nonfused.h"

#include <algorithm>
#include <cstdint>

#include "abft/ft_check.h"
#include "common/grid_limits.h"

namespace aegis::abft {

namespace {

using gemm::simt::GemmParams;
using gemm::simt::Scalar;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
// K elements per shared-memory step of the checksum product, and the granularity of the K
// chunks the encode runs over when the workspace cannot hold the block sums of all of K.
constexpr int kKStep = 32;
// Product tile: kProdT block-sum rows x kProdL lines (columns of C, or rows of C).
constexpr int kProdT = 32;
constexpr int kProdL = 128;
// Workspace arrays start on 256-byte boundaries.
constexpr int64_t kAlignFloats = 64;

__host__ __device__ inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t align_floats(int64_t n) { return ceil_div(n, kAlignFloats) * kAlignFloats; }

__device__ __forceinline__ float scalar_value(const Scalar<float>& s) {
  return s.device_ptr ? *s.device_ptr : s.value;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// A matrix read as rows x cols: at(r, c) = p[r + c ld], or p[c + r ld] when trans. op(A) is
// {A, lda, trans_a} (m x k); op(B)^T is {B, ldb, !trans_b} (n x k), so both operands are
// indexed (line of C, k).
struct MatView {
  const float* p;
  int64_t ld;
  bool trans;
  __device__ __forceinline__ float at(int64_t r, int64_t c) const {
    return trans ? p[c + r * ld] : p[r + c * ld];
  }
};

// ---- encode --------------------------------------------------------------------------------

// out[t * out_ld + c] = s * sum_{r in block t} X(r, c0 + c) and out_abs likewise over |X|,
// for c < cols and block t of tb rows (the last one short). s is the scalar when scale_by_s,
// else 1; a zero scalar writes zeros without reading X (alpha = 0 / beta = 0 semantics).
// kTrans (X contiguous along c): one thread per c walks the block's rows. Otherwise (X
// contiguous along r): one warp per c, lanes across the rows.
template <bool kTrans>
__global__ void __launch_bounds__(kThreads)
    block_sums_kernel(MatView X, int64_t rows, int64_t c0, int64_t cols, int tb,
                      Scalar<float> scalar, bool scale_by_s, float* out, float* out_abs,
                      int64_t out_ld) {
  const float s = scalar_value(scalar);
  const float scale = scale_by_s ? s : 1.0f;
  const int64_t blocks = ceil_div(rows, tb);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t c = kTrans ? static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x
                           : static_cast<int64_t>(blockIdx.x) * kWarps + warp;
  if (c >= cols) return;
  for (int64_t t = blockIdx.y; t < blocks; t += gridDim.y) {
    const int64_t r0 = t * tb;
    const int64_t r1 = min(rows, r0 + tb);
    float sum = 0.0f, abs_sum = 0.0f;
    if (s != 0.0f) {
      if (kTrans) {
        for (int64_t r = r0; r < r1; ++r) {
          const float v = X.p[c0 + c + r * X.ld];
          sum += v;
          abs_sum += fabsf(v);
        }
      } else {
        for (int64_t r = r0 + lane; r < r1; r += 32) {
          const float v = X.p[r + (c0 + c) * X.ld];
          sum += v;
          abs_sum += fabsf(v);
        }
        sum = warp_sum(sum);
        abs_sum = warp_sum(abs_sum);
      }
    }
    if (kTrans || lane == 0) {
      out[t * out_ld + c] = scale * sum;
      out_abs[t * out_ld + c] = fabsf(scale) * abs_sum;
    }
  }
}

// out[t * out_ld + l] += alpha sum_{c < kc} L[t * l_ld + c] Y(l, k0 + c), and
// mag[t * out_ld + l] += |alpha| sum_c Labs[t * l_ld + c] |Y(l, k0 + c)|, for t < T, l < lines:
// the block sums of one operand (T x kc) times the other operand (lines x kc, MatView).
// A block computes kProdT x kProdL outputs; each thread 4 block-sum rows (one per warp
// group) x 4 lines (lane + 32 q, conflict-free in shared memory). alpha = 0 leaves out and
// mag as they are (the beta part) and reads nothing.
template <bool kTrans>
__global__ void __launch_bounds__(kThreads)
    checksum_product_kernel(const float* L, const float* Labs, int64_t T, int64_t l_ld,
                            int64_t kc, MatView Y, int64_t lines, int64_t k0,
                            Scalar<float> alpha_s, float* out, float* mag, int64_t out_ld) {
  static_assert(kProdT == 4 * kWarps && kProdL == 4 * 32, "thread mapping below");
  __shared__ float Ls[kKStep][kProdT + 1];    // (kKStep, kProdT) block sums
  __shared__ float Las[kKStep][kProdT + 1];   // (kKStep, kProdT) block sums of |.|
  __shared__ float Ys[kKStep][kProdL + 1];    // (kKStep, kProdL) the other operand
  const float alpha = scalar_value(alpha_s);
  if (alpha == 0.0f) return;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int64_t l0 = static_cast<int64_t>(blockIdx.x) * kProdL;

  for (int64_t t0 = static_cast<int64_t>(blockIdx.y) * kProdT; t0 < T;
       t0 += static_cast<int64_t>(gridDim.y) * kProdT) {
    float acc[4][4] = {}, acc_abs[4][4] = {};  // (t: warp * 4 + qt, line: lane + 32 ql)
    for (int64_t c = 0; c < kc; c += kKStep) {
      for (int idx = tid; idx < kKStep * kProdT; idx += kThreads) {
        const int cc = idx % kKStep, tt = idx / kKStep;
        const bool ok = t0 + tt < T && c + cc < kc;
        Ls[cc][tt] = ok ? L[(t0 + tt) * l_ld + c + cc] : 0.0f;
        Las[cc][tt] = ok ? Labs[(t0 + tt) * l_ld + c + cc] : 0.0f;
      }
      // Consecutive threads read consecutive addresses of Y in either layout.
      if (kTrans) {  // Y(l, k) = p[k + l ld]: lanes along k
        const bool k_ok = c + lane < kc;
        const float* col = Y.p + (k0 + c + lane);
#pragma unroll 4
        for (int ll = warp; ll < kProdL; ll += kWarps)
          Ys[lane][ll] = k_ok && l0 + ll < lines ? col[(l0 + ll) * Y.ld] : 0.0f;
      } else {  // Y(l, k) = p[l + k ld]: threads along l
        const int ll = tid % kProdL;
        const bool l_ok = l0 + ll < lines;
        const float* row = Y.p + (l0 + ll);
#pragma unroll 4
        for (int cc = tid / kProdL; cc < kKStep; cc += kThreads / kProdL)
          Ys[cc][ll] = l_ok && c + cc < kc ? row[(k0 + c + cc) * Y.ld] : 0.0f;
      }
      __syncthreads();
#pragma unroll 4
      for (int cc = 0; cc < kKStep; ++cc) {
        float a[4], aa[4], y[4], ya[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          a[q] = Ls[cc][warp * 4 + q];
          aa[q] = Las[cc][warp * 4 + q];
          y[q] = Ys[cc][lane + 32 * q];
          ya[q] = fabsf(y[q]);
        }
#pragma unroll
        for (int qt = 0; qt < 4; ++qt)
#pragma unroll
          for (int ql = 0; ql < 4; ++ql) {
            acc[qt][ql] = fmaf(a[qt], y[ql], acc[qt][ql]);
            acc_abs[qt][ql] = fmaf(aa[qt], ya[ql], acc_abs[qt][ql]);
          }
      }
      __syncthreads();
    }
#pragma unroll
    for (int qt = 0; qt < 4; ++qt) {
      const int64_t t = t0 + warp * 4 + qt;
      if (t >= T) continue;
#pragma unroll
      for (int ql = 0; ql < 4; ++ql) {
        const int64_t l = l0 + lane + 32 * ql;
        if (l >= lines) continue;
        out[t * out_ld + l] = fmaf(alpha, acc[qt][ql], out[t * out_ld + l]);
        mag[t * out_ld + l] = fmaf(fabsf(alpha), acc_abs[qt][ql], mag[t * out_ld + l]);
      }
    }
  }
}

// ---- GEMM panels: Cold copy, fault injection ---------------------------------------------

// cold[i + jj m] = C(i, j0 + jj) for a panel of w columns; nothing when beta = 0 (C is then
// never read, and the copy is never needed).
__global__ void __launch_bounds__(kThreads)
    copy_cold_kernel(const float* C, int64_t ldc, int64_t m, int64_t j0, int64_t w,
                     Scalar<float> beta, float* cold) {
  if (scalar_value(beta) == 0.0f) return;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= m) return;
  for (int64_t jj = blockIdx.y; jj < w; jj += gridDim.y)
    cold[i + jj * m] = C[i + (j0 + jj) * ldc];
}

struct InjectArgs {
  float* C;
  int64_t ldc, m, n;
  int tile_m, tile_n;
  int64_t j0, j1;  // the panel's columns
  float* col_ck;   // [tiles_m][n]
  float* row_ck;   // [tiles_n][m]
  int num_faults;
  FaultSpec faults[kMaxFaultsPerCall];
};

// One thread applies the panel's faults in order, so two faults on one value compose. An
// accumulator fault at any k_step lands on the final C: the non-fused GEMM keeps no
// accumulators outside its kernel, and the check after it sees the same corruption.
__global__ void inject_faults_kernel(const InjectArgs a) {
  for (int f = 0; f < a.num_faults; ++f) {
    const FaultSpec& s = a.faults[f];
    if (s.row < 0 || s.row >= a.m || s.col < a.j0 || s.col >= a.j1) continue;
    float* x;
    if (s.target == kTargetColumnChecksum)
      x = a.col_ck + (s.row / a.tile_m) * a.n + s.col;
    else if (s.target == kTargetRowChecksum)
      x = a.row_ck + (s.col / a.tile_n) * a.m + s.row;
    else
      x = a.C + s.row + s.col * a.ldc;
    *x = apply_fault(*x, s.kind, s.bit, s.value);
  }
}

// ---- verify ------------------------------------------------------------------------------

struct VerifyArgs {
  MatView a;   // op(A), m x k
  MatView bt;  // op(B)^T, n x k
  float* C;
  int64_t ldc;
  const float* cold;  // Cold(i, j) = cold[i + (j - cold_j0) m]; nullptr when not copied
  int64_t cold_j0;
  int64_t m, n, k;
  Scalar<float> alpha, beta;
  int tile_m, tile_n, tiles_m;
  int64_t first_tile_col;        // tile column of the panel's first tile
  const float *col_ck, *col_mag;  // [tiles_m][n]
  const float *row_ck, *row_mag;  // [tiles_n][m]
  int64_t k_done;                 // chain length for rounding_bound (see the top of the file)
  FtMode mode;
  int64_t call;
  FtDeviceStats* stats;
};

// What one tile check found; lives in shared memory.
struct TileCheck {
  int bad_rows, bad_cols, bad_row, bad_col, nonfinite;
  float row_res, col_res, row_bound, col_bound;
  unsigned long long worst;  // (|r| bits << 32) | r bits of the largest bad residual
  int verdict;
};

// Shared memory of the verify kernel, in floats (see VerifyTile).
int verify_smem_floats(int tile_m, int tile_n) {
  return (1 + 2) * tile_n + (1 + 2 + kWarps) * tile_m + 4 * kKStep;
}

// The work of one block on one tile. Every member function is called by all threads.
class VerifyTile {
 public:
  __device__ VerifyTile(const VerifyArgs& v, float* smem, TileCheck* check)
      : v_(v), check_(check) {
    const int tile = blockIdx.x;
    tile_row_ = static_cast<int64_t>(tile % v.tiles_m) * v.tile_m;
    tile_col_ = (v.first_tile_col + tile / v.tiles_m) * v.tile_n;
    rows_ = static_cast<int>(min(static_cast<int64_t>(v.tile_m), v.m - tile_row_));
    cols_ = static_cast<int>(min(static_cast<int64_t>(v.tile_n), v.n - tile_col_));
    colsum_ = smem;                               // (tile_n) sums of C's columns
    fresh_col_ck_ = colsum_ + v.tile_n;           // (tile_n) recomputed column checksums
    fresh_col_mag_ = fresh_col_ck_ + v.tile_n;    // (tile_n)
    rowsum_ = fresh_col_mag_ + v.tile_n;          // (tile_m) sums of C's rows
    fresh_row_ck_ = rowsum_ + v.tile_m;           // (tile_m)
    fresh_row_mag_ = fresh_row_ck_ + v.tile_m;    // (tile_m)
    rowpart_ = fresh_row_mag_ + v.tile_m;         // (kWarps, tile_m) per-warp row sums
    ksums_ = rowpart_ + kWarps * v.tile_m;        // (4, kKStep) block sums of a K step
  }

  // Checks the tile against the stored checksums.
  __device__ int check_stored() {
    const int64_t t = tile_row_ / v_.tile_m, u = tile_col_ / v_.tile_n;
    return check(v_.col_ck + t * v_.n + tile_col_, v_.col_mag + t * v_.n + tile_col_,
                 v_.row_ck + u * v_.m + tile_row_, v_.row_mag + u * v_.m + tile_row_);
  }
  // Checks the tile against the checksums recompute_tile() formed.
  __device__ int check_fresh() {
    return check(fresh_col_ck_, fresh_col_mag_, fresh_row_ck_, fresh_row_mag_);
  }

  // C(i, j) = alpha op(A)(i,:) op(B)(:,j) + beta Cold(i, j), by warp 0.
  __device__ void recompute_element(int64_t i, int64_t j) {
    if (threadIdx.x < 32) {
      const float alpha = scalar_value(v_.alpha), beta = scalar_value(v_.beta);
      float dot = 0.0f;
      if (alpha != 0.0f)
        for (int64_t kk = threadIdx.x; kk < v_.k; kk += 32)
          dot = fmaf(v_.a.at(i, kk), v_.bt.at(j, kk), dot);
      dot = warp_sum(dot);
      if (threadIdx.x == 0) {
        float out = alpha * dot;  // the GEMM epilogue's order: alpha * acc, then the beta FMA
        if (beta != 0.0f) out = fmaf(beta, cold(i, j), out);
        v_.C[i + j * v_.ldc] = out;
      }
    }
    __syncthreads();
  }

  // Recomputes every element of the tile, and fresh checksums of it from A, B and Cold by
  // the encode's formulas (block sums of the operands times the other operand), so that a
  // fault in the stored checksums cannot fail the recomputed tile.
  __device__ void recompute_tile() {
    const float alpha = scalar_value(v_.alpha), beta = scalar_value(v_.beta);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    for (int64_t e = tid; e < static_cast<int64_t>(rows_) * cols_; e += kThreads) {
      const int64_t i = tile_row_ + e % rows_, j = tile_col_ + e / rows_;
      float acc = 0.0f;
      if (alpha != 0.0f)
        for (int64_t kk = 0; kk < v_.k; ++kk) acc = fmaf(v_.a.at(i, kk), v_.bt.at(j, kk), acc);
      float out = alpha * acc;
      if (beta != 0.0f) out = fmaf(beta, cold(i, j), out);
      v_.C[i + j * v_.ldc] = out;
    }
    for (int j = tid; j < cols_; j += kThreads) fresh_col_ck_[j] = fresh_col_mag_[j] = 0.0f;
    for (int i = tid; i < rows_; i += kThreads) fresh_row_ck_[i] = fresh_row_mag_[i] = 0.0f;
    __syncthreads();
    if (alpha != 0.0f) {
      float* a_sum = ksums_;                // (kKStep) sum over the tile's rows of op(A)(i, k)
      float* a_abs = ksums_ + kKStep;       // (kKStep) of |op(A)(i, k)|
      float* b_sum = ksums_ + 2 * kKStep;   // (kKStep) sum over the tile's columns of op(B)(k, j)
      float* b_abs = ksums_ + 3 * kKStep;   // (kKStep) of |op(B)(k, j)|
      for (int64_t k0 = 0; k0 < v_.k; k0 += kKStep) {
        const int steps = static_cast<int>(min(static_cast<int64_t>(kKStep), v_.k - k0));
        for (int kk = warp; kk < kKStep; kk += kWarps) {
          float sa = 0.0f, saa = 0.0f, sb = 0.0f, sba = 0.0f;
          if (kk < steps) {
            for (int i = lane; i < rows_; i += 32) {
              const float x = v_.a.at(tile_row_ + i, k0 + kk);
              sa += x;
              saa += fabsf(x);
            }
            for (int j = lane; j < cols_; j += 32) {
              const float x = v_.bt.at(tile_col_ + j, k0 + kk);
              sb += x;
              sba += fabsf(x);
            }
          }
          sa = warp_sum(sa);
          saa = warp_sum(saa);
          sb = warp_sum(sb);
          sba = warp_sum(sba);
          if (lane == 0) {
            a_sum[kk] = sa;
            a_abs[kk] = saa;
            b_sum[kk] = sb;
            b_abs[kk] = sba;
          }
        }
        __syncthreads();
        for (int j = tid; j < cols_; j += kThreads) {
          float s = fresh_col_ck_[j], sm = fresh_col_mag_[j];
          for (int kk = 0; kk < steps; ++kk) {
            const float y = v_.bt.at(tile_col_ + j, k0 + kk);
            s = fmaf(a_sum[kk], y, s);
            sm = fmaf(a_abs[kk], fabsf(y), sm);
          }
          fresh_col_ck_[j] = s;
          fresh_col_mag_[j] = sm;
        }
        for (int i = tid; i < rows_; i += kThreads) {
          float s = fresh_row_ck_[i], sm = fresh_row_mag_[i];
          for (int kk = 0; kk < steps; ++kk) {
            const float x = v_.a.at(tile_row_ + i, k0 + kk);
            s = fmaf(x, b_sum[kk], s);
            sm = fmaf(fabsf(x), b_abs[kk], sm);
          }
          fresh_row_ck_[i] = s;
          fresh_row_mag_[i] = sm;
        }
        __syncthreads();
      }
    }
    for (int j = tid; j < cols_; j += kThreads) {
      float s = alpha * fresh_col_ck_[j], sm = fabsf(alpha) * fresh_col_mag_[j];
      if (beta != 0.0f) {
        float cs = 0.0f, ca = 0.0f;
        for (int i = 0; i < rows_; ++i) {
          const float x = cold(tile_row_ + i, tile_col_ + j);
          cs += x;
          ca += fabsf(x);
        }
        s = fmaf(beta, cs, s);
        sm = fmaf(fabsf(beta), ca, sm);
      }
      fresh_col_ck_[j] = s;
      fresh_col_mag_[j] = sm;
    }
    for (int i = tid; i < rows_; i += kThreads) {
      float s = alpha * fresh_row_ck_[i], sm = fabsf(alpha) * fresh_row_mag_[i];
      if (beta != 0.0f) {
        float cs = 0.0f, ca = 0.0f;
        for (int j = 0; j < cols_; ++j) {
          const float x = cold(tile_row_ + i, tile_col_ + j);
          cs += x;
          ca += fabsf(x);
        }
        s = fmaf(beta, cs, s);
        sm = fmaf(fabsf(beta), ca, sm);
      }
      fresh_row_ck_[i] = s;
      fresh_row_mag_[i] = sm;
    }
    __syncthreads();
  }

  __device__ int64_t tile_row() const { return tile_row_; }
  __device__ int64_t tile_col() const { return tile_col_; }

 private:
  __device__ float cold(int64_t i, int64_t j) const {
    return v_.cold[i + (j - v_.cold_j0) * v_.m];
  }

  // Sums the tile's rows and columns of C, compares them with the checksums (pointers to the
  // tile's first column / row entry) and classifies: returns the Verdict, check_ holds the
  // details.
  __device__ int check(const float* col_ck, const float* col_mag, const float* row_ck,
                       const float* row_mag) {
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int tile_m = v_.tile_m;
    if (tid == 0) *check_ = TileCheck{0, 0, -1, -1, 0, 0.0f, 0.0f, 0.0f, 0.0f, 0ull, 0};
    for (int idx = tid; idx < kWarps * tile_m; idx += kThreads) rowpart_[idx] = 0.0f;
    __syncthreads();
    // Warp w sums columns w, w + kWarps, ...; lane l owns rows l + 32 q of rowpart_[w], so
    // the per-warp row sums need no atomics.
    for (int j = warp; j < cols_; j += kWarps) {
      const float* col = v_.C + tile_row_ + (tile_col_ + j) * v_.ldc;
      float s = 0.0f;
      for (int i = lane; i < rows_; i += 32) {
        const float x = col[i];
        s += x;
        rowpart_[warp * tile_m + i] += x;
      }
      s = warp_sum(s);
      if (lane == 0) colsum_[j] = s;
    }
    __syncthreads();
    for (int i = tid; i < rows_; i += kThreads) {
      float s = 0.0f;
      for (int w = 0; w < kWarps; ++w) s += rowpart_[w * tile_m + i];
      rowsum_[i] = s;
    }
    __syncthreads();
    for (int line = tid; line < cols_ + rows_; line += kThreads) {
      const bool is_col = line < cols_;
      const int idx = is_col ? line : line - cols_;
      const float ck = is_col ? col_ck[idx] : row_ck[idx];
      const float mg = is_col ? col_mag[idx] : row_mag[idx];
      // Non-finite inputs (or overflow) show in the magnitude, which bounds |ck| from
      // the same data; a checksum that is not finite beside a finite magnitude is a fault
      // in the checksum, and its non-finite residual makes the line bad.
      if (!isfinite(mg)) atomicOr(&check_->nonfinite, 1);
      const float r = ck - (is_col ? colsum_[idx] : rowsum_[idx]);
      const float b = rounding_bound(mg, v_.k_done, is_col ? v_.tile_m : v_.tile_n);
      if (!exceeds(r, b)) continue;
      if (is_col) {
        atomicAdd(&check_->bad_cols, 1);
        atomicExch(&check_->bad_col, idx);
        atomicExch(&check_->col_res, r);
        atomicExch(&check_->col_bound, b);
      } else {
        atomicAdd(&check_->bad_rows, 1);
        atomicExch(&check_->bad_row, idx);
        atomicExch(&check_->row_res, r);
        atomicExch(&check_->row_bound, b);
      }
      const unsigned long long key =
          (static_cast<unsigned long long>(__float_as_uint(fabsf(r))) << 32) | __float_as_uint(r);
      atomicMax(&check_->worst, key);
    }
    __syncthreads();
    if (tid == 0) {
      const TileCheck& c = *check_;
      check_->verdict = static_cast<int>(classify(c.bad_rows, c.bad_cols, c.row_res, c.col_res,
                                                  c.row_bound + c.col_bound, c.nonfinite == 0));
    }
    __syncthreads();
    return check_->verdict;
  }

  const VerifyArgs& v_;
  TileCheck* check_;
  int64_t tile_row_, tile_col_;
  int rows_, cols_;
  float *colsum_, *rowsum_, *rowpart_, *ksums_;
  float *fresh_col_ck_, *fresh_col_mag_, *fresh_row_ck_, *fresh_row_mag_;
};

__device__ void add_record(const VerifyArgs& v, int64_t tile_row, int64_t tile_col, int64_t row,
                           int64_t col, float residual, int action) {
  const unsigned long long idx = atomicAdd(&v.stats->record_count, 1ull);
  FtRecord& r = v.stats->records[idx % kMaxRecords];
  r.call = v.call;
  r.tile_row = tile_row;
  r.tile_col = tile_col;
  r.row = row;
  r.col = col;
  r.k_step = v.k;  // see the top of the file
  r.residual = residual;
  r.action = action;
}

// One block per tile of the panel (blockIdx.x = tile row + tiles_m * tile column in panel).
__global__ void __launch_bounds__(kThreads) verify_kernel(const __grid_constant__ VerifyArgs v) {
  extern __shared__ float smem[];
  __shared__ TileCheck check;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    atomicAdd(&v.stats->checks, static_cast<unsigned long long>(gridDim.x));
  VerifyTile tile(v, smem, &check);

  const int verdict = tile.check_stored();
  if (verdict == static_cast<int>(Verdict::kClean)) return;
  if (verdict == static_cast<int>(Verdict::kNonFinite)) {
    if (threadIdx.x == 0) atomicAdd(&v.stats->nonfinite, 1ull);
    return;
  }
  const bool located = verdict == static_cast<int>(Verdict::kCorrectOne);
  const int64_t row = located ? tile.tile_row() + check.bad_row : -1;
  const int64_t col = located ? tile.tile_col() + check.bad_col : -1;
  const float residual = __uint_as_float(static_cast<unsigned>(check.worst & 0xffffffffull));
  if (threadIdx.x == 0) atomicAdd(&v.stats->detected, 1ull);
  if (v.mode != FtMode::kCorrect) {
    if (threadIdx.x == 0)
      add_record(v, tile.tile_row(), tile.tile_col(), row, col, residual, kActionReported);
    return;
  }
  if (located) {
    tile.recompute_element(row, col);
    const int again = tile.check_stored();
    if (threadIdx.x == 0) atomicAdd(&v.stats->checks, 1ull);
    if (again == static_cast<int>(Verdict::kClean)) {
      if (threadIdx.x == 0) {
        atomicAdd(&v.stats->corrected, 1ull);
        add_record(v, tile.tile_row(), tile.tile_col(), row, col, residual, kActionCorrected);
      }
      return;
    }
    // The pattern looked like one element but was not (e.g. faulty checksums): recompute.
  }
  tile.recompute_tile();
  const int again = tile.check_fresh();
  if (threadIdx.x == 0) {
    atomicAdd(&v.stats->checks, 1ull);
    atomicAdd(&v.stats->recomputed, 1ull);
    const bool ok = again == static_cast<int>(Verdict::kClean);
    if (!ok) atomicAdd(&v.stats->unrecovered, 1ull);
    add_record(v, tile.tile_row(), tile.tile_col(), row, col, residual,
               ok ? kActionRecomputed : kActionUnrecovered);
  }
}

// ---- host side ---------------------------------------------------------------------------

// Float offsets of the workspace arrays. The checksums live through the whole call; the
// scratch area holds first the encode's block sums, then each panel's Cold.
struct Layout {
  int64_t tiles_m, tiles_n;
  int64_t col_ck, col_mag, row_ck, row_mag, scratch;  // offsets in floats
  int64_t min_scratch;                                // floats the scratch needs at least
};

Layout make_layout(int64_t m, int64_t n, int tile_m, int tile_n) {
  Layout l{};
  l.tiles_m = ceil_div(m, tile_m);
  l.tiles_n = ceil_div(n, tile_n);
  const int64_t col = align_floats(l.tiles_m * n), row = align_floats(l.tiles_n * m);
  l.col_ck = 0;
  l.col_mag = col;
  l.row_ck = 2 * col;
  l.row_mag = 2 * col + row;
  l.scratch = 2 * col + 2 * row;
  // One K step of block sums, or one tile column of Cold.
  const int64_t block_sums =
      2 * (align_floats(l.tiles_m * kKStep) + align_floats(l.tiles_n * kKStep));
  l.min_scratch = std::max(block_sums, m * std::min<int64_t>(tile_n, n));
  return l;
}

cudaError_t launch_block_sums(MatView X, int64_t rows, int64_t c0, int64_t cols, int tb,
                              Scalar<float> s, bool scale_by_s, float* out, float* out_abs,
                              int64_t out_ld, cudaStream_t stream) {
  const int64_t blocks = ceil_div(rows, tb);
  const int64_t gx = X.trans ? ceil_div(cols, kThreads) : ceil_div(cols, kWarps);
  if (gx > INT32_MAX) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(gx),
                  static_cast<unsigned>(std::min<int64_t>(blocks, kMaxGridDimY)));
  if (X.trans)
    block_sums_kernel<true><<<grid, kThreads, 0, stream>>>(X, rows, c0, cols, tb, s, scale_by_s,
                                                           out, out_abs, out_ld);
  else
    block_sums_kernel<false><<<grid, kThreads, 0, stream>>>(X, rows, c0, cols, tb, s, scale_by_s,
                                                            out, out_abs, out_ld);
  return cudaGetLastError();
}

cudaError_t launch_product(const float* L, const float* Labs, int64_t T, int64_t l_ld, int64_t kc,
                           MatView Y, int64_t lines, int64_t k0, Scalar<float> alpha, float* out,
                           float* mag, int64_t out_ld, cudaStream_t stream) {
  const int64_t gx = ceil_div(lines, kProdL);
  if (gx > INT32_MAX) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(gx),
                  static_cast<unsigned>(std::min<int64_t>(ceil_div(T, kProdT), kMaxGridDimY)));
  if (Y.trans)
    checksum_product_kernel<true><<<grid, kThreads, 0, stream>>>(L, Labs, T, l_ld, kc, Y, lines, k0,
                                                                 alpha, out, mag, out_ld);
  else
    checksum_product_kernel<false><<<grid, kThreads, 0, stream>>>(L, Labs, T, l_ld, kc, Y, lines,
                                                                  k0, alpha, out, mag, out_ld);
  return cudaGetLastError();
}

}  // namespace

size_t nonfused_workspace_bytes(int64_t m, int64_t n, int tile_m, int tile_n) {
  if (m <= 0 || n <= 0 || tile_m <= 0 || tile_n <= 0) return 0;
  const Layout l = make_layout(m, n, tile_m, tile_n);
  return static_cast<size_t>(l.scratch + l.min_scratch) * sizeof(float);
}

cudaError_t run_nonfused_sgemm(const GemmParams<float>& p, bool trans_a, bool trans_b,
                               gemm::simt::SgemmLaunchFn gemm, int tile_m, int tile_n,
                               void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  if (tile_m <= 0 || tile_n <= 0 || p.split_k != 1 || !gemm || !p.ft.stats)
    return cudaErrorInvalidValue;
  if (p.m <= 0 || p.n <= 0) return cudaSuccess;
  const int smem_bytes = verify_smem_floats(tile_m, tile_n) * static_cast<int>(sizeof(float));
  if (smem_bytes > 48 * 1024) return cudaErrorInvalidValue;
  const Layout l = make_layout(p.m, p.n, tile_m, tile_n);
  const size_t need = nonfused_workspace_bytes(p.m, p.n, tile_m, tile_n);
  if (!workspace || workspace_bytes < need) return cudaErrorMemoryAllocation;
  if (l.tiles_m > INT32_MAX || l.tiles_m * l.tiles_n > INT32_MAX) return cudaErrorInvalidValue;

  float* ws = static_cast<float*>(workspace);
  float* col_ck = ws + l.col_ck;
  float* col_mag = ws + l.col_mag;
  float* row_ck = ws + l.row_ck;
  float* row_mag = ws + l.row_mag;
  float* scratch = ws + l.scratch;
  const int64_t scratch_floats = static_cast<int64_t>(workspace_bytes / sizeof(float)) - l.scratch;

  const MatView op_a{p.A, p.lda, trans_a};    // m x k
  const MatView op_bt{p.B, p.ldb, !trans_b};  // n x k
  const MatView c_cols{p.C, p.ldc, false};    // (i, j): block sums over i give column sums
  const MatView c_rows{p.C, p.ldc, true};     // (j, i): block sums over j give row sums
  cudaError_t err;

  // Encode. The beta terms first (C is read before the GEMM overwrites it; zeros for beta =
  // 0), then the alpha terms are added K chunk by K chunk.
  err = launch_block_sums(c_cols, p.m, 0, p.n, tile_m, p.beta, true, col_ck, col_mag, p.n, stream);
  if (err != cudaSuccess) return err;
  err = launch_block_sums(c_rows, p.n, 0, p.m, tile_n, p.beta, true, row_ck, row_mag, p.m, stream);
  if (err != cudaSuccess) return err;
  // Chunk width: the widest multiple of kKStep whose block sums fit the scratch.
  const int64_t per_k = 2 * (l.tiles_m + l.tiles_n);
  int64_t kc = (scratch_floats / per_k) / kKStep * kKStep;
  kc = std::min(kc, ceil_div(p.k, kKStep) * kKStep);
  if (kc < kKStep) return cudaErrorMemoryAllocation;  // unreachable: min_scratch holds one step
  float* a_sums = scratch;                   // (tiles_m, kc) block sums of op(A) over tile rows
  float* a_abs = a_sums + l.tiles_m * kc;    // (tiles_m, kc)
  float* b_sums = a_abs + l.tiles_m * kc;    // (tiles_n, kc) block sums of op(B) over tile columns
  float* b_abs = b_sums + l.tiles_n * kc;    // (tiles_n, kc)
  int64_t chunks = 0;
  for (int64_t k0 = 0; k0 < p.k; k0 += kc, ++chunks) {
    const int64_t w = std::min(kc, p.k - k0);
    err = launch_block_sums(op_a, p.m, k0, w, tile_m, p.alpha, false, a_sums, a_abs, kc, stream);
    if (err != cudaSuccess) return err;
    err = launch_block_sums(op_bt, p.n, k0, w, tile_n, p.alpha, false, b_sums, b_abs, kc, stream);
    if (err != cudaSuccess) return err;
    err = launch_product(a_sums, a_abs, l.tiles_m, kc, w, op_bt, p.n, k0, p.alpha, col_ck, col_mag,
                         p.n, stream);
    if (err != cudaSuccess) return err;
    err = launch_product(b_sums, b_abs, l.tiles_n, kc, w, op_a, p.m, k0, p.alpha, row_ck, row_mag,
                         p.m, stream);
    if (err != cudaSuccess) return err;
  }

  // Panels. Cold is kept only where a tile may have to be recomputed with beta != 0.
  const bool beta_host_zero = !p.beta.device_ptr && p.beta.value == 0.0f;
  const bool keep_cold = p.ft.mode == FtMode::kCorrect && !beta_host_zero;
  int64_t panel = p.n;
  if (keep_cold && scratch_floats < p.m * p.n)
    panel = (scratch_floats / p.m) / tile_n * tile_n;  // >= tile_n: min_scratch holds one

  VerifyArgs v{};
  v.a = op_a;
  v.bt = op_bt;
  v.C = p.C;
  v.ldc = p.ldc;
  v.cold = keep_cold ? scratch : nullptr;
  v.m = p.m;
  v.n = p.n;
  v.k = p.k;
  v.alpha = p.alpha;
  v.beta = p.beta;
  v.tile_m = tile_m;
  v.tile_n = tile_n;
  v.tiles_m = static_cast<int>(l.tiles_m);
  v.col_ck = col_ck;
  v.col_mag = col_mag;
  v.row_ck = row_ck;
  v.row_mag = row_mag;
  v.k_done = p.k + chunks + 2;
  v.mode = p.ft.mode;
  v.call = p.ft.call;
  v.stats = p.ft.stats;

  for (int64_t j0 = 0; j0 < p.n; j0 += panel) {
    const int64_t w = std::min(panel, p.n - j0);
    if (keep_cold) {
      const dim3 grid(static_cast<unsigned>(ceil_div(p.m, kThreads)),
                      static_cast<unsigned>(std::min<int64_t>(w, kMaxGridDimY)));
      copy_cold_kernel<<<grid, kThreads, 0, stream>>>(p.C, p.ldc, p.m, j0, w, p.beta, scratch);
      if ((err = cudaGetLastError()) != cudaSuccess) return err;
    }
    GemmParams<float> pp = p;
    pp.n = w;
    pp.B = trans_b ? p.B + j0 : p.B + j0 * p.ldb;
    pp.C = p.C + j0 * p.ldc;
    pp.b_vec = p.b_vec && reinterpret_cast<uintptr_t>(pp.B) % 16 == 0;
    pp.c_vec = p.c_vec && reinterpret_cast<uintptr_t>(pp.C) % 16 == 0;
    pp.tiles_n = static_cast<int>(ceil_div(w, tile_n));
    if ((err = gemm(pp, stream)) != cudaSuccess) return err;

    InjectArgs inj{};
    for (int f = 0; f < p.ft.num_faults && f < kMaxFaultsPerCall; ++f) {
      const FaultSpec& s = p.ft.faults[f];
      if (s.row < p.m && s.col >= j0 && s.col < j0 + w) inj.faults[inj.num_faults++] = s;
    }
    if (inj.num_faults > 0) {
      inj.C = p.C;
      inj.ldc = p.ldc;
      inj.m = p.m;
      inj.n = p.n;
      inj.tile_m = tile_m;
      inj.tile_n = tile_n;
      inj.j0 = j0;
      inj.j1 = j0 + w;
      inj.col_ck = col_ck;
      inj.row_ck = row_ck;
      inject_faults_kernel<<<1, 1, 0, stream>>>(inj);
      if ((err = cudaGetLastError()) != cudaSuccess) return err;
    }

    v.first_tile_col = j0 / tile_n;
    v.cold_j0 = j0;
    const int64_t tiles = l.tiles_m * ceil_div(w, tile_n);
    verify_kernel<<<static_cast<unsigned>(tiles), kThreads, smem_bytes, stream>>>(v);
    if ((err = cudaGetLastError()) != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace aegis::abft
