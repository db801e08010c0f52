// Epilogue of the sm90 GEMM: C = alpha * acc + beta * C for one consumer warpgroup's 64 x BN
// accumulators, rounded once to C's type.
//
// The wgmma accumulator layout gives each thread pairs of neighbouring columns, so storing
// straight from registers writes 16-32 byte pieces of eight columns per warp instruction.
// The staged version instead passes the tile through shared memory 32 columns at a time
// (padded so both the fragment writes and the column reads are free of bank conflicts) and
// then reads and writes C down its columns, four rows per thread, with 8- or 16-byte
// accesses where C's alignment allows. beta = 0 never reads C; alpha = 0 ignores the
// product (device pointer mode reaches the kernel with it, and A, B may then hold anything).
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cuda.h>

#include "gemm/sm90/sm90_primitives.cuh"

namespace aegis::gemm::sm90 {

// Columns per staging round, and the padded column stride (floats) of the staging buffer:
// 68 = 64 rows + 4 puts the four column pairs of a fragment store in different banks and
// keeps 16-byte alignment for the column reads.
constexpr int kStageCols = 32;
constexpr int kStageStride = 68;
constexpr int kEpilogueSmemFloats = kStageCols * kStageStride;

__device__ __forceinline__ float scale(float acc, float alpha) {
  return alpha == 0.0f ? 0.0f : alpha * acc;
}

template <typename Out>
__device__ __forceinline__ float to_float(Out v) {
  return static_cast<float>(v);
}

template <typename Out>
__device__ __forceinline__ Out from_float(float v) {
  if constexpr (sizeof(Out) == 4) {
    return v;
  } else {
    return Out(v);
  }
}

// Raw bits of 16-bit values, for packing four of them into one 8-byte access.
template <typename Out>
__device__ __forceinline__ float bits_to_float(unsigned short b) {
  if constexpr (std::is_same_v<Out, __half>) {
    return __half2float(__ushort_as_half(b));
  } else {
    return __bfloat162float(__ushort_as_bfloat16(b));
  }
}
template <typename Out>
__device__ __forceinline__ unsigned short float_to_bits(float v) {
  if constexpr (std::is_same_v<Out, __half>) {
    return __half_as_ushort(__float2half_rn(v));
  } else {
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  }
}

// Direct stores from the accumulator registers (row0/col0: this thread's first element).
template <typename Out, int BN>
__device__ __forceinline__ void store_tile_direct(const float (&acc)[BN / 2], Out* C,
                                                  int64_t ldc, int64_t m, int64_t n,
                                                  int64_t row0, int64_t col0, float alpha,
                                                  float beta) {
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int64_t col = col0 + 8 * j + e;
      if (col >= n) continue;
      Out* column = C + col * ldc;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t row = row0 + 8 * h;
        if (row >= m) continue;
        float out = scale(acc[4 * j + 2 * h + e], alpha);
        if (beta != 0.0f) out += beta * to_float(column[row]);
        column[row] = from_float<Out>(out);
      }
    }
  }
}

// Four consecutive rows of one column: vector access when the whole group is in range and
// aligned (c_vec: C 16-byte aligned and ldc a multiple of 16 bytes), else element by element.
template <typename Out>
__device__ __forceinline__ void store_four(Out* p, int64_t rows_left, bool vec, float4 v,
                                           float alpha, float beta) {
  float o[4] = {scale(v.x, alpha), scale(v.y, alpha), scale(v.z, alpha), scale(v.w, alpha)};
  if (vec && rows_left >= 4) {
    if constexpr (sizeof(Out) == 4) {
      float4* q = reinterpret_cast<float4*>(p);
      if (beta != 0.0f) {
        const float4 c = *q;
        o[0] += beta * c.x, o[1] += beta * c.y, o[2] += beta * c.z, o[3] += beta * c.w;
      }
      *q = make_float4(o[0], o[1], o[2], o[3]);
    } else {
      uint2* q = reinterpret_cast<uint2*>(p);
      if (beta != 0.0f) {
        const uint2 c = *q;
        o[0] += beta * bits_to_float<Out>(static_cast<unsigned short>(c.x & 0xFFFF));
        o[1] += beta * bits_to_float<Out>(static_cast<unsigned short>(c.x >> 16));
        o[2] += beta * bits_to_float<Out>(static_cast<unsigned short>(c.y & 0xFFFF));
        o[3] += beta * bits_to_float<Out>(static_cast<unsigned short>(c.y >> 16));
      }
      uint2 out;
      out.x = float_to_bits<Out>(o[0]) | (static_cast<uint32_t>(float_to_bits<Out>(o[1])) << 16);
      out.y = float_to_bits<Out>(o[2]) | (static_cast<uint32_t>(float_to_bits<Out>(o[3])) << 16);
      *q = out;
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if (i >= rows_left) break;
    float out = o[i];
    if (beta != 0.0f) out += beta * to_float(p[i]);
    p[i] = from_float<Out>(out);
  }
}

// Staged stores through `stage` (kEpilogueSmemFloats floats owned by this warpgroup),
// kStageCols columns a round (a narrower tile's BN in one round).
// thread: 0..127 within the warpgroup; barrier_id: this warpgroup's named barrier.
template <typename Out, int BN>
__device__ __forceinline__ void store_tile_staged(const float (&acc)[BN / 2], float* stage,
                                                  int thread, int barrier_id, Out* C,
                                                  int64_t ldc, int64_t m, int64_t n,
                                                  int64_t tile_row, int64_t tile_col,
                                                  bool c_vec, float alpha, float beta) {
  const int warp = thread / 32, lane = thread % 32;
  const int frag_row = warp * 16 + lane / 4;  // + 8 for the second half
  const int frag_col = (lane % 4) * 2;        // + 1 for the second of the pair
  const int read_col = thread / 16;           // 8 columns per pass, 16 threads per column
  const int read_row = (thread % 16) * 4;
  const int64_t rows_left = m - tile_row - read_row;
  // Columns per round: kStageCols, or all of a narrower tile's.
  constexpr int kCols = BN < kStageCols ? BN : kStageCols;
#pragma unroll
  for (int chunk = 0; chunk < BN / kCols; ++chunk) {
    warpgroup_barrier(barrier_id);  // the previous chunk has been read out
#pragma unroll
    for (int j = 0; j < kCols / 8; ++j) {
      const int jj = chunk * (kCols / 8) + j;
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e)
          stage[(8 * j + frag_col + e) * kStageStride + frag_row + 8 * h] =
              acc[4 * jj + 2 * h + e];
    }
    warpgroup_barrier(barrier_id);
#pragma unroll
    for (int pass = 0; pass < kCols / 8; ++pass) {
      const int c = pass * 8 + read_col;
      const int64_t col = tile_col + chunk * kCols + c;
      if (col < n && rows_left > 0) {
        const float4 v = *reinterpret_cast<const float4*>(&stage[c * kStageStride + read_row]);
        store_four<Out>(C + col * ldc + tile_row + read_row, rows_left, c_vec, v, alpha, beta);
      }
    }
  }
}

// 16-bit C with beta = 0 and a TMA-describable C: stmatrix the scaled, rounded fragments
// BoxCols (16, 32 or 64) columns at a time into a 128-byte-swizzled staging buffer
// (conflict-free, the layout of the C map's 64-row boxes: 128 bytes per column) and let TMA
// store it. The stores drain asynchronously, so the consumer goes back to the main loop
// without waiting for them; two buffers alternate, and a buffer is rewritten only after the
// store that last read it is done reading.

template <typename Out>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same_v<Out, __half>) {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  } else {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  }
}

// One TMA store box of a consumer's accumulators, scaled and rounded to 16 bits: chunk
// `chunk` of BoxCols columns, as the four 32-bit registers of each of its BoxCols / 16
// stmatrix x4 calls.
template <int BoxCols>
using PackedBox = uint32_t[BoxCols / 4];

template <typename Out, int BN, int BoxCols>
__device__ __forceinline__ void pack_box(const float (&acc)[BN / 2], int chunk, float alpha,
                                         PackedBox<BoxCols>& out) {
  // alpha = 1 (a uniform branch) skips the scaling: half the instructions of a box.
  if (alpha == 1.0f) {
#pragma unroll
    for (int i = 0; i < BoxCols / 4; ++i) {
      const int e = chunk * (BoxCols / 2) + 2 * i;  // accumulators e, e + 1
      out[i] = pack2<Out>(acc[e], acc[e + 1]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < BoxCols / 4; ++i) {
      const int e = chunk * (BoxCols / 2) + 2 * i;
      out[i] = pack2<Out>(scale(acc[e], alpha), scale(acc[e + 1], alpha));
    }
  }
}

// stmatrix one packed box into `buffer` (BoxCols x 128 bytes, 1024-byte aligned, owned by
// this warpgroup) and let TMA store it at (row, col) of C. The store that last read this
// buffer (two boxes ago, maybe in an earlier tile) must be done reading before it is
// overwritten; the consumer then goes on without waiting for this one.
template <int BoxCols>
__device__ __forceinline__ void store_box_tma(const PackedBox<BoxCols>& v, uint8_t* buffer,
                                              int thread, int barrier_id,
                                              const CUtensorMap* map_c, int row, int col) {
  static_assert(BoxCols % 16 == 0, "whole boxes of 16-column pairs");
  const int warp = thread / 32, lane = thread % 32;
  // This lane's stmatrix row: column (lane % 8) of tile (lane / 8); tiles 0/1 are rows
  // +0/+8 of column block 2p, tiles 2/3 the same of block 2p + 1.
  const int tile = lane / 8;
  const int row_chunk = warp * 2 + (tile & 1);  // 16-byte piece of the 128-byte column
  if (thread == 0) bulk_wait_read<1>();
  warpgroup_barrier(barrier_id);
#pragma unroll
  for (int p = 0; p < BoxCols / 16; ++p) {
    const int c = 16 * p + 8 * (tile >> 1) + lane % 8;  // column within the box
    const uint32_t addr = shared_address(buffer) + c * 128 + ((row_chunk ^ (c % 8)) * 16);
    stmatrix_x4_trans(addr, v[4 * p], v[4 * p + 1], v[4 * p + 2], v[4 * p + 3]);
  }
  fence_async_shared();
  warpgroup_barrier(barrier_id);
  if (thread == 0) {
    tma_store_2d(map_c, buffer, row, col);
    bulk_commit();
  }
}

// buffers: two BoxCols x 128-byte buffers; chunk i goes through buffer (first + i) % 2,
// where `first` continues the alternation from the previous call (the boxes it stored so
// far, mod 2).
template <typename Out, int BN, int BoxCols>
__device__ __forceinline__ void store_tile_tma(const float (&acc)[BN / 2], uint8_t* buffers,
                                               int thread, int barrier_id,
                                               const CUtensorMap* map_c, int tile_row,
                                               int tile_col, float alpha, int first) {
  static_assert(sizeof(Out) == 2, "the TMA store path writes 16-bit C");
  static_assert(BN % BoxCols == 0, "whole boxes");
#pragma unroll
  for (int chunk = 0; chunk < BN / BoxCols; ++chunk) {
    PackedBox<BoxCols> v;
    pack_box<Out, BN, BoxCols>(acc, chunk, alpha, v);
    store_box_tma<BoxCols>(v, buffers + ((first + chunk) & 1) * (BoxCols * 128), thread,
                           barrier_id, map_c, tile_row, tile_col + chunk * BoxCols);
  }
}

}  // namespace aegis::gemm::sm90
