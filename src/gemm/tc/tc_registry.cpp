#include "gemm/tc/tc_registry.h"

#include <cstdint>
#include <cstring>

#include "gemm/sm80/mma_sync_gemm.h"
#include "gemm/sm90/sm90_launch.h"

namespace aegis::gemm::tc {

namespace {

// sm90_registry.inc is written by CMake: one AEGIS_SM90_INSTANCE(name, BM, BN, STAGES,
// STAGGER, EAGER, STAGED, CLUSTER_M, CLUSTER_N, CTAS, KSPLIT, CLUSTER_K, KTILES) per row of
// src/gemm/sm90/instances/sm90_configs.def (whose kernels the generated .cu files compile).
// A kernel that splits K across its cluster (CLUSTER_K > 1) is never split again by dispatch.
#define AEGIS_SM90_INSTANCE(symbol, bm, bn, stages, stagger, eager, staged, cluster_m, cluster_n, \
                            ctas, ksplit, cluster_k, ktiles)                                    \
  const TcInstance symbol = {#symbol,                                                           \
                             sm90::launch_sm90<sm90::Sm90Config<bm, bn, stages, stagger, eager, \
                                                                staged, cluster_m, cluster_n,   \
                                                                ctas, ksplit, cluster_k,        \
                                                                ktiles>>,                       \
                             {9, true, cluster_k == 1},                                         \
                             bm,                                                                \
                             bn,                                                                \
                             ctas,                                                              \
                             64 * ktiles};
#include "sm90_registry.inc"
#undef AEGIS_SM90_INSTANCE

const TcInstance kMmaSync = {"gemm_sm80_mma_sync", sm80::launch_gemm_mma_sync, {8, false, false}, 128,
                             128, 1, 64};

#define AEGIS_SM90_INSTANCE(symbol, bm, bn, stages, stagger, eager, staged, cluster_m, cluster_n, \
                            ctas, ksplit, cluster_k, ktiles)                                    \
  &symbol,
const TcInstance* const kInstances[] = {
#include "sm90_registry.inc"
    &kMmaSync,
};
#undef AEGIS_SM90_INSTANCE

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

const TcInstance* const* tc_instances(int* count) {
  *count = static_cast<int>(sizeof(kInstances) / sizeof(kInstances[0]));
  return kInstances;
}

const TcInstance* find_tc_instance(const char* name) {
  if (!name) return nullptr;
  for (const TcInstance* inst : kInstances)
    if (std::strcmp(inst->name, name) == 0) return inst;
  return nullptr;
}

const TcInstance* tc_fallback_instance() { return &kMmaSync; }

bool tc_can_run(const TcInstance& inst, const TcGemmParams& p) {
  if (!inst.needs.tma_operands) return true;
  // TMA coordinates are 32-bit signed; keep every tile coordinate representable.
  constexpr int64_t kMaxTmaExtent = (int64_t{1} << 31) - 1024;
  if (p.m > kMaxTmaExtent || p.n > kMaxTmaExtent || p.k > kMaxTmaExtent) return false;
  // A TMA descriptor needs a 16-byte aligned base and strides that are multiples of 16 bytes.
  const int64_t elem = static_cast<int64_t>(dtype_bytes(p.ab_type));
  return aligned16(p.A) && aligned16(p.B) && (p.lda * elem) % 16 == 0 &&
         (p.ldb * elem) % 16 == 0;
}

}  // namespace aegis::gemm::tc
