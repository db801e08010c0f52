// The 3xTF32 reference GEMMs of the fused FT-SGEMM (ft_reference_tf32.h).
//
// A thread block forms a 128 x BN block of one piece's partial sums (BN = 32 or 64): four warps
// stacked along the rows, each 32 x BN as 2 x BN/8 mma tiles of 16 x 8. Slices of 32 k stream
// through a three-stage cp.async ring in shared memory, each operand kept in its global layout
// so every copy is a straight 16-byte (or, unaligned, 4-byte) copy, zero-filled past the matrix
// and the piece; each thread's copies sit at fixed strides, so a slice costs a pointer bump.
// Step s of a slice gives the mma's column t + 4 h (h = 0, 1) the k at position 8 t + 2 s + h
// when k is contiguous in op(X), else 8 s + 2 t + h, in both operands: any one-to-one map pairs
// the products right, and these make a thread's k adjacent where k is contiguous. The pitches
// make every fragment read free of bank conflicts (g = lane / 4, t = lane % 4):
//   trans_x: op(X) [128 rows][32 + 4 k], sums [BN cols][32 + 4 k]: 16-byte reads (two steps)
//   else:    op(X) [32 k][128 + 4 rows] (banks 8 t + 4 h + g), sums [BN cols][32 + 8 k]
//            (8-byte reads, banks 8 g + 2 t)
// What limits it (ncu, H200): with 8-12 warps per SM the schedulers find a warp ready in about
// half the cycles, the rest waiting on the split's arithmetic; it reads op(X) at about half the
// memory's bandwidth (docs/perf-notes.md FT-12).
#include "gemm/simt/ft_reference_tf32.h"

#include <algorithm>

#include "common/cp_async.cuh"
#include "common/dependent_launch.cuh"
#include "common/grid_limits.h"
#include "gemm/simt/read_scalar.cuh"

namespace aegis::gemm::simt {

namespace {

constexpr int kBM = kFtReferenceTf32Rows;
constexpr int kBK = 32;
constexpr int kStages = 3;
// Pitches (floats) of the stage's rows; all keep rows 16-byte aligned (see the file comment).
constexpr int kLdKTrans = kBK + 4;  // k-contiguous rows of a trans_x kernel (16-byte reads)
constexpr int kLdK = kBK + 8;       // k-contiguous rows (sums) of the other kernel (8-byte reads)
constexpr int kLdRows = kBM + 4;    // row-contiguous k lines

// kNI: n8 tiles per warp (4: 32 columns, 8: 64); four warps stacked along the rows.
template <bool kTransX, int kNI>
struct RefTile {
  static constexpr int kBN = 8 * kNI;
  static constexpr int kThreads = 128;
  static constexpr int kLdA = kTransX ? kLdKTrans : kLdRows;
  static constexpr int kLdB = kTransX ? kLdKTrans : kLdK;
  static constexpr int kAFloats = kTransX ? kBM * kLdA : kBK * kLdA;
  static constexpr int kBFloats = kBN * kLdB;
  static constexpr int kStageFloats = kAFloats + kBFloats;
  static constexpr int kSmemBytes = kStages * kStageFloats * static_cast<int>(sizeof(float));
};

// Elements of a four-element chunk that exist, of `left` remaining.
__device__ __forceinline__ int chunk_elements(int64_t left) {
  return left <= 0 ? 0 : left >= 4 ? 4 : static_cast<int>(left);
}

// x = hi + lo + e with |e| < 2^-20 |x| as the tensor core reads them: it ignores the low 13
// bits of a TF32 operand (truncation), so x's own bits are hi (x truncated: exact, no overflow
// near FLT_MAX), and the exact remainder x - hi, truncated likewise, is lo. Two instructions;
// FtReferenceTf32.EveryPieceWithinItsBound fails if the hardware reads them otherwise.
__device__ __forceinline__ void split_tf32(float x, uint32_t& hi, uint32_t& lo) {
  hi = __float_as_uint(x);
  lo = __float_as_uint(x - __uint_as_float(hi & 0xffffe000u));
}

// d = a b + d for one 16 x 8 x 8 TF32 tile (FP32 accumulate).
__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                         uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  // The launcher never runs this kernel below compute capability 8.0.
  __trap();
#endif
}

// Sums of one slice of op(X) over the block's 128 rows, for the operand sums of the checks
// (ft_checksums.h): warp w takes k 8 w .. 8 w + 7, each lane four rows (its part of the
// 128), then a butterfly halves the k each lane holds at every step, so that after five
// shuffles lane 4 c holds k 8 w + c. Fixed order: the same bits every run.
template <bool kTransX>
__device__ __forceinline__ float slice_row_sums(const float* As, int warp, int lane) {
  float v[8];
  if constexpr (kTransX) {  // [row][k]: rows lane + 32 j, eight k each as two 16-byte reads
#pragma unroll
    for (int c = 0; c < 8; ++c) v[c] = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float* row = As + (lane + 32 * j) * kLdKTrans + 8 * warp;
      const float4 lo = *reinterpret_cast<const float4*>(row);
      const float4 hi = *reinterpret_cast<const float4*>(row + 4);
      v[0] += lo.x, v[1] += lo.y, v[2] += lo.z, v[3] += lo.w;
      v[4] += hi.x, v[5] += hi.y, v[6] += hi.z, v[7] += hi.w;
    }
  } else {  // [k][row]: rows 4 lane .. 4 lane + 3 as one 16-byte read per k
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      const float4 x = *reinterpret_cast<const float4*>(As + (8 * warp + c) * kLdRows + 4 * lane);
      v[c] = (x.x + x.y) + (x.z + x.w);
    }
  }
  // Lanes whose bit b is set keep the upper half of their k and send the lower.
#pragma unroll
  for (int half = 4, bit = 16; half >= 1; half /= 2, bit /= 2) {
    const bool upper = lane & bit;
#pragma unroll
    for (int c = 0; c < half; ++c) {
      const float mine = upper ? v[c + half] : v[c];
      const float theirs = __shfl_xor_sync(0xffffffffu, upper ? v[c] : v[c + half], bit);
      v[c] = mine + theirs;
    }
  }
  v[0] += __shfl_xor_sync(0xffffffffu, v[0], 2);
  v[0] += __shfl_xor_sync(0xffffffffu, v[0], 1);
  return v[0];  // k 8 warp + (lane >> 2) in lanes 4 c (the k of lane bits 4, 3, 2 in that order)
}

template <bool kTransX, bool kVecX, int kNI>
__global__ void __launch_bounds__(128, kNI == 4 ? 3 : 2)
    ft_reference_tf32_kernel(const float* __restrict__ X, int64_t ldx, int64_t rows,
                             const float* __restrict__ sums, int64_t sums_ld, int64_t width,
                             int64_t k, Scalar<float> gate, int piece0, int64_t kpp,
                             float* __restrict__ out, float* __restrict__ x_sums) {
  using Tile = RefTile<kTransX, kNI>;
  constexpr int kBN = Tile::kBN, kThreads = Tile::kThreads;
  extern __shared__ __align__(16) float smem[];
  // A dependent launch (ft_checksums.h): the kernel before this one (the operand sums, or the
  // other reference GEMM) writes the sums read here, so nothing is read before it has
  // completed. Then the next kernel may launch; it waits for this one in turn.
  wait_for_preceding_kernel();
  allow_dependent_launch();

  const int tiles_n = static_cast<int>((width + kBN - 1) / kBN);
  const int64_t m0 = static_cast<int64_t>(blockIdx.x / tiles_n) * kBM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x % tiles_n) * kBN;
  const int64_t piece = piece0 + blockIdx.y;
  const int64_t k_begin = piece * kpp;
  const int64_t k_end = min(k, k_begin + kpp);
  const float g_value = read_scalar(gate);
  const int slices = (g_value == 0.0f || k_end <= k_begin)
                         ? 0
                         : static_cast<int>((k_end - k_begin + kBK - 1) / kBK);

  const int tid = threadIdx.x, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int wr = (tid / 32) * 32;  // the warp's first row, tile-relative
  // The first column block of each row block also forms the row-group sums of op(X), and the
  // piece that ends at K zeroes their padding [K, sums_ld).
  const bool sum_rows = x_sums != nullptr && slices > 0 && n0 == 0;
  if (sum_rows && k_end == k && tid < sums_ld - k) x_sums[(m0 / kBM) * sums_ld + k + tid] = 0.0f;

  // The copies of a slice: 1024 four-float chunks of op(X) and BN * 8 of the sums, eight
  // (resp. BN / 16) per thread. Each thread's chunks sit at fixed places in the stage and at
  // fixed strides in global memory, so a slice costs a pointer bump and the k bound; rows and
  // columns past the matrix are decided once.
  constexpr int kAChunks = kBM * kBK / 4 / kThreads, kBChunks = kBN * kBK / 4 / kThreads;
  // trans_x: row a_line0 + 16 i, k 4 a_q .. +3; else: k a_line0 + 4 i, rows 4 a_q .. +3.
  const int a_q = kTransX ? tid % 8 : tid % 32, a_line0 = kTransX ? tid / 8 : tid / 32;
  const int64_t a_stride = kTransX ? 16 * ldx : 4 * ldx;  // between a thread's chunks
  const int64_t a_slice = kTransX ? kBK : kBK * ldx;     // from one slice to the next
  const float* a_src = X + (kTransX ? (m0 + a_line0) * ldx + k_begin + 4 * a_q
                                    : m0 + 4 * a_q + (k_begin + a_line0) * ldx);
  uint32_t a_rows_ok = 0;  // trans_x: bit i, row a_line0 + 16 i exists
  if constexpr (kTransX) {
#pragma unroll
    for (int i = 0; i < kAChunks; ++i) a_rows_ok |= (m0 + a_line0 + 16 * i < rows ? 1u : 0u) << i;
  }
  // Otherwise: the rows of a chunk that exist.
  const int a_rows_valid = kTransX ? 0 : chunk_elements(rows - m0 - 4 * a_q);
  const int b_q = tid % 8, b_col0 = tid / 8;  // column b_col0 + 16 i, k 4 b_q .. +3
  const float* b_src = sums + (n0 + b_col0) * sums_ld + k_begin + 4 * b_q;
  uint32_t b_cols_ok = 0;
#pragma unroll
  for (int i = 0; i < kBChunks; ++i) b_cols_ok |= (n0 + b_col0 + 16 * i < width ? 1u : 0u) << i;

  auto load_slice = [&](int stage, int slice) {
    float* As = smem + stage * Tile::kStageFloats;
    float* Bs = As + Tile::kAFloats;
    const int64_t kk0 = k_begin + static_cast<int64_t>(slice) * kBK;
    const int64_t k_rest = k_end - kk0;
    const int k_left = k_rest < kBK ? static_cast<int>(k_rest) : kBK;  // k of this slice
    const float* a = a_src + slice * a_slice;
#pragma unroll
    for (int i = 0; i < kAChunks; ++i) {
      const float* src = a + i * a_stride;
      if constexpr (kTransX) {
        float* dst = As + (a_line0 + 16 * i) * Tile::kLdA + 4 * a_q;
        const bool row_ok = (a_rows_ok >> i) & 1u;
        if constexpr (kVecX) {
          const int valid = row_ok ? chunk_elements(k_left - 4 * a_q) : 0;
          cp_async_16(dst, valid > 0 ? src : X, valid * 4);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const bool ok = row_ok && 4 * a_q + e < k_left;
            cp_async_4(dst + e, ok ? src + e : X, ok);
          }
        }
      } else {
        float* dst = As + (a_line0 + 4 * i) * Tile::kLdA + 4 * a_q;
        const int valid = a_line0 + 4 * i < k_left ? a_rows_valid : 0;
        if constexpr (kVecX) {
          cp_async_16(dst, valid > 0 ? src : X, valid * 4);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) cp_async_4(dst + e, e < valid ? src + e : X, e < valid);
        }
      }
    }
    const float* b = b_src + slice * kBK;
#pragma unroll
    for (int i = 0; i < kBChunks; ++i) {
      const int valid = (b_cols_ok >> i) & 1u ? chunk_elements(k_left - 4 * b_q) : 0;
      cp_async_16(Bs + (b_col0 + 16 * i) * Tile::kLdB + 4 * b_q,
                  valid > 0 ? b + i * 16 * sums_ld : sums, valid * 4);
    }
  };

  float acc[2][kNI][4] = {};    // (m16 block, n8 block, fragment element): the piece so far
  float slice_acc[2][kNI][4] = {};  // the same for the current slice, from zero

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < slices) load_slice(s, s);
    cp_async_commit();
  }
  for (int sl = 0; sl < slices; ++sl) {
    cp_async_wait<kStages - 2>();
    __syncthreads();  // the slice is in; every warp is done with the stage refilled next
    if (sl + kStages - 1 < slices) load_slice((sl + kStages - 1) % kStages, sl + kStages - 1);
    cp_async_commit();
    const float* As = smem + (sl % kStages) * Tile::kStageFloats;
    const float* Bs = As + Tile::kAFloats;
    if (sum_rows) {
      const float v = slice_row_sums<kTransX>(As, tid / 32, lane);
      // Lane 4 c holds the k whose index bits are lane bits 4, 3, 2 (see slice_row_sums).
      const int c = ((lane >> 4) & 1) * 4 + ((lane >> 3) & 1) * 2 + ((lane >> 2) & 1);
      const int64_t kk = k_begin + static_cast<int64_t>(sl) * kBK + 8 * (tid / 32) + c;
      if ((lane & 3) == 0 && kk < k_end) x_sums[(m0 / kBM) * sums_ld + kk] = v;
    }
    // Step s of the slice gives the mma's column t + 4 h (h = 0, 1) the k of position
    // 8 t + 2 s + h where k is contiguous in op(X) (trans_x), else 8 s + 2 t + h, for both
    // operands alike: a thread's two k of a step are adjacent, and with trans_x those of two
    // steps too (one 16-byte read).
#pragma unroll
    for (int sp = 0; sp < kBK / 16; ++sp) {  // steps 2 sp and 2 sp + 1
      float xa[2][2][4];                     // (m16 block, row g / g + 8, k of the two steps)
      float xb[kNI][4];                      // (n8 block, k of the two steps)
#pragma unroll
      for (int mi = 0; mi < 2; ++mi) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int r = wr + mi * 16 + g + 8 * half;
          if constexpr (kTransX) {
            const float4 v = *reinterpret_cast<const float4*>(As + r * Tile::kLdA + 8 * t + 4 * sp);
            xa[mi][half][0] = v.x, xa[mi][half][1] = v.y;
            xa[mi][half][2] = v.z, xa[mi][half][3] = v.w;
          } else {
            const int kp = 16 * sp + 2 * t;
#pragma unroll
            for (int e = 0; e < 4; ++e)
              xa[mi][half][e] = As[(kp + 8 * (e >> 1) + (e & 1)) * Tile::kLdA + r];
          }
        }
      }
#pragma unroll
      for (int ni = 0; ni < kNI; ++ni) {
        const float* col = Bs + (ni * 8 + g) * Tile::kLdB;
        if constexpr (kTransX) {
          const float4 v = *reinterpret_cast<const float4*>(col + 8 * t + 4 * sp);
          xb[ni][0] = v.x, xb[ni][1] = v.y, xb[ni][2] = v.z, xb[ni][3] = v.w;
        } else {
          const float2 v0 = *reinterpret_cast<const float2*>(col + 16 * sp + 2 * t);
          const float2 v1 = *reinterpret_cast<const float2*>(col + 16 * sp + 8 + 2 * t);
          xb[ni][0] = v0.x, xb[ni][1] = v0.y, xb[ni][2] = v1.x, xb[ni][3] = v1.y;
        }
      }
#pragma unroll
      for (int ss = 0; ss < 2; ++ss) {
        // Fragment element half + 2 h: row g + 8 half, column t + 4 h.
        uint32_t a_hi[2][4], a_lo[2][4];
#pragma unroll
        for (int mi = 0; mi < 2; ++mi)
#pragma unroll
          for (int half = 0; half < 2; ++half)
#pragma unroll
            for (int h = 0; h < 2; ++h)
              split_tf32(xa[mi][half][2 * ss + h], a_hi[mi][half + 2 * h], a_lo[mi][half + 2 * h]);
#pragma unroll
        for (int ni = 0; ni < kNI; ++ni) {
          uint32_t b_hi[2], b_lo[2];  // row t + 4 h, column g
          split_tf32(xb[ni][2 * ss], b_hi[0], b_lo[0]);
          split_tf32(xb[ni][2 * ss + 1], b_hi[1], b_lo[1]);
#pragma unroll
          for (int mi = 0; mi < 2; ++mi) {
            mma_tf32(slice_acc[mi][ni], a_lo[mi], b_hi[0], b_hi[1]);
            mma_tf32(slice_acc[mi][ni], a_hi[mi], b_lo[0], b_lo[1]);
            mma_tf32(slice_acc[mi][ni], a_hi[mi], b_hi[0], b_hi[1]);
          }
        }
      }
    }
    // One rounded FP32 add per element and slice bounds the tensor cores' truncation to the
    // slice's magnitude (ft_reference_tf32.h).
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
      for (int ni = 0; ni < kNI; ++ni)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          acc[mi][ni][e] += slice_acc[mi][ni][e];
          slice_acc[mi][ni][e] = 0.0f;
        }
  }
  cp_async_wait_all();

  float* P = out + piece * rows * width;
#pragma unroll
  for (int mi = 0; mi < 2; ++mi) {
#pragma unroll
    for (int ni = 0; ni < kNI; ++ni) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {  // (row g + 8 (e >> 1), column 2 t + (e & 1))
        const int64_t i = m0 + wr + mi * 16 + g + 8 * (e >> 1);
        const int64_t j = n0 + ni * 8 + 2 * t + (e & 1);
        if (i < rows && j < width) P[i + j * rows] = acc[mi][ni][e];
      }
    }
  }
}

// Grid y of one launch.
constexpr int kMaxPiecesPerLaunch = static_cast<int>(kMaxGridDimY);

template <bool kTransX, bool kVecX, int kNI>
cudaError_t launch_typed(const float* X, int64_t ldx, int64_t rows, const float* sums,
                         int64_t sums_ld, int64_t width, int64_t k, Scalar<float> gate,
                         int pieces, int64_t kpp, float* out, float* x_sums, bool dependent,
                         cudaStream_t stream) {
  using Tile = RefTile<kTransX, kNI>;
  auto kernel = ft_reference_tf32_kernel<kTransX, kVecX, kNI>;
  static const cudaError_t attr = cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tile::kSmemBytes);
  if (attr != cudaSuccess) return attr;
  const int64_t blocks = ((rows + kBM - 1) / kBM) * ((width + Tile::kBN - 1) / Tile::kBN);
  if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  for (int s0 = 0; s0 < pieces; s0 += kMaxPiecesPerLaunch) {
    const dim3 grid(static_cast<unsigned>(blocks),
                    static_cast<unsigned>(std::min(kMaxPiecesPerLaunch, pieces - s0)));
    cudaError_t err;
    if (dependent) {
      err = launch_dependent_shared(kernel, grid, dim3(Tile::kThreads), Tile::kSmemBytes, stream,
                                    X, ldx, rows, sums, sums_ld, width, k, gate, s0, kpp, out,
                                    x_sums);
    } else {
      kernel<<<grid, Tile::kThreads, Tile::kSmemBytes, stream>>>(X, ldx, rows, sums, sums_ld,
                                                                  width, k, gate, s0, kpp, out,
                                                                  x_sums);
      err = cudaGetLastError();
    }
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

template <bool kTransX, bool kVecX>
cudaError_t launch_width(int64_t width, const float* X, int64_t ldx, int64_t rows,
                         const float* sums, int64_t sums_ld, int64_t k, Scalar<float> gate,
                         int pieces, int64_t kpp, float* out, float* x_sums, bool dependent,
                         cudaStream_t stream) {
  if (ft_reference_tf32_cols(width) == 32)
    return launch_typed<kTransX, kVecX, 4>(X, ldx, rows, sums, sums_ld, width, k, gate, pieces,
                                           kpp, out, x_sums, dependent, stream);
  return launch_typed<kTransX, kVecX, 8>(X, ldx, rows, sums, sums_ld, width, k, gate, pieces, kpp,
                                         out, x_sums, dependent, stream);
}

}  // namespace

cudaError_t launch_ft_reference_tf32(bool trans_x, const float* X, int64_t ldx, bool x_vec,
                                     int64_t rows, const float* sums, int64_t sums_ld,
                                     int64_t width, int64_t k, Scalar<float> gate, int pieces,
                                     int64_t k_per_piece, float* out, float* x_sums,
                                     bool dependent, cudaStream_t stream) {
  if (rows <= 0 || width <= 0 || pieces <= 0) return cudaSuccess;
  if (trans_x)
    return x_vec ? launch_width<true, true>(width, X, ldx, rows, sums, sums_ld, k, gate, pieces,
                                            k_per_piece, out, x_sums, dependent, stream)
                 : launch_width<true, false>(width, X, ldx, rows, sums, sums_ld, k, gate, pieces,
                                             k_per_piece, out, x_sums, dependent, stream);
  return x_vec ? launch_width<false, true>(width, X, ldx, rows, sums, sums_ld, k, gate, pieces,
                                           k_per_piece, out, x_sums, dependent, stream)
               : launch_width<false, false>(width, X, ldx, rows, sums, sums_ld, k, gate, pieces,
                                            k_per_piece, out, x_sums, dependent, stream);
}

}  // namespace aegis::gemm::simt
