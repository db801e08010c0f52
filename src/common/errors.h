// Recording errors on a handle. The library never prints: it returns a status and leaves a
// one-line text naming routine, parameter position (reference-BLAS numbering) and value.
#pragma once

#include "aegis/aegis.h"

struct aegisContext;

namespace aegis::detail {

// Sets the handle's last error to "<routine>: parameter <position> <detail>" and returns
// AEGIS_STATUS_INVALID_VALUE. detail is printf-formatted, e.g. "(lda = %lld) must be ...".
aegisStatus_t invalid_argument(aegisContext* h, const char* routine, int position,
                               const char* detail_format, ...)
    __attribute__((format(printf, 4, 5)));

// Sets the handle's last error to "<routine>: <detail>" and returns status.
aegisStatus_t fail(aegisContext* h, aegisStatus_t status, const char* routine,
                   const char* detail_format, ...) __attribute__((format(printf, 4, 5)));

// Maps a CUDA error from a launch to EXECUTION_FAILED (with the CUDA text) or SUCCESS.
aegisStatus_t from_cuda(aegisContext* h, const char* routine, cudaError_t err);

}  // namespace aegis::detail
