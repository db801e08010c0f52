// Tensor-core GEMM with mma.sync.m16n8k16 (FP16/BF16 operands, FP32 accumulation): the path
// that must run every call correctly — GPUs before Hopper, and operands a TMA descriptor
// cannot describe (pointers offset by one element, odd leading dimensions). Correctness for
// any shape, stride and alignment comes first, speed second, so the kernel keeps one simple
// structure: 128x128x32 block tile, 8 warps of 64x32, two shared-memory stages, fragments
// read with ldmatrix, and the epilogue staged through shared memory.
//
// Shared-memory tiles keep the contiguous dimension of global memory ("K-major": k
// contiguous, "MN-major": m or n contiguous), so every global -> shared copy is a straight
// copy of 8-element row chunks: a 16-byte cp.async when the pointer and leading dimension
// allow it (checked at run time, per operand), else eight 2-byte loads. ldmatrix without /
// with .trans turns either layout into the register fragments mma expects, so the transpose
// costs nothing in the inner loop.
#include "gemm/sm80/mma_sync_gemm.h"
#include "common/cp_async.cuh"
#include "common/grid_limits.h"
#include "gemm/tc/tc_scalar.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <type_traits>

namespace aegis::gemm::sm80 {
namespace {

using tc::DType;
using tc::TcGemmParams;
using tc::TcScalar;

constexpr int kBlockMN = 128;  // block tile: 128 rows of C (m) and 128 columns (n)
constexpr int kBlockK = 32;
constexpr int kWarpsM = 2;
constexpr int kWarpsN = 4;
constexpr int kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWarpM = kBlockMN / kWarpsM;  // 64
constexpr int kWarpN = kBlockMN / kWarpsN;  // 32
constexpr int kMmaM = 16;
constexpr int kMmaN = 8;
constexpr int kMmaK = 16;
constexpr int kFragsM = kWarpM / kMmaM;  // 4 m16 tiles per warp
constexpr int kFragsN = kWarpN / kMmaN;  // 4 n8 tiles per warp
constexpr int kChunk = 8;                // elements per global -> shared copy (16 bytes)
// 16 bytes of padding per shared row: rows stay 16-byte aligned (ldmatrix, 16-byte stores)
// and the 8 rows one ldmatrix phase reads (stride 80 or 272 bytes) fall on distinct banks.
constexpr int kPad = 8;

static_assert(kWarpM % kMmaM == 0 && kWarpN % (2 * kMmaN) == 0, "warp tile vs mma shape");
static_assert(kBlockK % kMmaK == 0, "k tile vs mma shape");

// One operand's (kBlockMN x kBlockK) k-slice in shared memory, as raw 16-bit values (the
// copies do not care whether they are FP16 or BF16). MN-major: [kBlockK][kBlockMN + kPad];
// K-major: [kBlockMN][kBlockK + kPad].
template <bool kMnMajor>
struct OperandTile {
  static constexpr int kContig = kMnMajor ? kBlockMN : kBlockK;   // global's contiguous dim
  static constexpr int kStrided = kMnMajor ? kBlockK : kBlockMN;  // global's strided dim
  static constexpr int kRowStride = kContig + kPad;
  static constexpr int kElems = kStrided * kRowStride;
  static constexpr int kChunksPerRow = kContig / kChunk;
  static constexpr int kChunksPerThread = kStrided * kChunksPerRow / kThreads;  // 2
  static_assert(kStrided * kChunksPerRow % kThreads == 0, "copy must split evenly");

  // Element offset of op(X)(mn, k) inside the tile.
  static constexpr __host__ __device__ int offset(int mn, int k) {
    return kMnMajor ? k * kRowStride + mn : mn * kRowStride + k;
  }
};

// Where one operand lives in global memory, in the operand's own terms: element
// (contig, strided) is at base[contig + strided * ld].
struct OperandGlobal {
  const uint16_t* base;
  int64_t ld;
  int64_t contig_extent;
  int64_t strided_extent;
  bool vec16;  // base 16-byte aligned and ld a multiple of 8: every chunk is one 16-byte load
};

// Copies this thread's chunks (8 consecutive elements of one row) of the k-slice whose first
// element is op(X)(mn0, k0) into one shared stage. Out-of-range elements become +0 (the same
// bits in FP16 and BF16), so partial tiles in m, n and k contribute nothing.
//
// Aligned operands (vec16) use 16-byte cp.async: the copy runs while the warp multiplies the
// current stage and costs no registers. Anything else (odd strides, offset pointers) is
// loaded element by element and stored as one 16-byte chunk, synchronously: holding those
// registers across the mma loop spilled at two blocks per SM. Measured on an H200 at 8192^3
// (f16): 225-270 TFLOP/s aligned, 80-100 unaligned; lanes on consecutive elements with
// 2-byte shared stores instead of chunks ran the unaligned case at 40-70.
template <bool kMnMajor>
__device__ __forceinline__ void copy_slice(uint16_t* tile, const OperandGlobal& g, int64_t mn0,
                                           int64_t k0) {
  using Tile = OperandTile<kMnMajor>;
  const int64_t contig0 = kMnMajor ? mn0 : k0;
  const int64_t strided0 = kMnMajor ? k0 : mn0;
  // Remaining extents clamped to int: only their comparison with offsets < 128 matters.
  const int contig_left = static_cast<int>(min(g.contig_extent - contig0, int64_t{INT_MAX}));
  const int strided_left = static_cast<int>(min(g.strided_extent - strided0, int64_t{INT_MAX}));
  const uint16_t* slice = g.base + strided0 * g.ld + contig0;
#pragma unroll
  for (int r = 0; r < Tile::kChunksPerThread; ++r) {
    const int chunk = threadIdx.x + r * kThreads;
    const int s = chunk / Tile::kChunksPerRow;
    const int c = (chunk % Tile::kChunksPerRow) * kChunk;
    uint16_t* dst = tile + s * Tile::kRowStride + c;
    const bool row_in = s < strided_left;
    const uint16_t* src = row_in ? slice + s * g.ld + c : g.base;
    if (g.vec16) {
      const int valid = row_in ? max(0, min(kChunk, contig_left - c)) : 0;
      cp_async_16(dst, src, 2 * valid);
    } else {
      uint32_t e[kChunk];
#pragma unroll
      for (int q = 0; q < kChunk; ++q) e[q] = row_in && c + q < contig_left ? __ldg(src + q) : 0u;
      *reinterpret_cast<uint4*>(dst) =
          make_uint4(e[0] | (e[1] << 16), e[2] | (e[3] << 16), e[4] | (e[5] << 16),
                     e[6] | (e[7] << 16));
    }
  }
}

// Four 8x8 b16 matrices; lanes 8i..8i+7 give the row addresses of matrix i, and register i
// receives row lane/4, columns 2*(lane%4) and +1 of matrix i (of its transpose with .trans).
// The "memory" clobber keeps the read on the far side of __syncthreads from the stores.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

template <bool kMnMajor>
__device__ __forceinline__ void load_fragments(uint32_t (&r)[4], uint32_t addr) {
  if constexpr (kMnMajor)
    ldmatrix_x4_trans(r, addr);
  else
    ldmatrix_x4(r, addr);
}

// d += a * b for one m16n8k16 tile.
template <typename T>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4],
                                             uint32_t b0, uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, __half>) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
#else
  // Dispatch never selects this kernel below compute capability 8.0.
  (void)d, (void)a, (void)b0, (void)b1;
  __trap();
#endif
}

// Fragment layouts of mma.m16n8k16 (PTX ISA), g = lane / 4, t = lane % 4; each register
// holds two 16-bit values, the lower k (or column) index in the low half:
//   A (16x16, row): a0 = (g, 2t..2t+1)  a1 = (g+8, 2t..)  a2 = (g, 2t+8..)  a3 = (g+8, 2t+8..)
//   B (16x8, col):  b0 = (k 2t..2t+1, n g)  b1 = (k 2t+8.., n g)
//   C (16x8):       c0 = (g, 2t)  c1 = (g, 2t+1)  c2 = (g+8, 2t)  c3 = (g+8, 2t+1)
// So A's fragment is four 8x8 blocks [m lo, k lo], [m hi, k lo], [m lo, k hi], [m hi, k hi],
// and two n8 tiles of B are [n lo, k lo], [n lo, k hi], [n hi, k lo], [n hi, k hi]: register
// i of ldmatrix.x4 receives block i. In a K-major tile an 8x8 block's rows are mn, its
// 16-byte columns k, and plain ldmatrix hands lane l the pair (mn = g, k = 2t..2t+1); in an
// MN-major tile the rows are k, and .trans hands lane l (k = 2t..2t+1, mn = g). Both are
// exactly the fragment pair above.
//
// The lane's row address: lane l serves row r = l % 8 of block i = l / 8.
template <bool kMnMajor>
constexpr __host__ __device__ int ldmatrix_lane_offset(int lane, int mn_block_offset,
                                                       int k_block_offset) {
  const int r = lane & 7;
  return OperandTile<kMnMajor>::offset(mn_block_offset + (kMnMajor ? 0 : r),
                                       k_block_offset + (kMnMajor ? r : 0));
}

template <bool kMnMajor>
constexpr __host__ __device__ int a_lane_offset(int lane) {
  const int block = lane >> 3;  // m offset 8 * (block & 1), k offset 8 * (block >> 1)
  return ldmatrix_lane_offset<kMnMajor>(lane, (block & 1) * 8, (block >> 1) * 8);
}

template <bool kMnMajor>
constexpr __host__ __device__ int b_lane_offset(int lane) {
  const int block = lane >> 3;  // n offset 8 * (block >> 1), k offset 8 * (block & 1)
  return ldmatrix_lane_offset<kMnMajor>(lane, (block >> 1) * 8, (block & 1) * 8);
}

// Compile-time self-check of the index math above against the fragment table: model what
// ldmatrix(.x4, .trans for MN-major) delivers from the row addresses the lanes give, and
// compare with the element mma expects in every lane, register and 16-bit half.
// ldmatrix: register i, half h of lane l is element (l / 4, 2 (l % 4) + h) of matrix i
// (without .trans) or element (2 (l % 4) + h, l / 4) (with .trans), where row j of matrix i
// starts at the address given by lane 8 i + j.
template <bool kMnMajor, bool kIsB>
constexpr bool fragment_addressing_matches_mma() {
  using Tile = OperandTile<kMnMajor>;
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int reg = 0; reg < 4; ++reg) {
      for (int h = 0; h < 2; ++h) {
        const int row = kMnMajor ? 2 * t + h : g;  // row of matrix reg, then column
        const int col = kMnMajor ? g : 2 * t + h;
        const int src_lane = 8 * reg + row;
        const int offset =
            (kIsB ? b_lane_offset<kMnMajor>(src_lane) : a_lane_offset<kMnMajor>(src_lane)) + col;
        const int got_mn = kMnMajor ? offset % Tile::kRowStride : offset / Tile::kRowStride;
        const int got_k = kMnMajor ? offset / Tile::kRowStride : offset % Tile::kRowStride;
        // A: a0..a3 = (g, 2t + h), (g + 8, ...), (g, 2t + 8 + h), (g + 8, 2t + 8 + h).
        // B, two n8 tiles: b0 b1 of tile 0 then of tile 1; b0 = (k 2t + h, n g), b1 = k + 8.
        const int want_mn = kIsB ? g + 8 * (reg >> 1) : g + 8 * (reg & 1);
        const int want_k = kIsB ? 2 * t + h + 8 * (reg & 1) : 2 * t + h + 8 * (reg >> 1);
        if (got_mn != want_mn || got_k != want_k) return false;
      }
    }
  }
  return true;
}
static_assert(fragment_addressing_matches_mma<false, false>(), "A, K-major");
static_assert(fragment_addressing_matches_mma<true, false>(), "A, MN-major");
static_assert(fragment_addressing_matches_mma<false, true>(), "B, K-major");
static_assert(fragment_addressing_matches_mma<true, true>(), "B, MN-major");

using tc::read_scalar;

__device__ __forceinline__ float load_as_float(const float* p) { return *p; }
__device__ __forceinline__ float load_as_float(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float load_as_float(const __nv_bfloat16* p) {
  return __bfloat162float(*p);
}
__device__ __forceinline__ void store_from_float(float* p, float v) { *p = v; }
__device__ __forceinline__ void store_from_float(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store_from_float(__nv_bfloat16* p, float v) {
  *p = __float2bfloat16_rn(v);
}

using Accumulators = float[kFragsM][kFragsN][4];  // (m16 tile, n8 tile, c0..c3) of one warp

// The epilogue goes through shared memory (the operand stages, no longer needed) so that
// each warp store covers 32 consecutive rows of one column of C, and so that only one
// element of C is in flight per thread: stored straight from the fragments, the unrolled
// C reads of the beta != 0 path needed more registers than two blocks per SM allow.
// Each warp handles its 64x32 tile in two halves of 32 rows (m16 tiles 2h, 2h + 1).
constexpr int kEpilogueRows = 32;
// Column stride of the staging buffer, in floats: 36 puts the 32 values of one fragment
// write (rows g, columns 2t) on banks 8t + g, all distinct; reads of one column by 32 lanes
// are consecutive.
constexpr int kEpilogueStride = kEpilogueRows + 4;
constexpr int kEpilogueFloatsPerWarp = kWarpN * kEpilogueStride;  // (n 32, m 32 + 4)

// C(row0 + lane, col0 + c) = alpha * buf(lane, c) + beta * C(...) for c < cols_left, in FP32
// with one rounding to C's type; beta = 0 never reads C. c_row points at C(row0 + lane, col0).
template <typename TC>
__device__ __forceinline__ void store_rows(TC* c_row, int64_t ldc, const float* buf, int lane,
                                           int cols_left, float alpha, float beta) {
  if (beta != 0.0f) {
#pragma unroll 4
    for (int c = 0; c < cols_left; ++c) {
      TC* dst = c_row + c * ldc;
      store_from_float(dst, fmaf(beta, load_as_float(dst),
                                 alpha * buf[c * kEpilogueStride + lane]));
    }
  } else {
#pragma unroll 4
    for (int c = 0; c < cols_left; ++c)
      store_from_float(c_row + c * ldc, alpha * buf[c * kEpilogueStride + lane]);
  }
}

// One block computes 128x128 tiles of C (grid-stride over tiles when the grid is capped).
// Warp w owns rows 64 * (w % 2) .. +63 and columns 32 * (w / 2) .. +31 of the tile.
template <typename T, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(kThreads, 2) gemm_mma_sync_kernel(const TcGemmParams p) {
  constexpr bool kAMnMajor = !kTransA;  // A stored m x k: m contiguous
  constexpr bool kBMnMajor = kTransB;   // B stored n x k: n contiguous
  using TileA = OperandTile<kAMnMajor>;
  using TileB = OperandTile<kBMnMajor>;
  constexpr int kStageBytes = 2 * 2 * (TileA::kElems + TileB::kElems);
  constexpr int kEpilogueBytes = 4 * kEpilogueFloatsPerWarp * kWarpsM * kWarpsN;
  constexpr int kSmemBytes = kStageBytes > kEpilogueBytes ? kStageBytes : kEpilogueBytes;
  // Two stages of op(A) (128 x 32) then two of op(B)^T (128 x 32), in the layouts of
  // OperandTile; after the k loop, one (32 x 36) float staging buffer per warp.
  __shared__ __align__(16) unsigned char smem[kSmemBytes];
  uint16_t* const smem_a = reinterpret_cast<uint16_t*>(smem);  // (stage, TileA)
  uint16_t* const smem_b = smem_a + 2 * TileA::kElems;           // (stage, TileB)

  // alpha = 0 (device pointer mode): C = beta * C without reading A or B, as BLAS.
  const int64_t k_tiles = read_scalar(p.alpha) == 0.0f ? 0 : (p.k + kBlockK - 1) / kBlockK;

  const OperandGlobal ga = {static_cast<const uint16_t*>(p.A), p.lda,
                            kAMnMajor ? p.m : p.k, kAMnMajor ? p.k : p.m,
                            reinterpret_cast<uintptr_t>(p.A) % 16 == 0 && p.lda % kChunk == 0};
  const OperandGlobal gb = {static_cast<const uint16_t*>(p.B), p.ldb,
                            kBMnMajor ? p.n : p.k, kBMnMajor ? p.k : p.n,
                            reinterpret_cast<uintptr_t>(p.B) % 16 == 0 && p.ldb % kChunk == 0};

  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warp_m = (warp % kWarpsM) * kWarpM;
  const int warp_n = (warp / kWarpsM) * kWarpN;
  const int a_lane = a_lane_offset<kAMnMajor>(lane);
  const int b_lane = b_lane_offset<kBMnMajor>(lane);
  float* const epilogue_buf =
      reinterpret_cast<float*>(smem) + warp * kEpilogueFloatsPerWarp;  // (n 32, m 32 + 4)

  const int64_t tiles_m = (p.m + kBlockMN - 1) / kBlockMN;
  const int64_t tiles_n = (p.n + kBlockMN - 1) / kBlockMN;
  for (int64_t tile_n = blockIdx.y; tile_n < tiles_n; tile_n += gridDim.y) {
    for (int64_t tile_m = blockIdx.x; tile_m < tiles_m; tile_m += gridDim.x) {
      const int64_t m0 = tile_m * kBlockMN;
      const int64_t n0 = tile_n * kBlockMN;
      Accumulators acc;
#pragma unroll
      for (int fm = 0; fm < kFragsM; ++fm)
#pragma unroll
        for (int fn = 0; fn < kFragsN; ++fn)
#pragma unroll
          for (int q = 0; q < 4; ++q) acc[fm][fn][q] = 0.0f;

      // Two stages: at the top of iteration kt, stage kt % 2 has landed (this thread's
      // cp.async waited, the barrier covers everyone's copies), and every warp has finished
      // reading stage (kt + 1) % 2 in iteration kt - 1, so the next slice may go there while
      // this one is multiplied.
      if (k_tiles > 0) {
        copy_slice<kAMnMajor>(smem_a, ga, m0, 0);
        copy_slice<kBMnMajor>(smem_b, gb, n0, 0);
        cp_async_commit();
      }
      for (int64_t kt = 0; kt < k_tiles; ++kt) {
        const int stage = static_cast<int>(kt & 1);
        cp_async_wait_all();
        __syncthreads();
        if (kt + 1 < k_tiles) {
          uint16_t* const next_a = smem_a + (stage ^ 1) * TileA::kElems;
          uint16_t* const next_b = smem_b + (stage ^ 1) * TileB::kElems;
          copy_slice<kAMnMajor>(next_a, ga, m0, (kt + 1) * kBlockK);
          copy_slice<kBMnMajor>(next_b, gb, n0, (kt + 1) * kBlockK);
          cp_async_commit();
        }

        const uint32_t a_base = shared_address(smem_a + stage * TileA::kElems) + 2u * a_lane;
        const uint32_t b_base = shared_address(smem_b + stage * TileB::kElems) + 2u * b_lane;
#pragma unroll
        for (int kk = 0; kk < kBlockK; kk += kMmaK) {
          // B fragments for the whole warp tile, A one m16 tile at a time (fewer registers).
          uint32_t b_frag[kFragsN / 2][4];  // (n8 tile pair, b0 b1 of each tile)
#pragma unroll
          for (int fp = 0; fp < kFragsN / 2; ++fp)
            load_fragments<kBMnMajor>(
                b_frag[fp], b_base + 2u * TileB::offset(warp_n + fp * 2 * kMmaN, kk));
#pragma unroll
          for (int fm = 0; fm < kFragsM; ++fm) {
            uint32_t a_frag[4];  // a0..a3
            load_fragments<kAMnMajor>(a_frag,
                                      a_base + 2u * TileA::offset(warp_m + fm * kMmaM, kk));
#pragma unroll
            for (int fn = 0; fn < kFragsN; ++fn)
              mma_m16n8k16<T>(acc[fm][fn], a_frag, b_frag[fn / 2][2 * (fn % 2)],
                              b_frag[fn / 2][2 * (fn % 2) + 1]);
          }
        }
      }
      __syncthreads();  // the staging buffers overlay the stages other warps may still read

      const float alpha = read_scalar(p.alpha);
      const float beta = read_scalar(p.beta);
      const int g = lane >> 2;
      const int t = lane & 3;
      const int64_t col0 = n0 + warp_n;
      const int cols_left = static_cast<int>(min(p.n - col0, int64_t{kWarpN}));
#pragma unroll
      for (int half = 0; half < kWarpM / kEpilogueRows; ++half) {
#pragma unroll
        for (int fm2 = 0; fm2 < kEpilogueRows / kMmaM; ++fm2)
#pragma unroll
          for (int fn = 0; fn < kFragsN; ++fn)
#pragma unroll
            for (int q = 0; q < 4; ++q) {  // c0..c3: row g + 8 (q / 2), column 2t + q % 2
              const int row = fm2 * kMmaM + g + 8 * (q >> 1);
              const int col = fn * kMmaN + 2 * t + (q & 1);
              epilogue_buf[col * kEpilogueStride + row] =
                  acc[half * (kEpilogueRows / kMmaM) + fm2][fn][q];
            }
        __syncwarp();
        const int64_t row = m0 + warp_m + half * kEpilogueRows + lane;
        if (row < p.m && cols_left > 0) {
          switch (p.c_type) {
            case DType::F32:
              store_rows(static_cast<float*>(p.C) + row + col0 * p.ldc, p.ldc, epilogue_buf,
                         lane, cols_left, alpha, beta);
              break;
            case DType::F16:
              store_rows(static_cast<__half*>(p.C) + row + col0 * p.ldc, p.ldc, epilogue_buf,
                         lane, cols_left, alpha, beta);
              break;
            case DType::BF16:
              store_rows(static_cast<__nv_bfloat16*>(p.C) + row + col0 * p.ldc, p.ldc,
                         epilogue_buf, lane, cols_left, alpha, beta);
              break;
          }
        }
        __syncwarp();  // the second half overwrites the buffer
      }
      // A block with another tile to do must not refill the stages while warps still read
      // their staging buffers.
      __syncthreads();
    }
  }
}

template <typename T, bool kTransA, bool kTransB>
cudaError_t launch_typed(const TcGemmParams& p, cudaStream_t stream) {
  const int64_t tiles_m = (p.m + kBlockMN - 1) / kBlockMN;
  const int64_t tiles_n = (p.n + kBlockMN - 1) / kBlockMN;
  // Grid limits (x < 2^31, y < 2^16); the kernel strides over the tiles beyond them.
  const dim3 grid(static_cast<unsigned>(tiles_m < INT_MAX ? tiles_m : INT_MAX),
                  static_cast<unsigned>(tiles_n < kMaxGridDimY ? tiles_n : kMaxGridDimY));
  gemm_mma_sync_kernel<T, kTransA, kTransB><<<grid, kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_for_type(const TcGemmParams& p, cudaStream_t stream) {
  if (p.trans_a)
    return p.trans_b ? launch_typed<T, true, true>(p, stream)
                     : launch_typed<T, true, false>(p, stream);
  return p.trans_b ? launch_typed<T, false, true>(p, stream)
                   : launch_typed<T, false, false>(p, stream);
}

}  // namespace

cudaError_t launch_gemm_mma_sync(const tc::TcGemmParams& p, cudaStream_t stream) {
  if (p.m <= 0 || p.n <= 0) return cudaSuccess;
  switch (p.ab_type) {
    case DType::F16: return launch_for_type<__half>(p, stream);
    case DType::BF16: return launch_for_type<__nv_bfloat16>(p, stream);
    case DType::F32: break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace aegis::gemm::sm80
