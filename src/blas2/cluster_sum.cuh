// The deterministic GEMV reduction inside a thread-block cluster (sm_90): the Y blocks that
// split one panel are one cluster; every block but the first pushes its partial sums into
// the first block's shared memory (st.async, counted on an mbarrier there) and exits at
// once; the first block waits for those bytes and adds the parts in rank order.
//
// Why: the workspace reduction holds every block at its end (an acquire-release arrival,
// which waits for the block's partial stores to reach L2) and leaves the last block's
// reduction as the call's tail; at the large splits where the atomics mode is fastest that
// cost the deterministic mode 1-9 % (docs/blas2.md v13). Here no block waits for memory
// at its end, and nothing goes through L2.
#pragma once

#include <cstdint>
#include <type_traits>

#include "blas2/blas2_scalar.cuh"
#include "gemm/sm90/sm90_primitives.cuh"

namespace aegis::blas2 {

struct ClusterSum {
  uint64_t* barrier;  // the first block's mbarrier (shared, in every block)
  void* slots;        // (Y - 1) x NB parts in the first block's dynamic shared memory
};

// First in the kernel, by every thread of every block of the cluster: the first block
// arms its barrier for `bytes` pushed bytes, and every thread arrives on the cluster
// barrier (its wait comes in cluster_sum_ready, after the main loop, so nothing waits here).
// The arrival is relaxed: the initializing thread's fence.mbarrier_init.release.cluster
// already releases the barrier to the cluster, and nothing else written before it is read
// by another block. A releasing arrival compiles to MEMBAR.ALL.GPU in every thread before
// its first load.
__device__ __forceinline__ void cluster_sum_begin(uint64_t* barrier, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (gemm::sm90::cluster_cta_rank() == 0 && threadIdx.x == 0 && threadIdx.y == 0) {
    gemm::sm90::mbar_init(barrier, 1);
    gemm::sm90::mbar_arrive_expect_tx(barrier, bytes);
    gemm::sm90::fence_barrier_init();
  }
  asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
#endif
}

// Every thread of every block, once its partial sums are final: the cluster barrier armed
// in cluster_sum_begin is passed (the first block's mbarrier is initialized).
__device__ __forceinline__ void cluster_sum_ready() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
#endif
}

// A block of rank > 0: part `index` of the panel to the first block's slot.
template <typename T>
__device__ __forceinline__ void cluster_sum_push(const ClusterSum& cs, int nb, int index, T v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const T* local =
      static_cast<const T*>(cs.slots) + int64_t(gemm::sm90::cluster_cta_rank() - 1) * nb + index;
  const uint32_t remote = gemm::sm90::cluster_peer_addr(local, 0);
  const uint32_t bar = gemm::sm90::cluster_peer_addr(cs.barrier, 0);
  if constexpr (std::is_same_v<T, float>) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, [%2];" ::"r"(remote),
                 "f"(v), "r"(bar)
                 : "memory");
  } else if constexpr (std::is_same_v<T, double>) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f64 [%0], %1, [%2];" ::"r"(remote),
                 "d"(v), "r"(bar)
                 : "memory");
  } else if constexpr (std::is_same_v<T, cuComplex>) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" ::"r"(remote),
                 "f"(v.x), "f"(v.y), "r"(bar)
                 : "memory");
  } else {
    static_assert(std::is_same_v<T, cuDoubleComplex>, "a level-2 scalar type");
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f64 [%0], {%1, %2}, [%3];" ::"r"(remote),
                 "d"(v.x), "d"(v.y), "r"(bar)
                 : "memory");
  }
#endif
}

// The first block: waits until every part has arrived, then returns own + the parts of
// ranks 1..split-1 in that order, from zero (the same bits every run).
template <typename T>
__device__ __forceinline__ T cluster_sum_collect(const ClusterSum& cs, int nb, int index, int split,
                                                 T own) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  gemm::sm90::mbar_wait_cluster(cs.barrier, 0);
  const T* slots = static_cast<const T*>(cs.slots);
  T s = add(zero<T>(), own);
  for (int r = 1; r < split; ++r) s = add(s, slots[int64_t(r - 1) * nb + index]);
  return s;
#else
  return own;
#endif
}

}  // namespace aegis::blas2
