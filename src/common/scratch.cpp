#include "common/scratch.h"

#include <cuda_runtime_api.h>

#include "common/context.h"

namespace aegis::detail {

void* call_scratch(aegisContext* h, size_t bytes, size_t* capacity) {
  if (bytes <= h->workspace_bytes()) {
    if (capacity) *capacity = h->workspace_bytes();
    return h->workspace();
  }
  if (h->scratch_bytes < bytes) {
    if (h->scratch) cudaFreeAsync(h->scratch, h->stream);
    h->scratch = nullptr;
    h->scratch_bytes = 0;
    if (cudaMallocAsync(&h->scratch, bytes, h->stream) != cudaSuccess) {
      cudaGetLastError();
      h->scratch = nullptr;
      return nullptr;
    }
    h->scratch_bytes = bytes;
  }
  if (capacity) *capacity = h->scratch_bytes;
  return h->scratch;
}

}  // namespace aegis::detail
