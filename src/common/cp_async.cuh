// Asynchronous global -> shared copies (cp.async, compute capability 8.0 and up), shared by the
// kernels that stage tiles through a ring of shared-memory buffers.
#pragma once

#include "common/shared_address.cuh"

namespace aegis {

// 16-byte copy (L2 only); bytes [src_bytes, 16) of the destination are zero-filled, and
// src_bytes = 0 reads nothing. dst and src must be 16-byte aligned.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)),
               "l"(__cvta_generic_to_global(src)), "r"(src_bytes)
               : "memory");
}

// 16-byte copy of data read once (L2 only, evict-first policy: a streamed matrix should not
// push out what will be read again). dst and src must be 16-byte aligned.
__device__ __forceinline__ void cp_async_16_evict_first(void* dst, const void* src) {
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;\n" ::"r"(
                   shared_address(dst)),
               "l"(src), "l"(policy)
               : "memory");
}

// 4-byte copy; valid = false writes a zero and reads nothing.
__device__ __forceinline__ void cp_async_4(void* dst, const void* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(dst)),
               "l"(__cvta_generic_to_global(src)), "r"(valid ? 4 : 0)
               : "memory");
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

__device__ __forceinline__ void cp_async_wait_all() { cp_async_wait<0>(); }

}  // namespace aegis
