// Fault-tolerance settings, fault injection and statistics of a handle.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>

#include "aegis/aegis.h"
#include "common/context.h"
#include "common/errors.h"

using aegis::detail::fail;
using aegis::detail::invalid_argument;

namespace {

long long ll(int64_t v) { return static_cast<long long>(v); }

// Checks one fault; position 2 is the faults array in reference numbering.
aegisStatus_t check_fault(aegisContext* h, const aegisFault_t& f, int index) {
  constexpr const char* kRoutine = "aegisInjectFaults";
  if (f.call < 0)
    return invalid_argument(h, kRoutine, 2, "(faults[%d].call = %lld) must be >= 0", index,
                            ll(f.call));
  if (f.row < 0)
    return invalid_argument(h, kRoutine, 2, "(faults[%d].row = %lld) must be >= 0", index,
                            ll(f.row));
  if (f.col < 0)
    return invalid_argument(h, kRoutine, 2, "(faults[%d].col = %lld) must be >= 0", index,
                            ll(f.col));
  if (f.k_step < AEGIS_FAULT_K_EPILOGUE)
    return invalid_argument(h, kRoutine, 2,
                            "(faults[%d].k_step = %lld) must be >= 0 or AEGIS_FAULT_K_EPILOGUE",
                            index, ll(f.k_step));
  if (f.kind != AEGIS_FAULT_BITFLIP && f.kind != AEGIS_FAULT_ADD)
    return invalid_argument(h, kRoutine, 2,
                            "(faults[%d].kind = %d) must be AEGIS_FAULT_BITFLIP or AEGIS_FAULT_ADD",
                            index, static_cast<int>(f.kind));
  if (f.target != AEGIS_FAULT_TARGET_ACCUMULATOR &&
      f.target != AEGIS_FAULT_TARGET_COLUMN_CHECKSUM &&
      f.target != AEGIS_FAULT_TARGET_ROW_CHECKSUM)
    return invalid_argument(h, kRoutine, 2, "(faults[%d].target = %d) is not an aegisFaultTarget_t",
                            index, static_cast<int>(f.target));
  if (f.kind == AEGIS_FAULT_BITFLIP && (f.bit < 0 || f.bit > 31))
    return invalid_argument(h, kRoutine, 2, "(faults[%d].bit = %d) must be in 0..31", index,
                            f.bit);
  if (f.target != AEGIS_FAULT_TARGET_ACCUMULATOR && f.k_step == AEGIS_FAULT_K_EPILOGUE)
    return invalid_argument(h, kRoutine, 2,
                            "(faults[%d].k_step = AEGIS_FAULT_K_EPILOGUE) applies only to "
                            "AEGIS_FAULT_TARGET_ACCUMULATOR",
                            index);
  return AEGIS_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

aegisStatus_t aegisSetFtMode(aegisHandle_t h, aegisFtMode_t mode) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  if (mode != AEGIS_FT_OFF && mode != AEGIS_FT_DETECT && mode != AEGIS_FT_CORRECT)
    return invalid_argument(h, "aegisSetFtMode", 2,
                            "(mode = %d) must be AEGIS_FT_OFF, AEGIS_FT_DETECT or AEGIS_FT_CORRECT",
                            static_cast<int>(mode));
  h->ft_mode = mode;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetFtMode(aegisHandle_t h, aegisFtMode_t* mode) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!mode) return invalid_argument(h, "aegisGetFtMode", 2, "(mode = NULL) must not be NULL");
  *mode = h->ft_mode;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisSetFtLevel(aegisHandle_t h, aegisFtLevel_t level) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  if (level != AEGIS_FT_LEVEL_BLOCK && level != AEGIS_FT_LEVEL_WARP &&
      level != AEGIS_FT_LEVEL_THREAD && level != AEGIS_FT_LEVEL_NONFUSED)
    return invalid_argument(h, "aegisSetFtLevel", 2, "(level = %d) is not an aegisFtLevel_t",
                            static_cast<int>(level));
  h->ft_level = level;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetFtLevel(aegisHandle_t h, aegisFtLevel_t* level) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!level) return invalid_argument(h, "aegisGetFtLevel", 2, "(level = NULL) must not be NULL");
  *level = h->ft_level;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisSetFtVerifyInterval(aegisHandle_t h, int64_t k_tiles) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  if (k_tiles < 0 || k_tiles > INT32_MAX)
    return invalid_argument(h, "aegisSetFtVerifyInterval", 2,
                            "(k_tiles = %lld) must be in 0..2^31-1", ll(k_tiles));
  h->ft_verify_interval = k_tiles;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetFtVerifyInterval(aegisHandle_t h, int64_t* k_tiles) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!k_tiles)
    return invalid_argument(h, "aegisGetFtVerifyInterval", 2, "(k_tiles = NULL) must not be NULL");
  *k_tiles = h->ft_verify_interval;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisInjectFaults(aegisHandle_t h, const aegisFault_t* faults, int count) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  constexpr const char* kRoutine = "aegisInjectFaults";
  if (count < 0) return invalid_argument(h, kRoutine, 3, "(count = %d) must be >= 0", count);
  if (count > 0 && !faults)
    return invalid_argument(h, kRoutine, 2, "(faults = NULL) must not be NULL when count > 0");
  const int armed = static_cast<int>(h->ft_armed.size());
  if (count > aegis::detail::kMaxArmedFaults - armed)
    return invalid_argument(h, kRoutine, 3, "(count = %d) exceeds the %d faults still free to arm",
                            count, aegis::detail::kMaxArmedFaults - armed);
  for (int i = 0; i < count; ++i) {
    const aegisStatus_t st = check_fault(h, faults[i], i);
    if (st != AEGIS_STATUS_SUCCESS) return st;
  }
  // At most kMaxFaultsPerCall per call, counting those armed before.
  for (int i = 0; i < count; ++i) {
    const int64_t serial = h->ft_serial + faults[i].call;
    int same = 0;
    for (const auto& a : h->ft_armed) same += a.serial == serial;
    for (int j = 0; j < count; ++j) same += h->ft_serial + faults[j].call == serial;
    if (same > aegis::abft::kMaxFaultsPerCall)
      return invalid_argument(h, kRoutine, 2, "(faults[%d].call = %lld) would get more than %d faults",
                              i, ll(faults[i].call), aegis::abft::kMaxFaultsPerCall);
  }
  for (int i = 0; i < count; ++i) h->ft_armed.push_back({h->ft_serial + faults[i].call, faults[i]});
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisClearFaults(aegisHandle_t h) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  h->ft_armed.clear();
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisGetFtStatsSync(aegisHandle_t h, aegisFtStats_t* stats) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  constexpr const char* kRoutine = "aegisGetFtStatsSync";
  if (!stats) return invalid_argument(h, kRoutine, 2, "(stats = NULL) must not be NULL");
  if (!h->ft_stats)
    return fail(h, AEGIS_STATUS_EXECUTION_FAILED, kRoutine, "the handle has no device");
  aegis::abft::FtDeviceStats d{};
  cudaError_t err = cudaStreamSynchronize(h->stream);
  if (err == cudaSuccess) err = cudaMemcpy(&d, h->ft_stats, sizeof(d), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) return aegis::detail::from_cuda(h, kRoutine, err);
  *stats = aegisFtStats_t{};
  stats->calls = h->ft_serial - h->ft_serial_at_reset;
  stats->checks = static_cast<int64_t>(d.checks);
  stats->detected = static_cast<int64_t>(d.detected);
  stats->corrected = static_cast<int64_t>(d.corrected);
  stats->recomputed = static_cast<int64_t>(d.recomputed);
  stats->unrecovered = static_cast<int64_t>(d.unrecovered);
  stats->nonfinite = static_cast<int64_t>(d.nonfinite);
  stats->record_count = static_cast<int64_t>(d.record_count);
  // Oldest first: record i lives in slot i % kMaxRecords.
  const int64_t kept = std::min<int64_t>(stats->record_count, AEGIS_FT_MAX_RECORDS);
  for (int64_t r = 0; r < kept; ++r) {
    const int64_t i = stats->record_count - kept + r;
    const aegis::abft::FtRecord& src = d.records[i % aegis::abft::kMaxRecords];
    aegisFaultRecord_t& dst = stats->records[r];
    dst.call = src.call;
    dst.tile_row = src.tile_row;
    dst.tile_col = src.tile_col;
    dst.row = src.row;
    dst.col = src.col;
    dst.k_step = src.k_step;
    dst.residual = src.residual;
    dst.action = static_cast<aegisFaultAction_t>(src.action);
  }
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t aegisResetFtStats(aegisHandle_t h) {
  if (!h) return AEGIS_STATUS_NOT_INITIALIZED;
  if (!h->ft_stats) return AEGIS_STATUS_SUCCESS;  // host-only context: nothing counted
  h->ft_serial_at_reset = h->ft_serial;
  return aegis::detail::from_cuda(
      h, "aegisResetFtStats", cudaMemsetAsync(h->ft_stats, 0, sizeof(*h->ft_stats), h->stream));
}

}  // extern "C"
