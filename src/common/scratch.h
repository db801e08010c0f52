// Memory for a call's temporaries (partial sums, checksum inputs).
#pragma once

#include <cstddef>

struct aegisContext;

namespace aegis::detail {

// The handle's workspace when it holds `bytes`, else the handle's stream-ordered scratch
// buffer, grown with cudaMallocAsync on the handle's stream as needed (no host
// synchronization). nullptr when neither can be had (the CUDA error is cleared). *capacity
// (if given) receives the size of the memory returned, at least `bytes`.
void* call_scratch(aegisContext* h, size_t bytes, size_t* capacity = nullptr);

}  // namespace aegis::detail
