// Level-2 dispatch: routine and size -> tuning row -> instance, Y split, workspace -> launch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "aegis/aegis.h"
#include "blas2/blas2_launch.h"

struct aegisContext;

namespace aegis::dispatch {

// Where a GEMV's split sums meet (aegisBlas2Sums_t's WORKSPACE and CLUSTER). The cluster is
// faster at some (size, split) and slower at others (co-scheduling a cluster of 4-16
// blocks), so the tuner times both (docs/blas2.md, v14). Workspace means the atomic adds in
// the atomics mode; a cluster row serves the atomics mode too where the cluster's ordered
// sum beat the pre-pass and atomic adds (v15).
enum class Blas2Sums { Workspace, Cluster };

// The reduction modes a tuning row serves. The two modes pay differently for a split (the
// deterministic mode writes partial sums and counts its blocks in, the atomics mode scales
// y first and adds into it), so their best configurations can differ.
enum class Blas2RowModes { Both, DeterministicOnly, AtomicsOnly };

// One row of a level-2 tuning table: for `routine` ("sgemv_n", "sgemv_t", "ssymv",
// "chemv", ...; GEMV with trans = C uses the _t rows), problems with max(m, n) <= max_size
// (0: any size) and the handle's reduction mode in `modes`, the instance `config` with
// y_split thread blocks per panel (Symv/Hemv: tiles per thread block; 0: chosen from the
// size by auto_y_split), its GEMV split sums meeting as `sums` says (where the device and the
// split allow a cluster).
struct Blas2TuningRow {
  const char* routine;
  int64_t max_size;
  const char* config;
  int y_split;
  Blas2RowModes modes = Blas2RowModes::Both;
  Blas2Sums sums = Blas2Sums::Workspace;
};

struct Blas2Table {
  const char* name;  // matches TuningTable::name of the GEMM tables ("h200", "default")
  const Blas2TuningRow* rows;
  int row_count;
};

// The level-2 table for a GEMM tuning table name ("default" if there is none).
const Blas2Table& blas2_table(const char* tuning_name);

// Routine key of a call: "<p>gemv_n", "<p>gemv_t", "<p>symv", "<p>hemv".
const char* blas2_routine_key(blas2::Precision precision, blas2::Family family);

// The first row for `routine` whose max_size covers `size` and whose modes include `mode`,
// else null.
const Blas2TuningRow* blas2_row(const Blas2Table& table, const char* routine, int64_t size,
                                aegisReductionMode_t mode);

// Y split from the size when the row leaves it open: about 8 thread blocks per SM over all
// panels, within the split units of the call (and at least min_units each).
int auto_y_split(const blas2::Blas2Instance& instance, const blas2::Blas2Call& call,
                 int sm_count);

struct Blas2Choice {
  const blas2::Blas2Instance* instance = nullptr;
  int y_split = 1;
  bool cluster_sum = false;  // GEMV split (either mode): the blocks meet in a cluster
};

// Instance and split for a call on this handle (override, else table, else first
// instance of the family), the split clamped to what the call and the counters allow.
Blas2Choice choose_blas2(const aegisContext& h, blas2::Precision precision,
                         const blas2::Blas2Call& call);

// Launches the call (arguments checked, m, n > 0). routine names the API entry for errors.
aegisStatus_t run_blas2(aegisContext* h, const char* routine, blas2::Precision precision,
                        const blas2::Blas2Call& call);

// y = beta y over count elements (alpha = 0 with host scalars).
aegisStatus_t run_blas2_scale(aegisContext* h, const char* routine, blas2::Precision precision,
                              int64_t count, const blas2::Blas2Call& call);

}  // namespace aegis::dispatch
