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

// The handle's buffer of tagged partial sums (level 2, deterministic mode: GEMV split sums,
// float SYMV), at least `bytes`, and in *tag a tag no word of it carries yet: every call takes
// the next one. The buffer is grown with cudaMallocAsync on the handle's stream and zeroed on
// it when made, and again before the tags wrap around (tags start at 1; 0 is no call's).
// nullptr when it cannot be had (the CUDA error is cleared).
void* tagged_parts(aegisContext* h, size_t bytes, unsigned* tag);

}  // namespace aegis::detail
