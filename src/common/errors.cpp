#include "common/errors.h"

#include <cstdarg>
#include <cstdio>

#include "common/context.h"

namespace aegis::detail {
namespace {

void set_message(aegisContext* h, const char* prefix, const char* format, va_list args) {
  if (!h) return;
  char detail[512];
  std::vsnprintf(detail, sizeof(detail), format, args);
  h->last_error = std::string(prefix) + detail;
}

}  // namespace

aegisStatus_t invalid_argument(aegisContext* h, const char* routine, int position,
                               const char* detail_format, ...) {
  char prefix[128];
  std::snprintf(prefix, sizeof(prefix), "%s: parameter %d ", routine, position);
  va_list args;
  va_start(args, detail_format);
  set_message(h, prefix, detail_format, args);
  va_end(args);
  return AEGIS_STATUS_INVALID_VALUE;
}

aegisStatus_t fail(aegisContext* h, aegisStatus_t status, const char* routine,
                   const char* detail_format, ...) {
  char prefix[128];
  std::snprintf(prefix, sizeof(prefix), "%s: ", routine);
  va_list args;
  va_start(args, detail_format);
  set_message(h, prefix, detail_format, args);
  va_end(args);
  return status;
}

aegisStatus_t from_cuda(aegisContext* h, const char* routine, cudaError_t err) {
  if (err == cudaSuccess) return AEGIS_STATUS_SUCCESS;
  return fail(h, AEGIS_STATUS_EXECUTION_FAILED, routine, "CUDA error %s (%s)",
              cudaGetErrorName(err), cudaGetErrorString(err));
}

}  // namespace aegis::detail
