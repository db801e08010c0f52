// Handle lifetime and settings.
#include <cuda_runtime_api.h>

#include <new>

#include "aegis/aegis.h"
#include "common/context.h"
#include "common/errors.h"
#include "dispatch/tuning_table.h"

namespace aegis::detail {

aegisContext* create_context_without_device(int sm_count) {
  aegisContext* ctx = new (std::nothrow) aegisContext();
  if (!ctx) return nullptr;
  ctx->sm_count = sm_count;
  ctx->device_name = "no device";
  ctx->tuning = dispatch::find_tuning_table("");
  return ctx;
}

void destroy_context(aegisContext* ctx) { delete ctx; }

}  // namespace aegis::detail

using aegis::detail::fail;
using aegis::detail::invalid_argument;

extern "C" {

aegisStatus_t aegisCreate(aegisHandle_t* handle) {
  if (!handle) return AEGIS_STATUS_INVALID_VALUE;
  *handle = nullptr;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // do not leave the failure sticky for the caller's next CUDA call
    return AEGIS_STATUS_NO_DEVICE;
  }
  int device = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();
    return AEGIS_STATUS_NO_DEVICE;
  }
  aegisContext* ctx = new (std::nothrow) aegisContext();
  if (!ctx) return AEGIS_STATUS_ALLOC_FAILED;
  ctx->device = device;
  ctx->sm_count = prop.multiProcessorCount;
  ctx->cc_major = prop.major;
  ctx->cc_minor = prop.minor;
  ctx->l2_bytes = static_cast<size_t>(prop.l2CacheSize);
  ctx->device_name = prop.name;
  ctx->tuning = aegis::dispatch::find_tuning_table(prop.name);
  if (cudaMalloc(&ctx->own_workspace, aegis::detail::kDefaultWorkspaceBytes) != cudaSuccess) {
    cudaGetLastError();
    delete ctx;
    return AEGIS_STATUS_ALLOC_FAILED;
  }
  ctx->own_workspace_bytes = aegis::detail::kDefaultWorkspaceBytes;
  // The arrival counters, then the GEMV N atomics mode's count of y slices scaled.
  const size_t counter_bytes = sizeof(unsigned) * (aegis::detail::kBlas2CounterCount + 1);
  if (cudaMalloc(reinterpret_cast<void**>(&ctx->blas2_counters), counter_bytes) != cudaSuccess ||
      cudaMemset(ctx->blas2_counters, 0, counter_bytes) != cudaSuccess) {
    cudaGetLastError();
    if (ctx->blas2_counters) cudaFree(ctx->blas2_counters);
    cudaFree(ctx->own_workspace);
    delete ctx;
    return AEGIS_STATUS_ALLOC_FAILED;
  }
  ctx->blas2_counter_count = aegis::detail::kBlas2CounterCount;
  ctx->blas2_y_scaled = ctx->blas2_counters + aegis::detail::kBlas2CounterCount;
  if (cudaMalloc(reinterpret_cast<void**>(&ctx->ft_stats), sizeof(*ctx->ft_stats)) != cudaSuccess ||
      cudaMemset(ctx->ft_stats, 0, sizeof(*ctx->ft_stats)) != cudaSuccess) {
    cudaGetLastError();
    if (ctx->ft_stats) cudaFree(ctx->ft_stats);
    cudaFree(ctx->blas2_counters);
    cudaFree(ctx->own_workspace);
    delete ctx;
    return AEGIS_STATUS_ALLOC_FAILED;
  }
  *handle = ctx;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisDestroy(aegisHandle_t handle) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  // cudaFree waits for work still using the workspace.
  if (handle->own_workspace) cudaFree(handle->own_workspace);
  if (handle->blas2_counters) cudaFree(handle->blas2_counters);
  if (handle->scratch) cudaFree(handle->scratch);
  if (handle->blas2_tagged_parts) cudaFree(handle->blas2_tagged_parts);
  if (handle->ft_stats) cudaFree(handle->ft_stats);
  delete handle;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisSetStream(aegisHandle_t handle, cudaStream_t stream) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetStream(aegisHandle_t handle, cudaStream_t* stream) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!stream) return invalid_argument(handle, "aegisGetStream", 2, "(stream = NULL) must not be NULL");
  *stream = handle->stream;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisSetPointerMode(aegisHandle_t handle, aegisPointerMode_t mode) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (mode != AEGIS_POINTER_MODE_HOST && mode != AEGIS_POINTER_MODE_DEVICE)
    return invalid_argument(handle, "aegisSetPointerMode", 2,
                            "(mode = %d) must be AEGIS_POINTER_MODE_HOST or "
                            "AEGIS_POINTER_MODE_DEVICE",
                            static_cast<int>(mode));
  handle->pointer_mode = mode;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetPointerMode(aegisHandle_t handle, aegisPointerMode_t* mode) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!mode) return invalid_argument(handle, "aegisGetPointerMode", 2, "(mode = NULL) must not be NULL");
  *mode = handle->pointer_mode;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisSetWorkspace(aegisHandle_t handle, void* workspace, size_t bytes) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!workspace && bytes != 0)
    return invalid_argument(handle, "aegisSetWorkspace", 3,
                            "(bytes = %zu) must be 0 when workspace is NULL", bytes);
  // Partial sums are stored as float4.
  if (reinterpret_cast<uintptr_t>(workspace) % 16 != 0)
    return invalid_argument(handle, "aegisSetWorkspace", 2,
                            "(workspace = %p) must be 16-byte aligned", workspace);
  handle->user_workspace = workspace;
  handle->user_workspace_bytes = workspace ? bytes : 0;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetWorkspaceSize(aegisHandle_t handle, size_t* bytes) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!bytes) return invalid_argument(handle, "aegisGetWorkspaceSize", 2, "(bytes = NULL) must not be NULL");
  *bytes = handle->workspace_bytes();
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisSetReductionMode(aegisHandle_t handle, aegisReductionMode_t mode) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (mode != AEGIS_REDUCTION_DETERMINISTIC && mode != AEGIS_REDUCTION_ATOMICS)
    return invalid_argument(handle, "aegisSetReductionMode", 2,
                            "(mode = %d) must be AEGIS_REDUCTION_DETERMINISTIC or "
                            "AEGIS_REDUCTION_ATOMICS",
                            static_cast<int>(mode));
  handle->reduction_mode = mode;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetReductionMode(aegisHandle_t handle, aegisReductionMode_t* mode) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!mode)
    return invalid_argument(handle, "aegisGetReductionMode", 2, "(mode = NULL) must not be NULL");
  *mode = handle->reduction_mode;
  return AEGIS_STATUS_SUCCESS;
}

const char* aegisGetLastErrorString(aegisHandle_t handle) {
  if (!handle) return "aegis: null handle";
  return handle->last_error.c_str();
}

const char* aegisGetTuningTableName(aegisHandle_t handle) {
  if (!handle || !handle->tuning) return "";
  return handle->tuning->name;
}

aegisStatus_t aegisSetTuningTable(aegisHandle_t handle, const char* name) {
  if (!handle) return AEGIS_STATUS_NOT_INITIALIZED;
  const aegis::dispatch::TuningTable* table =
      name ? aegis::dispatch::find_tuning_table_by_name(name)
           : aegis::dispatch::find_tuning_table(handle->device_name.c_str());
  if (!table)
    return invalid_argument(handle, "aegisSetTuningTable", 2,
                            "(name = \"%s\") is not a tuning table of this build (%s)", name,
                            aegis::dispatch::tuning_table_names().c_str());
  handle->tuning = table;
  return AEGIS_STATUS_SUCCESS;
}

}  // extern "C"
