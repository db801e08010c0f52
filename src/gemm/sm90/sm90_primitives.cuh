// Hopper building blocks of the sm90 GEMM as thin inline-PTX wrappers: mbarriers, TMA bulk
// tensor copies, wgmma shared-memory descriptors and fences, register reallocation.
#pragma once

#include <cstdint>

#include <cuda.h>

#include "common/shared_address.cuh"

namespace aegis::gemm::sm90 {

// ---- mbarriers ----------------------------------------------------------------------------
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals));
}

// Arrives once and announces `bytes` of TMA traffic that will complete on the barrier.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}

// Spins on try_wait until the phase of *bar with the given parity has completed; SEM is the
// wait's memory-ordering qualifier ("" for the default CTA-scope acquire).
#define AEGIS_MBAR_WAIT(bar, parity, SEM)                                          \
  asm volatile(                                                                    \
      "{\n"                                                                        \
      ".reg .pred done;\n"                                                         \
      "WAIT_%=:\n"                                                                 \
      "mbarrier.try_wait.parity" SEM ".shared::cta.b64 done, [%0], %1;\n"          \
      "@!done bra WAIT_%=;\n"                                                      \
      "}\n" ::"r"(shared_address(bar)),                                                 \
      "r"(parity)                                                                  \
      : "memory")

// Waits until the phase with the given parity has completed.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  AEGIS_MBAR_WAIT(bar, parity, "");
}

// Makes barrier initialization visible to the async proxy (TMA) and the other threads.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// ---- TMA ------------------------------------------------------------------------------------
// 2D tile copy global -> shared; c0 is the inner (contiguous) coordinate. Out-of-range
// elements are written as zeros and still count toward the barrier's transaction bytes.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar,
                                            int32_t c0, int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(shared_address(bar)), "r"(c0), "r"(c1)
      : "memory");
}

// The same copy delivered to every CTA of the cluster in cta_mask, at the same shared-memory
// offset, completing on the barrier at the same offset in each of them.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map,
                                                      uint64_t* bar, int32_t c0, int32_t c1,
                                                      uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(shared_address(bar)), "r"(c0), "r"(c1),
      "h"(cta_mask)
      : "memory");
}

// 2D tile copy shared -> global (bulk-group completion); elements past the tensor's
// extents are not written. The lines written are marked first to be evicted from L2: C is
// not read again by the GEMM, the A and B panels the other CTAs still stream are (2048^3
// ran 0.5-1.5 % faster, docs/perf-notes.md TC-8).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int32_t c0,
                                             int32_t c1) {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint"
      " [%0, {%2, %3}], [%1], %4;" ::"l"(reinterpret_cast<uint64_t>(map)),
      "r"(shared_address(src)), "r"(c0), "r"(c1), "l"(policy)
      : "memory");
}
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Waits until at most N committed bulk stores still read their shared-memory source.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
// Makes this thread's shared-memory writes visible to the async proxy (TMA reads).
__device__ __forceinline__ void fence_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// Four transposed 8x8 tiles of 16-bit values from mma-fragment registers to shared memory:
// lane l gives the address of row (l % 8) of tile (l / 8); after the transpose that row is a
// column of the fragment tile.
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t addr, uint32_t r0, uint32_t r1,
                                                  uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(
                   addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

__device__ __forceinline__ void tma_prefetch_descriptor(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// ---- clusters ------------------------------------------------------------------------------
__device__ __forceinline__ uint32_t cluster_cta_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// Address of `p` (this CTA's shared memory) at the same offset in CTA `rank` of the cluster.
__device__ __forceinline__ uint32_t cluster_peer_addr(const void* p, uint32_t rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(shared_address(p)), "r"(rank));
  return remote;
}

// Arrives on the barrier at the same shared-memory offset in CTA `rank` of the cluster
// (this CTA's own rank included). The arrival keeps the default CTA-scope release: it only
// says "done reading this stage" after wgmma.wait_group, and the waiting producer's TMA write
// is ordered by the barrier itself. A cluster-scope release (.release.cluster) made every
// arrival a cluster-wide memory fence: ncu showed the consumers stalled on it half the time
// and the 2-CTA kernel ran at 0.5x (docs/perf-notes.md, TC-2).
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t rank) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(cluster_peer_addr(bar, rank))
               : "memory");
}

// Writes 16 bytes into the shared memory of a peer CTA (remote_dst, from cluster_peer_addr)
// and completes 16 transaction bytes on the peer's barrier remote_bar when they have landed:
// the peer learns the data is there from its own barrier, with no fence on this side.
__device__ __forceinline__ void st_async_v4(uint32_t remote_dst, float a, float b, float c,
                                            float d, uint32_t remote_bar) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, "
      "[%5];" ::"r"(remote_dst),
      "f"(a), "f"(b), "f"(c), "f"(d), "r"(remote_bar)
      : "memory");
}

// Arrives on the barrier at the same offset in CTA `rank`, releasing at cluster scope: this
// CTA's reads of shared memory that the peer will overwrite once it sees the arrival are
// ordered before it. Used only where the peer will write again (at most once per tile,
// unlike the per-stage arrivals above): the fence it implies cost ~0.5 us at the end of the
// wide row's tile (H200, docs/perf-notes.md TC-19).
__device__ __forceinline__ void mbar_arrive_cluster_release(uint64_t* bar, uint32_t rank) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(
                   cluster_peer_addr(bar, rank))
               : "memory");
}

// mbar_wait with cluster-scope acquire: the phase was completed by peers' arrivals.
__device__ __forceinline__ void mbar_wait_cluster(uint64_t* bar, uint32_t parity) {
  AEGIS_MBAR_WAIT(bar, parity, ".acquire.cluster");
}

// Every thread of every CTA in the cluster, once this CTA's barriers are initialized: the
// initializing thread's fence_barrier_init has already released them to the cluster (the
// pairing fence.mbarrier_init is made for), so the arrival is relaxed and only the wait
// acquires. The release arrival cost ~0.25 us at the start of the wide row's kernel (H200,
// docs/perf-notes.md TC-19).
__device__ __forceinline__ void cluster_sync_after_barrier_init() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// ---- wgmma ------------------------------------------------------------------------------------
// Shared-memory matrix descriptor for a 128-byte-swizzled operand: start address, leading
// and stride byte offsets (16-byte units), layout type 1 = 128B swizzle. The tile bases are
// 1024-byte aligned, so the base-offset field stays 0.
__device__ __forceinline__ uint64_t smem_desc_sw128(uint32_t addr, uint32_t lbo_bytes,
                                                   uint32_t sbo_bytes) {
  uint64_t d = 0;
  d |= static_cast<uint64_t>((addr & 0x3FFFF) >> 4);
  d |= static_cast<uint64_t>((lbo_bytes & 0x3FFFF) >> 4) << 16;
  d |= static_cast<uint64_t>((sbo_bytes & 0x3FFFF) >> 4) << 32;
  d |= static_cast<uint64_t>(1) << 62;
  return d;
}

// desc moved by `units` 16-byte units: the start address is the low 14 bits of the low word
// and any shared-memory address fits there, so a 32-bit add of the low word cannot carry
// into the other fields.
__device__ __forceinline__ uint64_t smem_desc_moved(uint64_t desc, uint32_t units) {
  uint64_t moved;
  asm("mov.b64 %0, {%1, %2};"
      : "=l"(moved)
      : "r"(static_cast<uint32_t>(desc) + units), "r"(static_cast<uint32_t>(desc >> 32)));
  return moved;
}

// Orders register accesses to the accumulators before the wgmmas that follow.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most N committed wgmma groups of this warpgroup are still pending.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Makes the accumulator registers appear modified to the compiler after the asynchronous
// wgmmas wrote them (so reads after wgmma_wait are not hoisted above it).
template <int N>
__device__ __forceinline__ void fence_registers(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// ---- register reallocation between warpgroups ------------------------------------------------
template <int Regs>
__device__ __forceinline__ void regs_decrease() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}
template <int Regs>
__device__ __forceinline__ void regs_increase() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}

// Barrier among the threads of one consumer warpgroup (ids 1.. are free; 0 is __syncthreads).
__device__ __forceinline__ void warpgroup_barrier(int id) {
  asm volatile("bar.sync %0, 128;" ::"r"(id) : "memory");
}

// Named barrier `id` of `count` threads (a multiple of 32): sync waits for all of them,
// arrive counts this warp without waiting (producer/consumer hand-offs between warpgroups).
__device__ __forceinline__ void named_barrier_sync(int id, int count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

}  // namespace aegis::gemm::sm90
