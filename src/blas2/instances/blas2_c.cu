// C instances of the level-2 kernels (rows of blas2_configs.def with precision c).
#define AEGIS_BLAS2_T cuComplex
#define AEGIS_BLAS2_PRECISION ::aegis::blas2::Precision::C
#define AEGIS_BLAS2_TABLE_FN blas2_instances_c
#define AEGIS_BLAS2_SCALE_FN blas2_scale_c
#define AEGIS_BLAS2_CONFIG_s(...)
#define AEGIS_BLAS2_CONFIG_d(...)
#define AEGIS_BLAS2_CONFIG_c AEGIS_BLAS2_MAKE
#define AEGIS_BLAS2_CONFIG_z(...)
#include "blas2/instances/blas2_instances.cuh"
