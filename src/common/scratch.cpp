#include "common/scratch.h"

#include <cuda_runtime_api.h>

#include "common/context.h"

namespace aegis::detail {

namespace {

// Grows *buf to at least `bytes` with cudaMallocAsync on the handle's stream (the old buffer
// freed in the same order). False, with *buf null and the CUDA error cleared, where it cannot.
bool grow_stream_buffer(aegisContext* h, void** buf, size_t* have, size_t bytes) {
  if (*have >= bytes) return true;
  if (*buf) cudaFreeAsync(*buf, h->stream);
  *buf = nullptr;
  *have = 0;
  if (cudaMallocAsync(buf, bytes, h->stream) != cudaSuccess) {
    cudaGetLastError();
    *buf = nullptr;
    return false;
  }
  *have = bytes;
  return true;
}

}  // namespace

void* call_scratch(aegisContext* h, size_t bytes, size_t* capacity) {
  if (bytes <= h->workspace_bytes()) {
    if (capacity) *capacity = h->workspace_bytes();
    return h->workspace();
  }
  if (!grow_stream_buffer(h, &h->scratch, &h->scratch_bytes, bytes)) return nullptr;
  if (capacity) *capacity = h->scratch_bytes;
  return h->scratch;
}

void* tagged_parts(aegisContext* h, size_t bytes, unsigned* tag) {
  const bool fresh = h->blas2_tagged_parts_bytes < bytes;
  if (!grow_stream_buffer(h, &h->blas2_tagged_parts, &h->blas2_tagged_parts_bytes, bytes))
    return nullptr;
  // A new buffer, or the tags about to wrap: every word back to tag 0, which no call takes.
  if (fresh || h->blas2_part_tag == ~0u) {
    if (cudaMemsetAsync(h->blas2_tagged_parts, 0, h->blas2_tagged_parts_bytes, h->stream) !=
        cudaSuccess) {
      cudaGetLastError();
      // Not zeroed: let the next call make (and zero) a buffer again.
      cudaFreeAsync(h->blas2_tagged_parts, h->stream);
      h->blas2_tagged_parts = nullptr;
      h->blas2_tagged_parts_bytes = 0;
      return nullptr;
    }
    h->blas2_part_tag = 0;
  }
  *tag = ++h->blas2_part_tag;
  return h->blas2_tagged_parts;
}

}  // namespace aegis::detail
