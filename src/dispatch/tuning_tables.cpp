// The tuning tables known to this build. Rows come from aegis-tune (tuning/*.inc).
#include <cstring>

#include "dispatch/tuning_table.h"

namespace aegis::dispatch {
namespace {

const SgemmTuningRow kH200Sgemm[] = {
#include "dispatch/tuning/sgemm_h200.inc"
};
const SgemmTuningRow kH200SgemmFt[] = {
#include "dispatch/tuning/sgemm_ft_h200.inc"
};
const GemmExTuningRow kH200GemmEx[] = {
#include "dispatch/tuning/gemm_ex_h200.inc"
};

// For GPUs without a table of their own: configurations that are reasonable everywhere.
const SgemmTuningRow kDefaultSgemm[] = {
    {AEGIS_SHAPE_SMALL, "sgemm_simt_32x32x8_w32x32_t4x8", 16},
    {AEGIS_SHAPE_MEDIUM, "sgemm_simt_64x64x8_w32x32_t8x4", 4},
    {AEGIS_SHAPE_LARGE, "sgemm_simt_128x128x8_w32x64_t8x8", 1},
    {AEGIS_SHAPE_HUGE, "sgemm_simt_128x128x8_w32x64_t8x8", 1},
    {AEGIS_SHAPE_TALL, "sgemm_simt_128x64x8_w64x32_t8x8", 8},
    {AEGIS_SHAPE_WIDE, "sgemm_simt_64x128x8_w32x64_t8x8", 8},
};

template <typename Row, size_t N>
constexpr int count(const Row (&)[N]) {
  return static_cast<int>(N);
}

const TuningTable kTables[] = {
    {"h200", "H200", kH200Sgemm, count(kH200Sgemm), kH200SgemmFt, count(kH200SgemmFt),
     kH200GemmEx, count(kH200GemmEx)},
    {"default", "", kDefaultSgemm, count(kDefaultSgemm), nullptr, 0, nullptr, 0},
};

const SgemmTuningRow& find_row(const SgemmTuningRow* rows, int count,
                               aegisShapeClass_t shape_class) {
  for (int i = 0; i < count; ++i)
    if (rows[i].shape_class == shape_class) return rows[i];
  return rows[0];
}

}  // namespace

const TuningTable* find_tuning_table(const char* device_name) {
  for (const TuningTable& t : kTables)
    if (device_name && std::strstr(device_name, t.device_match)) return &t;
  return &kTables[sizeof(kTables) / sizeof(kTables[0]) - 1];
}

const TuningTable* find_tuning_table_by_name(const char* name) {
  for (const TuningTable& t : kTables)
    if (name && std::strcmp(t.name, name) == 0) return &t;
  return nullptr;
}

std::string tuning_table_names() {
  std::string names;
  for (const TuningTable& t : kTables) names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}

const SgemmTuningRow& sgemm_row(const TuningTable& table, aegisShapeClass_t shape_class) {
  return find_row(table.sgemm_rows, table.sgemm_row_count, shape_class);
}

const SgemmTuningRow& sgemm_ft_row(const TuningTable& table, aegisShapeClass_t shape_class) {
  if (!table.sgemm_ft_rows) return sgemm_row(table, shape_class);
  return find_row(table.sgemm_ft_rows, table.sgemm_ft_row_count, shape_class);
}

const GemmExTuningRow* gemm_ex_row(const TuningTable& table, aegisShapeClass_t shape_class) {
  for (int i = 0; i < table.gemm_ex_row_count; ++i)
    if (table.gemm_ex_rows[i].shape_class == shape_class) return &table.gemm_ex_rows[i];
  return nullptr;
}

}  // namespace aegis::dispatch
