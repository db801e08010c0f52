// Pieces every level-2 kernel file shares: scalar arithmetic, the launch structures and the
// conversion of a call's host-side scalars to the kernel's type.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "blas2/blas2_launch.h"
#include "blas2/blas2_scalar.cuh"

namespace aegis::blas2 {

template <typename T>
inline T scalar_from(const double v[2]);
template <>
inline float scalar_from<float>(const double v[2]) {
  return float(v[0]);
}
template <>
inline double scalar_from<double>(const double v[2]) {
  return v[0];
}
template <>
inline cuComplex scalar_from<cuComplex>(const double v[2]) {
  return make_cuComplex(float(v[0]), float(v[1]));
}
template <>
inline cuDoubleComplex scalar_from<cuDoubleComplex>(const double v[2]) {
  return make_cuDoubleComplex(v[0], v[1]);
}

template <typename T>
Scalars<T> scalars_of(const Blas2Call& call) {
  Scalars<T> s;
  s.alpha = scalar_from<T>(call.alpha);
  s.beta = scalar_from<T>(call.beta);
  s.alpha_device = static_cast<const T*>(call.alpha_device);
  s.beta_device = static_cast<const T*>(call.beta_device);
  return s;
}

// One flag per device (a kernel attribute is set per device).
struct DeviceFlags {
  static constexpr int kMaxDevices = 64;
  std::atomic<bool> set[kMaxDevices] = {};
};

// Sets `kernel`'s attribute to `value` on the current device, once per device (flags: one
// per kernel and attribute).
template <typename... Args>
cudaError_t set_attribute_once(void (*kernel)(Args...), cudaFuncAttribute attribute, int value,
                               DeviceFlags& flags) {
  int device = -1;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  const bool cache = device >= 0 && device < DeviceFlags::kMaxDevices;
  if (cache && flags.set[device].load(std::memory_order_acquire)) return cudaSuccess;
  e = cudaFuncSetAttribute(kernel, attribute, value);
  if (e == cudaSuccess && cache) flags.set[device].store(true, std::memory_order_release);
  return e;
}

// Raises `kernel`'s dynamic shared-memory limit to `bytes` on the current device, once per
// device.
template <typename... Args>
cudaError_t allow_dynamic_shared_memory(void (*kernel)(Args...), int bytes, DeviceFlags& flags) {
  return set_attribute_once(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes, flags);
}

__device__ __forceinline__ float shfl_xor(float v, int o) {
  return __shfl_xor_sync(0xffffffffu, v, o);
}
__device__ __forceinline__ double shfl_xor(double v, int o) {
  return __shfl_xor_sync(0xffffffffu, v, o);
}
__device__ __forceinline__ cuComplex shfl_xor(cuComplex v, int o) {
  return make_cuComplex(__shfl_xor_sync(0xffffffffu, v.x, o), __shfl_xor_sync(0xffffffffu, v.y, o));
}
__device__ __forceinline__ cuDoubleComplex shfl_xor(cuDoubleComplex v, int o) {
  return make_cuDoubleComplex(__shfl_xor_sync(0xffffffffu, v.x, o),
                              __shfl_xor_sync(0xffffffffu, v.y, o));
}

// Loads V rows starting at logical row first_logical (p points at it); rows outside
// [0, m) read nothing and give zero. For edges only: a vector path and an element path in
// one branch make the compiler land the 16-byte load in a temporary and copy it out, which
// waits for the load (loads of a loop then do not overlap). Interior loops use load_full.
template <typename T, int V, bool VEC>
__device__ __forceinline__ Vec<T, V> load_rows(const T* p, int64_t first_logical, int64_t m) {
  if (VEC && first_logical >= 0 && first_logical + V <= m) return load_stream<T, V>(p);
  Vec<T, V> out;
#pragma unroll
  for (int v = 0; v < V; ++v) {
    const int64_t i = first_logical + v;
    out.v[v] = (i >= 0 && i < m) ? p[v] : zero<T>();
  }
  return out;
}

// V rows all inside the operated block: one 16-byte load (VEC) or V element loads, no
// branch, so the loads of a loop body are all in flight together.
template <typename T, int V, bool VEC>
__device__ __forceinline__ Vec<T, V> load_full(const T* p) {
  if constexpr (VEC) {
    return load_stream<T, V>(p);
  } else {
    Vec<T, V> out;
#pragma unroll
    for (int v = 0; v < V; ++v) out.v[v] = __ldcs(p + v);
    return out;
  }
}

// Partial sums of a deterministic reduction, stored with an evict-last L2 policy: they are
// read back only after the matrix has streamed through L2 (its loads are evict-first), and
// stored plainly some of them were evicted to DRAM by then (SYMV/HEMV: +1 to +3.5 points
// of bandwidth in the deterministic mode at n = 8192-24576, docs/blas2.md v11). The policy
// comes from one createpolicy with constant operands, so no argument has to carry it.
template <typename T>
__device__ __forceinline__ void store_partial(T* p, T v) {
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  if constexpr (std::is_same_v<T, float>) {
    asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(p), "f"(v), "l"(policy));
  } else if constexpr (std::is_same_v<T, double>) {
    asm volatile("st.global.L2::cache_hint.f64 [%0], %1, %2;" ::"l"(p), "d"(v), "l"(policy));
  } else if constexpr (std::is_same_v<T, cuComplex>) {
    asm volatile("st.global.L2::cache_hint.v2.f32 [%0], {%1, %2}, %3;" ::"l"(p), "f"(v.x),
                 "f"(v.y), "l"(policy));
  } else {
    static_assert(std::is_same_v<T, cuDoubleComplex>, "a level-2 scalar type");
    asm volatile("st.global.L2::cache_hint.v2.f64 [%0], {%1, %2}, %3;" ::"l"(p), "d"(v.x),
                 "d"(v.y), "l"(policy));
  }
}

// ---- tagged partial sums (deterministic mode) ------------------------------------------------
// Each 4-byte piece of a part travels with the tag of the call that wrote it, in one 8-byte
// word stored and loaded whole (single-copy atomic): a reader that finds its call's tag in
// every word of a part has the part's value too. So the reduction may run alongside the main
// grid, each sum as soon as its parts are in, with no fence or counter between the kernels.
// The words live in a buffer only these kernels write (the handle's, zeroed when made), and
// every call takes a new tag, so an old word never carries the current one.
template <typename T>
constexpr int kTaggedWords = int(sizeof(T) / 4);  // words per part

template <typename T>
struct TaggedWords {
  uint64_t w[kTaggedWords<T>];
};

// Stores part v of this call (tag) at p (kTaggedWords<T> words), evict-last as store_partial
// (read back after the matrix has streamed through L2).
template <typename T>
__device__ __forceinline__ void store_tagged(uint64_t* p, T v, unsigned tag) {
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  unsigned pieces[kTaggedWords<T>];
  __builtin_memcpy(pieces, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < kTaggedWords<T>; ++k) {
    const uint64_t word = uint64_t(pieces[k]) | (uint64_t(tag) << 32);
    asm volatile("st.relaxed.gpu.global.L2::cache_hint.b64 [%0], %1, %2;" ::"l"(p + k),
                 "l"(word), "l"(policy)
                 : "memory");
  }
}

__device__ __forceinline__ uint64_t load_tagged_word(const uint64_t* p) {
  uint64_t word;
  asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(word) : "l"(p) : "memory");
  return word;
}

// A first load of the part at p, issued with others before any is waited for.
template <typename T>
__device__ __forceinline__ TaggedWords<T> load_tagged(const uint64_t* p) {
  TaggedWords<T> t;
#pragma unroll
  for (int k = 0; k < kTaggedWords<T>; ++k) t.w[k] = load_tagged_word(p + k);
  return t;
}

// The value of the part at p once all its words carry `tag` (t: a first load of them). A
// part that never comes would be a bug; rather than hang the device, the kernel traps after
// a minute of waiting (the sticky error then fails the call), far past any wait of a grid
// whose parts fit a quarter of L2, even under a sanitizer.
constexpr uint64_t kTaggedWaitLimitNs = uint64_t(60) * 1000 * 1000 * 1000;
__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
template <typename T>
__device__ __forceinline__ T await_tagged(const uint64_t* p, TaggedWords<T> t, unsigned tag) {
  unsigned pieces[kTaggedWords<T>];
#pragma unroll
  for (int k = 0; k < kTaggedWords<T>; ++k) {
    uint64_t word = t.w[k];
    if (unsigned(word >> 32) != tag) {
      const uint64_t start = global_timer_ns();
      do {
        __nanosleep(256);
        word = load_tagged_word(p + k);
        if (global_timer_ns() - start > kTaggedWaitLimitNs) __trap();
      } while (unsigned(word >> 32) != tag);
    }
    pieces[k] = unsigned(word);
  }
  T v;
  __builtin_memcpy(&v, pieces, sizeof(T));
  return v;
}

// Drops the 128-byte line at p (128-byte aligned) from L2 without writing it back: for
// partial sums read for the last time, whose write-back to DRAM would only cost bandwidth.
__device__ __forceinline__ void discard_l2_line(const void* p) {
  asm volatile("discard.global.L2 [%0], 128;" ::"l"(p) : "memory");
}

// The last block of a panel to arrive (deterministic mode) returns true, after which it
// may read every block's partials (with L2 loads, __ldcg). The counter is reset for the
// next call.
//
// One thread counts the block in with an acquire-release atomic: the barrier before it
// orders the other threads' partial stores before its release, and the barrier after it
// orders its acquire before their loads. A __threadfence in every thread instead (fence.sc,
// MEMBAR.SC.GPU on every warp, twice in the last block) sat on the critical path of the
// call's tail, where the last block works alone.
__device__ __forceinline__ bool arrive_last(unsigned* counter, unsigned expected) {
  __shared__ bool last;
  __syncthreads();  // every thread of this block has stored its partials
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    unsigned before;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
                 : "=r"(before)
                 : "l"(counter)
                 : "memory");
    last = before == expected - 1;
    if (last) *counter = 0u;
  }
  __syncthreads();
  return last;
}

// ---- atomics mode without the beta pre-pass (GEMV N) --------------------------------------
// The first `blocks` blocks of the grid scale y by beta, a slice each, and count themselves
// in at *scaled (a handle-owned count that only grows: the host keeps each call's target, so
// nothing is reset); every block waits for the call's target there before its atomic adds.
// This saves the pre-pass kernel's launch, 0.5-1.5 us a call on the H200 even as a
// programmatic dependent (docs/blas2.md, v19). Blocks are dispatched in index order, so the
// scaling blocks are running or done by the time any block waits.

// Block `index` (< blocks) scales its slice of y[0 .. count) and counts itself in.
template <typename T>
__device__ __forceinline__ void scale_y_slice(T* y, int64_t count, int64_t inc, T beta, int index,
                                              int blocks, unsigned* scaled) {
  const int threads = blockDim.x * blockDim.y;
  const int tid = threadIdx.x + threadIdx.y * blockDim.x;
  const int64_t per = (count + blocks - 1) / blocks;
  const int64_t end = min(count, (index + 1) * per);
  for (int64_t i = index * per + tid; i < end; i += threads) {
    T* p = y + i * inc;
    *p = is_zero(beta) ? zero<T>() : mul(beta, *p);
  }
  __syncthreads();  // the block's stores, then its release (cumulative through the barrier)
  if (tid == 0) asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(scaled) : "memory");
}

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One thread: returns once *scaled has reached target, with acquire semantics. `seen` is an
// earlier acquire load of it, issued while the block's loads of A were in flight, so usually
// there is nothing left to wait for. The block meets at a barrier after this, before its
// atomic adds.
__device__ __forceinline__ void wait_for_scaled_y(const unsigned* scaled, unsigned target,
                                                  unsigned seen) {
  while (int(seen - target) < 0) seen = load_acquire(scaled);
}

// Sum of parts[k * stride + index] for k < count in order, 8 loads kept in flight (the
// last block of a panel does this alone: its latency is the tail of the call).
template <typename T>
__device__ __forceinline__ T ordered_sum(const T* parts, int64_t stride, int count) {
  constexpr int kBatch = 8;
  T s = zero<T>();
  int k = 0;
  for (; k + kBatch <= count; k += kBatch) {
    T p[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) p[u] = __ldcg(parts + (k + u) * stride);
#pragma unroll
    for (int u = 0; u < kBatch; ++u) s = add(s, p[u]);
  }
  if (k < count) {
    T p[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) p[u] = k + u < count ? __ldcg(parts + (k + u) * stride) : zero<T>();
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      if (k + u < count) s = add(s, p[u]);
  }
  return s;
}

}  // namespace aegis::blas2
