// Dispatch introspection and the tuning override (used by aegis-tune, aegis-bench, tests).
#include "aegis/aegis.h"
#include "common/context.h"
#include "common/errors.h"
#include "dispatch/gemm_dispatch.h"
#include "gemm/simt/sgemm_registry.h"

using aegis::detail::invalid_argument;

extern "C" {

aegisShapeClass_t aegisGemmShapeClass(int64_t m, int64_t n, int64_t k) {
  return aegis::dispatch::gemm_shape_class(m, n, k);
}

const char* aegisShapeClassName(aegisShapeClass_t shape_class) {
  switch (shape_class) {
    case AEGIS_SHAPE_SMALL: return "small";
    case AEGIS_SHAPE_MEDIUM: return "medium";
    case AEGIS_SHAPE_LARGE: return "large";
    case AEGIS_SHAPE_HUGE: return "huge";
    case AEGIS_SHAPE_TALL: return "tall";
    case AEGIS_SHAPE_WIDE: return "wide";
    case AEGIS_SHAPE_COUNT: break;
  }
  return "unknown";
}

int aegisSgemmConfigCount(void) {
  int count = 0;
  aegis::gemm::simt::sgemm_instances(&count);
  return count;
}

const char* aegisSgemmConfigName(int index) {
  int count = 0;
  const auto* const* all = aegis::gemm::simt::sgemm_instances(&count);
  return (index >= 0 && index < count) ? all[index]->name : nullptr;
}

aegisStatus_t aegisSetSgemmOverride(aegisHandle_t handle, const char* config, int max_split) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!config) {
    handle->sgemm_override_config.clear();
    handle->sgemm_override_max_split = 0;
    return AEGIS_STATUS_SUCCESS;
  }
  if (!aegis::gemm::simt::find_sgemm_instance(config))
    return invalid_argument(handle, "aegisSetSgemmOverride", 2,
                            "(config = \"%s\") is not an SGEMM configuration of this build",
                            config);
  if (max_split < 0)
    return invalid_argument(handle, "aegisSetSgemmOverride", 3, "(max_split = %d) must be >= 0",
                            max_split);
  handle->sgemm_override_config = config;
  handle->sgemm_override_max_split = max_split;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetLastSgemmChoice(aegisHandle_t handle, const char** config,
                                      int* split_k) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (config) *config = handle->last_sgemm_kernel.c_str();
  if (split_k) *split_k = handle->last_sgemm_split;
  return AEGIS_STATUS_SUCCESS;
}

}  // extern "C"
