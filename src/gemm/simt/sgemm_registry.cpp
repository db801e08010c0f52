#include "gemm/simt/sgemm_registry.h"

#include <cstring>

namespace aegis::gemm::simt {

// sgemm_registry.inc is written by CMake: one AEGIS_SGEMM_INSTANCE(symbol) per compiled
// row of instances/sgemm_configs.def.
#define AEGIS_SGEMM_INSTANCE(symbol) extern const SgemmInstance symbol;
#include "sgemm_registry.inc"
#undef AEGIS_SGEMM_INSTANCE

namespace {
#define AEGIS_SGEMM_INSTANCE(symbol) &symbol,
const SgemmInstance* const kInstances[] = {
#include "sgemm_registry.inc"
};
#undef AEGIS_SGEMM_INSTANCE
}  // namespace

const SgemmInstance* const* sgemm_instances(int* count) {
  *count = static_cast<int>(sizeof(kInstances) / sizeof(kInstances[0]));
  return kInstances;
}

const SgemmInstance* find_sgemm_instance(const char* name) {
  if (!name) return nullptr;
  for (const SgemmInstance* inst : kInstances)
    if (std::strcmp(inst->name, name) == 0) return inst;
  return nullptr;
}

}  // namespace aegis::gemm::simt
