// Split-K finished inside a thread-block cluster (Hopper): the S slices of one C tile run as
// the S blocks of a cluster; each block leaves its partial tile in its own shared memory and,
// after a cluster barrier, sums one S-th of the tile's columns across all S blocks through
// distributed shared memory, then applies alpha and beta and writes C.
//
// Against the workspace + reduction-kernel split-K this saves the partial tiles' round trip
// through L2/HBM and a launch; the sum runs in slice order 0..S-1 from 0.0f, the order of
// splitk_reduce.cu, so both paths give the same bits.
#pragma once

#include <cstdint>

#include "gemm/simt/gemm_params.h"

namespace aegis::gemm::simt {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ void cluster_barrier() {
  // release/acquire: the partial tiles written before are visible to every block after.
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ unsigned cluster_size() {
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}

// The shared-memory address `local` (of this block) in block `rank` of the cluster.
__device__ __forceinline__ uint32_t map_to_rank(uint32_t local, unsigned rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
  return remote;
}

__device__ __forceinline__ float4 load_cluster_float4(uint32_t addr) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(addr));
  return v;
}
#endif

// T: this block's unscaled partial MTB x NTB tile in shared memory (column-major, ld MTB),
// fully written by the block. Every block of the cluster must call this (it has two cluster
// barriers); on return the tile of C at (m0, n0) holds alpha * sum + beta * C for the
// columns this block owns.
template <int MTB, int NTB, int THREADS>
__device__ __forceinline__ void cluster_reduce_tile(const GemmParams<float>& p, const float* T,
                                                    int64_t m0, int64_t n0, float alpha,
                                                    float beta) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int kMaxSlices = 8;
  constexpr int kVecsPerCol = MTB / 4;
  cluster_barrier();
  const unsigned slices = cluster_size();
  const int cols_per_block = (NTB + static_cast<int>(slices) - 1) / static_cast<int>(slices);
  const int col_begin = static_cast<int>(cluster_rank()) * cols_per_block;
  const int col_end = min(NTB, col_begin + cols_per_block);
  const int rows_left = p.m - m0 < MTB ? static_cast<int>(p.m - m0) : MTB;
  const int cols_left = p.n - n0 < NTB ? static_cast<int>(p.n - n0) : NTB;
  const uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(T));
  uint32_t remote[kMaxSlices];
#pragma unroll
  for (int s = 0; s < kMaxSlices; ++s)
    remote[s] = s < static_cast<int>(slices) ? map_to_rank(local, s) : 0u;
  const bool read_c = beta != 0.0f;  // beta = 0 never reads C

  for (int idx = threadIdx.x; idx < (col_end - col_begin) * kVecsPerCol; idx += THREADS) {
    const int c = col_begin + idx / kVecsPerCol, r = (idx % kVecsPerCol) * 4;
    if (c >= cols_left || r >= rows_left) continue;
    const uint32_t offset = static_cast<uint32_t>((c * MTB + r) * sizeof(float));
    float4 part[kMaxSlices];
#pragma unroll
    for (int s = 0; s < kMaxSlices; ++s)  // all loads first, then the ordered sum
      if (s < static_cast<int>(slices)) part[s] = load_cluster_float4(remote[s] + offset);
    float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int s = 0; s < kMaxSlices; ++s) {
      if (s < static_cast<int>(slices)) {
        sum[0] += part[s].x;
        sum[1] += part[s].y;
        sum[2] += part[s].z;
        sum[3] += part[s].w;
      }
    }
    float out[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) out[q] = alpha * sum[q];
    float* dst = p.C + (m0 + r) + (n0 + c) * p.ldc;
    if (p.c_vec && r + 3 < rows_left) {
      float4* dst4 = reinterpret_cast<float4*>(dst);
      if (read_c) {
        const float4 old = *dst4;
        out[0] = fmaf(beta, old.x, out[0]);
        out[1] = fmaf(beta, old.y, out[1]);
        out[2] = fmaf(beta, old.z, out[2]);
        out[3] = fmaf(beta, old.w, out[3]);
      }
      *dst4 = make_float4(out[0], out[1], out[2], out[3]);
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (r + q < rows_left) dst[q] = read_c ? fmaf(beta, dst[q], out[q]) : out[q];
    }
  }
  // No block may leave (its shared memory would go) while others still read its tile.
  cluster_barrier();
#else
  // Dispatch runs cluster splits only on compute capability 9.0 and newer.
  __trap();
#endif
}

}  // namespace aegis::gemm::simt
