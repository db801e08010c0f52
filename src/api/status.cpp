// Status names and descriptions, library version.
#include "aegis/aegis.h"

extern "C" {

const char* aegisGetStatusName(aegisStatus_t status) {
  switch (status) {
    case AEGIS_STATUS_SUCCESS: return "AEGIS_STATUS_SUCCESS";
    case AEGIS_STATUS_NOT_INITIALIZED: return "AEGIS_STATUS_NOT_INITIALIZED";
    case AEGIS_STATUS_ALLOC_FAILED: return "AEGIS_STATUS_ALLOC_FAILED";
    case AEGIS_STATUS_INVALID_VALUE: return "AEGIS_STATUS_INVALID_VALUE";
    case AEGIS_STATUS_ARCH_MISMATCH: return "AEGIS_STATUS_ARCH_MISMATCH";
    case AEGIS_STATUS_EXECUTION_FAILED: return "AEGIS_STATUS_EXECUTION_FAILED";
    case AEGIS_STATUS_NOT_SUPPORTED: return "AEGIS_STATUS_NOT_SUPPORTED";
    case AEGIS_STATUS_NO_DEVICE: return "AEGIS_STATUS_NO_DEVICE";
    case AEGIS_STATUS_INTERNAL_ERROR: return "AEGIS_STATUS_INTERNAL_ERROR";
  }
  return "AEGIS_STATUS_UNKNOWN";
}

const char* aegisGetStatusString(aegisStatus_t status) {
  switch (status) {
    case AEGIS_STATUS_SUCCESS: return "success";
    case AEGIS_STATUS_NOT_INITIALIZED: return "the handle is null or not initialized";
    case AEGIS_STATUS_ALLOC_FAILED: return "a memory allocation failed";
    case AEGIS_STATUS_INVALID_VALUE:
      return "an argument is out of range (the handle's last error names it)";
    case AEGIS_STATUS_ARCH_MISMATCH: return "no kernel in this build runs on this GPU";
    case AEGIS_STATUS_EXECUTION_FAILED: return "a kernel launch or CUDA call failed";
    case AEGIS_STATUS_NOT_SUPPORTED: return "the request is valid but not supported";
    case AEGIS_STATUS_NO_DEVICE: return "no usable CUDA device (or driver) was found";
    case AEGIS_STATUS_INTERNAL_ERROR: return "internal error in aegis";
  }
  return "unknown status value";
}

int aegisGetVersion(void) {
  return AEGIS_VERSION_MAJOR * 10000 + AEGIS_VERSION_MINOR * 100 + AEGIS_VERSION_PATCH;
}

}  // extern "C"
