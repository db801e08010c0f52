// Z instances of the level-2 kernels (rows of blas2_configs.def with precision z).
#define AEGIS_BLAS2_T cuDoubleComplex
#define AEGIS_BLAS2_PRECISION ::aegis::blas2::Precision::Z
#define AEGIS_BLAS2_TABLE_FN blas2_instances_z
#define AEGIS_BLAS2_SCALE_FN blas2_scale_z
#define AEGIS_BLAS2_CONFIG_s(...)
#define AEGIS_BLAS2_CONFIG_d(...)
#define AEGIS_BLAS2_CONFIG_c(...)
#define AEGIS_BLAS2_CONFIG_z AEGIS_BLAS2_MAKE
#include "blas2/instances/blas2_instances.cuh"
