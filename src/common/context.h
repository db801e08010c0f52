// The state behind an aegisHandle_t. Internal: included by src/ and by white-box tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "abft/ft_params.h"
#include "aegis/aegis.h"

namespace aegis::dispatch {
struct TuningTable;
}
namespace aegis::blas2 {
struct Blas2Instance;
}

struct aegisContext {
  // Device the handle was created on (-1: a context made for host-only tests).
  int device = -1;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  size_t l2_bytes = 0;
  std::string device_name;

  cudaStream_t stream = nullptr;
  aegisPointerMode_t pointer_mode = AEGIS_POINTER_MODE_HOST;

  // Scratch memory: the handle's own allocation unless the user supplied one.
  void* own_workspace = nullptr;
  size_t own_workspace_bytes = 0;
  void* user_workspace = nullptr;
  size_t user_workspace_bytes = 0;
  void* workspace() const { return user_workspace ? user_workspace : own_workspace; }
  size_t workspace_bytes() const {
    return user_workspace ? user_workspace_bytes : own_workspace_bytes;
  }

  const aegis::dispatch::TuningTable* tuning = nullptr;

  // Tuning/benchmark override of the SGEMM table row (empty: none).
  std::string sgemm_override_config;
  int sgemm_override_max_split = 0;
  // What the last SGEMM that launched work used.
  std::string last_sgemm_kernel;
  int last_sgemm_split = 0;

  // Tensor-core GEMM (aegisGemmEx / aegisHgemm): the tuner's or a test's kernel override
  // (empty: none) and the kernel and split-K factor the last call launched.
  std::string gemm_ex_override_config;
  std::string last_gemm_ex_kernel;
  int last_gemm_ex_split = 0;

  // Stream-ordered scratch for temporaries that do not fit the workspace (call_scratch in
  // common/scratch.h).
  void* scratch = nullptr;
  size_t scratch_bytes = 0;

  // Level 2: how split sums are combined, per-panel arrival counters of the deterministic
  // reduction (zeroed at creation; every kernel that uses them leaves them zero), the
  // tuner's override and what the last call used.
  aegisReductionMode_t reduction_mode = AEGIS_REDUCTION_DETERMINISTIC;
  unsigned* blas2_counters = nullptr;
  int blas2_counter_count = 0;
  // GEMV N atomics mode: the count of y slices scaled by beta (the word after the arrival
  // counters; it only grows) and the count the last call's blocks waited for.
  unsigned* blas2_y_scaled = nullptr;
  unsigned blas2_y_scaled_issued = 0;
  // Deterministic GEMV split sums and float SYMV: the buffer of tagged partial sums (only
  // those kernels write it; tagged_parts in common/scratch.h) and the tag of the last call
  // that used it.
  void* blas2_tagged_parts = nullptr;
  size_t blas2_tagged_parts_bytes = 0;
  unsigned blas2_part_tag = 0;
  const aegis::blas2::Blas2Instance* blas2_override = nullptr;  // nullptr: none
  int blas2_override_y = 0;
  aegisBlas2Sums_t blas2_override_sums = AEGIS_BLAS2_SUMS_AUTO;
  const char* last_blas2_config = "";  // an instance's name (static) or ""
  int last_blas2_y = 0;
  aegisBlas2Sums_t last_blas2_sums = AEGIS_BLAS2_SUMS_AUTO;

  // Fault tolerance: mode and level, check interval, faults armed for future calls (each
  // with the absolute index of the FT call it fires in), the count of FT calls made
  // (ft_serial never resets; ft_serial_at_reset marks the last statistics reset) and the
  // device-resident statistics the kernels add to.
  aegisFtMode_t ft_mode = AEGIS_FT_OFF;
  aegisFtLevel_t ft_level = AEGIS_FT_LEVEL_BLOCK;
  int64_t ft_verify_interval = 0;
  struct ArmedFault {
    int64_t serial;
    aegisFault_t fault;
  };
  std::vector<ArmedFault> ft_armed;
  int64_t ft_serial = 0;
  int64_t ft_serial_at_reset = 0;
  aegis::abft::FtDeviceStats* ft_stats = nullptr;

  std::string last_error;
};

namespace aegis::detail {

// Size of the workspace every handle allocates for itself.
constexpr size_t kDefaultWorkspaceBytes = size_t(32) << 20;
// Arrival counters every handle allocates for the level-2 deterministic reduction.
constexpr int kBlas2CounterCount = 1 << 16;
// Faults a handle holds armed at once.
constexpr int kMaxArmedFaults = 64;

// A context bound to no device, for host-only tests of argument checking, quick returns
// and dispatch logic. Anything that would launch work fails with EXECUTION_FAILED.
aegisContext* create_context_without_device(int sm_count = 132);
void destroy_context(aegisContext* ctx);

}  // namespace aegis::detail
