// Tuning tables: which kernel configuration serves which GEMM shape class on which GPU.
// The rows are data written by aegis-tune (src/dispatch/tuning/*.inc); adding a GPU means
// adding a table file and one line in tuning_tables.cpp, not code.
#pragma once

#include <string>

#include "aegis/aegis.h"

namespace aegis::dispatch {

struct SgemmTuningRow {
  aegisShapeClass_t shape_class;
  const char* config;  // an instance name from src/gemm/simt/instances/sgemm_configs.def
  int max_split;       // split-K limit for shapes whose grid does not fill the GPU
};

// Tensor-core GEMM (aegisGemmEx / aegisHgemm) row: the kernel for a shape class when the
// call's operands allow it (dispatch falls back to the mma.sync kernel otherwise).
struct GemmExTuningRow {
  aegisShapeClass_t shape_class;
  const char* config;  // an instance name from src/gemm/tc/tc_registry.cpp
  // The kernel for the class's calls with too few tiles to fill the GPU, where `config`
  // would split a K of at most kFewTilesMaxK (gemm_ex_dispatch.h); nullptr: the medium
  // class's, else the small class's kernel.
  const char* few_tiles_config = nullptr;
  // A kernel of smaller tiles for the class's calls whose tiles under it all run in one wave
  // (no more than SMs x its CTAs per SM): a small call is bound by latency, and more SMs
  // doing less each finish it sooner (gemm_ex_dispatch.h); nullptr: none.
  const char* one_wave_config = nullptr;
};

struct TuningTable {
  const char* name;          // "h200", "default"
  const char* device_match;  // substring of cudaDeviceProp::name ("" matches any device)
  const SgemmTuningRow* sgemm_rows;
  int sgemm_row_count;
  // Rows for fault-tolerant SGEMM (max_split unused: FT never splits K); nullptr: the
  // plain rows serve FT too.
  const SgemmTuningRow* sgemm_ft_rows;
  int sgemm_ft_row_count;
  // Tensor-core GEMM rows; nullptr: the mma.sync fallback serves every shape.
  const GemmExTuningRow* gemm_ex_rows;
  int gemm_ex_row_count;
};

// The first table whose device_match occurs in device_name; the default table otherwise.
const TuningTable* find_tuning_table(const char* device_name);

// The table called `name` ("h200", "default"); nullptr if this build has none of that name.
const TuningTable* find_tuning_table_by_name(const char* name);

// The names of the built tables, in lookup order, separated by ", ": for error messages.
std::string tuning_table_names();

// The row of `table` for shape_class (the table's first row if it has none for it).
const SgemmTuningRow& sgemm_row(const TuningTable& table, aegisShapeClass_t shape_class);
// The same for fault-tolerant SGEMM.
const SgemmTuningRow& sgemm_ft_row(const TuningTable& table, aegisShapeClass_t shape_class);

// The tensor-core GEMM row for shape_class (nullptr when the table has none).
const GemmExTuningRow* gemm_ex_row(const TuningTable& table, aegisShapeClass_t shape_class);

}  // namespace aegis::dispatch
