// Level-2 dispatch (see blas2_dispatch.h and docs/blas2.md).
#include "dispatch/blas2_dispatch.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "common/context.h"
#include "common/errors.h"
#include "common/grid_limits.h"
#include "common/scratch.h"
#include "dispatch/tuning_table.h"

namespace aegis::dispatch {
namespace {

using blas2::Blas2Call;
using blas2::Blas2Instance;
using blas2::Family;
using blas2::Precision;

const Blas2TuningRow kH200Rows[] = {
#include "dispatch/tuning/blas2_h200.inc"
};

// For GPUs without a table of their own: the first-listed configuration of each routine,
// split from the size.
const Blas2TuningRow kDefaultRows[] = {
    {"sgemv_n", 0, "sgemv_n_nb256_q4", 0}, {"sgemv_t", 0, "sgemv_t_nb32_q4", 0},
    {"ssymv", 0, "ssymv_nb64_q8", 0},      {"dgemv_n", 0, "dgemv_n_nb128_q4", 0},
    {"dgemv_t", 0, "dgemv_t_nb32_q4", 0},  {"dsymv", 0, "dsymv_nb64_q8", 0},
    {"cgemv_n", 0, "cgemv_n_nb128_q4", 0}, {"cgemv_t", 0, "cgemv_t_nb32_q4", 0},
    {"csymv", 0, "csymv_nb32_q8", 0},      {"chemv", 0, "chemv_nb64_q8", 0},
    {"zgemv_n", 0, "zgemv_n_nb64_q4", 0},  {"zgemv_t", 0, "zgemv_t_nb16_q4", 0},
    {"zsymv", 0, "zsymv_nb32_q4", 0},      {"zhemv", 0, "zhemv_nb32_q4", 0},
};

template <size_t N>
constexpr int count(const Blas2TuningRow (&)[N]) {
  return int(N);
}

const Blas2Table kTables[] = {
    {"h200", kH200Rows, count(kH200Rows)},
    {"default", kDefaultRows, count(kDefaultRows)},
};

constexpr int kTableCount = int(sizeof(kTables) / sizeof(kTables[0]));

// Whether row r serves a call of max(m, n) = size in this reduction mode.
bool row_serves(const Blas2TuningRow& r, int64_t size, aegisReductionMode_t mode) {
  const Blas2RowModes excluded = mode == AEGIS_REDUCTION_ATOMICS ? Blas2RowModes::DeterministicOnly
                                                                 : Blas2RowModes::AtomicsOnly;
  return (r.max_size == 0 || size <= r.max_size) && r.modes != excluded;
}

// A table row with its instance (nullptr where this build lacks the configuration).
struct ResolvedRow {
  const Blas2TuningRow* row;
  const Blas2Instance* instance;
};

// The rows of `table` for one routine (precision, family), in table order, their instances
// looked up once for the whole process. Dispatch runs on every call, and matching the names
// of ~300 rows and ~100 instances took about 0.9 us of host time per call (build machine),
// while a GEMV at n = 1024 runs 1-4 us on the GPU.
const std::vector<ResolvedRow>& resolved_rows(const Blas2Table& table, Precision precision,
                                              Family family) {
  using PerRoutine = std::array<std::vector<ResolvedRow>, 16>;  // [precision * 4 + family]
  static const std::vector<PerRoutine> all = [] {
    std::vector<PerRoutine> out(kTableCount);
    for (int t = 0; t < kTableCount; ++t)
      for (int i = 0; i < kTables[t].row_count; ++i) {
        const Blas2TuningRow& r = kTables[t].rows[i];
        for (int k = 0; k < 16; ++k)
          if (std::strcmp(r.routine, blas2_routine_key(Precision(k / 4), Family(k % 4))) == 0)
            out[t][k].push_back({&r, blas2::find_blas2_instance(r.config)});
      }
    return out;
  }();
  return all[&table - kTables][int(precision) * 4 + int(family)];
}

// The first row of `rows` that serves the call, or nullptr.
const ResolvedRow* serving_row(const std::vector<ResolvedRow>& rows, int64_t size,
                               aegisReductionMode_t mode) {
  for (const ResolvedRow& r : rows)
    if (row_serves(*r.row, size, mode)) return &r;
  return nullptr;
}

// Thread blocks per SM the split aims at (level-2 blocks are 128-256 threads: 8-16 fit).
constexpr int64_t kBlocksPerSm = 8;

bool instance_serves(const Blas2Instance& inst, const char* routine_key) {
  const size_t n = std::strlen(routine_key);
  return std::strncmp(inst.name, routine_key, n) == 0 && inst.name[n] == '_' &&
         std::strncmp(inst.name + n, "_nb", 3) == 0;
}

// Whether a GEMV split of y blocks can meet in a thread-block cluster (sm_90+), in either
// reduction mode: the cluster's ordered sum is deterministic, and in the atomics mode it
// saves the beta pre-pass and the atomic adds (the tuning rows say where that pays).
bool cluster_sum_possible(const aegisContext& h, const Blas2Instance& inst, int y) {
  return h.cc_major >= 9 && (inst.family == Family::GemvN || inst.family == Family::GemvT) &&
         y >= 2 && y <= blas2::kClusterSplitMax;
}

// Clamp a split to what the launch supports; `cluster`: the split sums are to meet in a
// cluster where they can (those need no arrival counter).
int clamp_split(const aegisContext& h, const Blas2Instance& inst, const Blas2Call& call, int y,
                bool cluster) {
  int64_t v = y < 1 ? 1 : y;
  const int64_t units = std::max<int64_t>(1, inst.split_units(call));
  if (inst.family == Family::Symv || inst.family == Family::Hemv) {
    v = std::min(v, units);                                      // tiles per block <= tiles
    v = std::max(v, (units + kMaxGridDimY - 1) / kMaxGridDimY);        // grid.y limit
    return int(v);
  }
  v = std::min({v, units, kMaxGridDimY});
  // The ordered reduction counts arrivals per panel; too many panels: no split (the grid
  // fills the GPU anyway). A split that meets in a cluster needs no counter.
  if (h.reduction_mode == AEGIS_REDUCTION_DETERMINISTIC &&
      !(cluster && cluster_sum_possible(h, inst, int(v))) &&
      inst.panel_count(call) > h.blas2_counter_count)
    v = 1;
  return int(v);
}

// Whether work queued on `stream` now is being captured into a graph (a query that fails
// counts as capturing: the caller then takes the path that is safe either way).
bool stream_is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    cudaGetLastError();
    return true;
  }
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace

const Blas2Table& blas2_table(const char* tuning_name) {
  for (const Blas2Table& t : kTables)
    if (tuning_name && std::strcmp(t.name, tuning_name) == 0) return t;
  return kTables[sizeof(kTables) / sizeof(kTables[0]) - 1];
}

const char* blas2_routine_key(Precision precision, Family family) {
  static const char* const kKeys[4][4] = {
      {"sgemv_n", "sgemv_t", "ssymv", "shemv"},
      {"dgemv_n", "dgemv_t", "dsymv", "dhemv"},
      {"cgemv_n", "cgemv_t", "csymv", "chemv"},
      {"zgemv_n", "zgemv_t", "zsymv", "zhemv"},
  };
  return kKeys[int(precision)][int(family)];
}

const Blas2TuningRow* blas2_row(const Blas2Table& table, const char* routine, int64_t size,
                                aegisReductionMode_t mode) {
  for (int i = 0; i < table.row_count; ++i) {
    const Blas2TuningRow& r = table.rows[i];
    if (std::strcmp(r.routine, routine) == 0 && row_serves(r, size, mode)) return &r;
  }
  return nullptr;
}

int auto_y_split(const Blas2Instance& inst, const Blas2Call& call, int sm_count) {
  const int64_t target = std::max<int64_t>(1, int64_t(sm_count) * kBlocksPerSm);
  const int64_t units = std::max<int64_t>(1, inst.split_units(call));
  if (inst.family == Family::Symv || inst.family == Family::Hemv) {
    // Tiles per block so that all stored tiles make about `target` blocks (at least 2
    // tiles each, so the double buffer has something to overlap).
    const int64_t tiles = units * (units + 1) / 2;
    const int64_t s = (tiles + target - 1) / target;
    return int(std::min(units, std::max<int64_t>(2, s)));
  }
  const int64_t panels = std::max<int64_t>(1, inst.panel_count(call));
  if (panels >= target) return 1;
  const int64_t y = (target + panels - 1) / panels;
  // Each block keeps at least 4 units of work (columns groups or row steps).
  return int(std::max<int64_t>(1, std::min(y, units / 4)));
}

Blas2Choice choose_blas2(const aegisContext& h, Precision precision, const Blas2Call& call) {
  const Family family = call.family;
  const char* key = blas2_routine_key(precision, family);
  Blas2Choice choice;
  int y = 0;
  bool cluster = false;
  if (h.blas2_override) {
    const Blas2Instance* inst = h.blas2_override;
    if (instance_serves(*inst, key)) {
      choice.instance = inst;
      y = h.blas2_override_y;
    }
  }
  if (!choice.instance) {
    const int64_t size = std::max(call.m, call.n);
    const Blas2Table& table = blas2_table(h.tuning ? h.tuning->name : "default");
    const ResolvedRow* r = serving_row(resolved_rows(table, precision, family), size, h.reduction_mode);
    if (!r) r = serving_row(resolved_rows(blas2_table("default"), precision, family), size, h.reduction_mode);
    if (r) {
      choice.instance = r->instance;
      y = r->row->y_split;
      cluster = r->row->sums == Blas2Sums::Cluster;
    }
  }
  if (!choice.instance) {  // a table naming a config this build lacks: first of the family
    int n = 0;
    const Blas2Instance* const* all = blas2::blas2_instances(&n);
    for (int i = 0; i < n && !choice.instance; ++i)
      if (instance_serves(*all[i], key)) choice.instance = all[i];
    y = 0;
  }
  if (!choice.instance) return choice;
  if (y == 0) y = auto_y_split(*choice.instance, call, h.sm_count);
  if (h.blas2_override_sums != AEGIS_BLAS2_SUMS_AUTO)
    cluster = h.blas2_override_sums == AEGIS_BLAS2_SUMS_CLUSTER;
  choice.y_split = clamp_split(h, *choice.instance, call, y, cluster);
  choice.cluster_sum = cluster && cluster_sum_possible(h, *choice.instance, choice.y_split);
  return choice;
}

aegisStatus_t run_blas2(aegisContext* h, const char* routine, Precision precision,
                        const Blas2Call& call) {
  h->last_blas2_config = "";
  h->last_blas2_y = 0;
  h->last_blas2_sums = AEGIS_BLAS2_SUMS_AUTO;
  if (h->device < 0)
    return detail::fail(h, AEGIS_STATUS_EXECUTION_FAILED, routine, "the handle has no device");
  const Blas2Choice choice = choose_blas2(*h, precision, call);
  if (!choice.instance)
    return detail::fail(h, AEGIS_STATUS_NOT_SUPPORTED, routine,
                        "no %s kernel in this build", blas2_routine_key(precision, call.family));
  blas2::Blas2Plan plan;
  plan.y_split = choice.y_split;
  // A split meeting in a cluster needs neither atomics nor the workspace, in either mode.
  plan.atomics = h->reduction_mode == AEGIS_REDUCTION_ATOMICS && !choice.cluster_sum;
  plan.stream = h->stream;
  plan.counters = h->blas2_counters;
  plan.counter_count = h->blas2_counter_count;
  plan.l2_bytes = h->l2_bytes;
  plan.cluster_sum = choice.cluster_sum;
  // GEMV's atomics mode scales y inside its grid (N; T on small double and complex calls, as
  // the launcher decides), against a count on the handle; a graph's replays could not advance
  // its target, so a captured call takes the pre-pass.
  const bool gemv = call.family == Family::GemvN || call.family == Family::GemvT;
  if (gemv && plan.atomics && !stream_is_capturing(h->stream)) {
    plan.y_scaled = h->blas2_y_scaled;
    plan.y_scaled_issued = &h->blas2_y_scaled_issued;
  }
  // Deterministic sums whose parts may be tagged (GEMV split sums that do not meet in a
  // cluster, float SYMV): the reduction runs alongside the main kernel. Not in a graph: its
  // replays would repeat the captured tag, which the parts of the previous replay carry.
  const size_t tagged_bytes =
      !plan.atomics && !plan.cluster_sum
          ? choice.instance->tagged_workspace_bytes(call, choice.y_split, h->l2_bytes)
          : 0;
  // (Where the buffer cannot be had, the untagged reduction serves.)
  void* const tagged = tagged_bytes > 0 && !stream_is_capturing(h->stream)
                           ? detail::tagged_parts(h, tagged_bytes, &plan.part_tag)
                           : nullptr;
  if (tagged) {
    plan.workspace = tagged;
    plan.workspace_bytes = tagged_bytes;
  } else if (!plan.atomics && !plan.cluster_sum) {
    const size_t need = choice.instance->workspace_bytes(call, choice.y_split);
    if (need > 0) {
      // Partial sums larger than the workspace (SYMV at large n) go to the handle's
      // stream-ordered scratch.
      plan.workspace = detail::call_scratch(h, need, &plan.workspace_bytes);
      if (!plan.workspace)
        return detail::fail(h, AEGIS_STATUS_ALLOC_FAILED, routine,
                            "cannot allocate %zu bytes for the deterministic reduction "
                            "(aegisSetWorkspace or AEGIS_REDUCTION_ATOMICS avoid it)",
                            need);
    }
  }
  const cudaError_t err = choice.instance->launch(call, plan);
  if (err != cudaSuccess) return detail::from_cuda(h, routine, err);
  h->last_blas2_config = choice.instance->name;
  h->last_blas2_y = choice.y_split;
  if (gemv && !plan.atomics && choice.y_split > 1)  // atomics mode: CLUSTER or AUTO
    h->last_blas2_sums = plan.cluster_sum ? AEGIS_BLAS2_SUMS_CLUSTER : AEGIS_BLAS2_SUMS_WORKSPACE;
  return AEGIS_STATUS_SUCCESS;
}

aegisStatus_t run_blas2_scale(aegisContext* h, const char* routine, Precision precision,
                              int64_t count, const Blas2Call& call) {
  h->last_blas2_config = "";
  h->last_blas2_y = 0;
  h->last_blas2_sums = AEGIS_BLAS2_SUMS_AUTO;
  if (h->device < 0)
    return detail::fail(h, AEGIS_STATUS_EXECUTION_FAILED, routine, "the handle has no device");
  return detail::from_cuda(h, routine,
                           blas2::blas2_scale(precision, count, call.y, call.incy, call, h->stream));
}

}  // namespace aegis::dispatch
