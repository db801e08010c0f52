// The 32-bit shared-window address of a pointer into shared memory, as inline PTX that names
// shared memory (cp.async, mbarriers, TMA, wgmma descriptors) takes it.
#pragma once

#include <cstdint>

namespace aegis {

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace aegis
