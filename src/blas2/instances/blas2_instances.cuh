// Explicit instances of one precision from blas2_configs.def. A precision's .cu defines
// AEGIS_BLAS2_T (its scalar type), AEGIS_BLAS2_CONFIG_<p> for its own letter as
// AEGIS_BLAS2_MAKE and the other letters as nothing, then includes this file.
#include "blas2/gemv_kernel.cuh"
#include "blas2/symv_kernel.cuh"

#define AEGIS_BLAS2_FAMILY_gemv_n(T, nb, q) ::aegis::blas2::GemvN<T, nb, q>
#define AEGIS_BLAS2_FAMILY_gemv_t(T, nb, q) ::aegis::blas2::GemvT<T, nb, q>
#define AEGIS_BLAS2_FAMILY_symv(T, nb, q) ::aegis::blas2::SymvFamily<T, nb, q, false>
#define AEGIS_BLAS2_FAMILY_hemv(T, nb, q) ::aegis::blas2::SymvFamily<T, nb, q, true>
#define AEGIS_BLAS2_FAMILY_symv_s3(T, nb, q) ::aegis::blas2::SymvFamily<T, nb, q, false, 3>
#define AEGIS_BLAS2_FAMILY_hemv_s3(T, nb, q) ::aegis::blas2::SymvFamily<T, nb, q, true, 3>
#define AEGIS_BLAS2_ENUM_gemv_n ::aegis::blas2::Family::GemvN
#define AEGIS_BLAS2_ENUM_gemv_t ::aegis::blas2::Family::GemvT
#define AEGIS_BLAS2_ENUM_symv ::aegis::blas2::Family::Symv
#define AEGIS_BLAS2_ENUM_hemv ::aegis::blas2::Family::Hemv
#define AEGIS_BLAS2_ENUM_symv_s3 ::aegis::blas2::Family::Symv
#define AEGIS_BLAS2_ENUM_hemv_s3 ::aegis::blas2::Family::Hemv
// The routine part of an instance's name and the suffix after _q<q>: the staged families
// (three cp.async stages, symv_kernel.cuh) are SYMV/HEMV instances, "ssymv_nb64_q8_s3".
#define AEGIS_BLAS2_BASE_gemv_n "gemv_n"
#define AEGIS_BLAS2_BASE_gemv_t "gemv_t"
#define AEGIS_BLAS2_BASE_symv "symv"
#define AEGIS_BLAS2_BASE_hemv "hemv"
#define AEGIS_BLAS2_BASE_symv_s3 "symv"
#define AEGIS_BLAS2_BASE_hemv_s3 "hemv"
#define AEGIS_BLAS2_SUFFIX_gemv_n ""
#define AEGIS_BLAS2_SUFFIX_gemv_t ""
#define AEGIS_BLAS2_SUFFIX_symv ""
#define AEGIS_BLAS2_SUFFIX_hemv ""
#define AEGIS_BLAS2_SUFFIX_symv_s3 "_s3"
#define AEGIS_BLAS2_SUFFIX_hemv_s3 "_s3"

#define AEGIS_BLAS2_MAKE(p, family, nb, q)                                              \
  ::aegis::blas2::Blas2Instance{                                                        \
      #p AEGIS_BLAS2_BASE_##family "_nb" #nb "_q" #q AEGIS_BLAS2_SUFFIX_##family,         \
      AEGIS_BLAS2_PRECISION,                                                            \
      AEGIS_BLAS2_ENUM_##family,                                                        \
      nb,                                                                               \
      q,                                                                                \
      &AEGIS_BLAS2_FAMILY_##family(AEGIS_BLAS2_T, nb, q)::workspace_bytes,              \
      &AEGIS_BLAS2_FAMILY_##family(AEGIS_BLAS2_T, nb, q)::tagged_workspace_bytes,       \
      &AEGIS_BLAS2_FAMILY_##family(AEGIS_BLAS2_T, nb, q)::panels,                       \
      &AEGIS_BLAS2_FAMILY_##family(AEGIS_BLAS2_T, nb, q)::split_units,                  \
      &AEGIS_BLAS2_FAMILY_##family(AEGIS_BLAS2_T, nb, q)::launch},

#define AEGIS_BLAS2_CONFIG(p, family, nb, q) AEGIS_BLAS2_CONFIG_##p(p, family, nb, q)

namespace aegis::blas2 {
namespace {
const Blas2Instance kInstances[] = {
#include "blas2/instances/blas2_configs.def"
};
}  // namespace

const Blas2Instance* AEGIS_BLAS2_TABLE_FN(int* count) {
  *count = int(sizeof(kInstances) / sizeof(kInstances[0]));
  return kInstances;
}

cudaError_t AEGIS_BLAS2_SCALE_FN(int64_t count, void* y, int64_t inc, const Blas2Call& call,
                                 cudaStream_t stream) {
  return launch_scale_vector(count, static_cast<AEGIS_BLAS2_T*>(y), inc,
                             scalars_of<AEGIS_BLAS2_T>(call), stream);
}

}  // namespace aegis::blas2
