// Level-2 launchers: raw pointers, a stream and a plan in; cudaError_t out. One primary
// kernel template per routine family (gemv_kernel.cuh, symv_kernel.cuh); the instances
// built are listed in instances/blas2_configs.def and registered here by name.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "aegis/aegis.h"

namespace aegis::blas2 {

enum class Precision { S = 0, D = 1, C = 2, Z = 3 };
// Routine families. GemvN: y = A x; GemvT: y = A^T x (GemvC: A^H x shares the T kernels);
// Symv and Hemv read the lower or upper triangle.
enum class Family { GemvN = 0, GemvT = 1, Symv = 2, Hemv = 3 };

constexpr size_t precision_bytes(Precision p) {
  return p == Precision::S ? 4 : (p == Precision::Z ? 16 : 8);
}

// Everything one call needs after argument checks. Pointers are typed by the precision.
struct Blas2Call {
  Family family = Family::GemvN;
  bool conj = false;   // GemvT: A^H x
  bool upper = false;  // Symv/Hemv: the upper triangle is stored
  int64_t m = 0, n = 0;  // Symv/Hemv: m == n
  // A points at element (0, 0) of the operated matrix. row_shift in [0, vector width):
  // the kernels may treat A - row_shift as 16-byte aligned with lda a multiple of the width
  // (the offset variants); rows before A are never used.
  const void* A = nullptr;
  int64_t lda = 0;
  int row_shift = 0;
  bool vector_loads = false;  // A - row_shift and lda allow 16-byte loads
  // x and y point at element 0 (for a negative inc the element of highest address, as
  // reference BLAS); element i is at x[i * incx].
  const void* x = nullptr;
  int64_t incx = 1;
  void* y = nullptr;
  int64_t incy = 1;
  // alpha/beta: host values (copied, 2 doubles for complex) or device pointers.
  double alpha[2] = {0, 0}, beta[2] = {0, 0};
  const void* alpha_device = nullptr;
  const void* beta_device = nullptr;
};

// Deterministic GEMV splits up to this many blocks per panel can meet in a thread-block
// cluster (cluster_sum.cuh; 8 is the portable cluster size, 16 needs the non-portable
// attribute).
constexpr int kClusterSplitMax = AEGIS_BLAS2_CLUSTER_SPLIT_MAX;

// How the launch combines split sums, and where.
struct Blas2Plan {
  int y_split = 1;         // thread blocks per block row/column (Symv: tiles per block)
  bool atomics = false;    // atomics mode: pre-scale y, then atomic adds
  // Deterministic GEMV with 2 <= y_split <= kClusterSplitMax on sm_90+: the split blocks
  // meet in a cluster (no workspace, no counters).
  bool cluster_sum = false;
  void* workspace = nullptr;  // deterministic mode: partial sums
  size_t workspace_bytes = 0;
  unsigned* counters = nullptr;  // deterministic mode: per-panel arrival counters (zero)
  int counter_count = 0;
  size_t l2_bytes = 0;  // the device's L2 size (partial sums that would not stay in it)
  // GEMV N atomics mode: the handle's count of y slices scaled (device) and its host-side
  // running target; null where y is scaled by a pre-pass kernel instead (GEMV T, SYMV/HEMV,
  // and any call captured into a graph, whose replays could not advance the target).
  unsigned* y_scaled = nullptr;
  unsigned* y_scaled_issued = nullptr;
  // Deterministic SYMV: nonzero where the workspace is the handle's buffer of tagged parts
  // (Blas2Instance::tagged_workspace_bytes) and this is the call's tag.
  unsigned part_tag = 0;
  cudaStream_t stream = nullptr;
};

struct Blas2Instance {
  const char* name;  // "sgemv_n_nb256_q4"
  Precision precision;
  Family family;
  int nb;  // rows per thread block (GemvN), columns per block (GemvT), tile size (Symv/Hemv)
  int q;   // thread columns (GemvN/Symv) or warps (GemvT) per block
  // Bytes of workspace the deterministic reduction needs for this call and y_split.
  size_t (*workspace_bytes)(const Blas2Call& call, int y_split);
  // Bytes of tagged partial sums where the deterministic reduction may run alongside the
  // main kernel (GEMV split sums; float SYMV, symv_kernel.cuh), else 0; l2_bytes: the
  // device's L2.
  size_t (*tagged_workspace_bytes)(const Blas2Call& call, int y_split, size_t l2_bytes);
  // Number of thread-block panels whose partial sums meet (counters needed).
  int64_t (*panel_count)(const Blas2Call& call);
  // Work units along the split dimension (the useful maximum of y_split).
  int64_t (*split_units)(const Blas2Call& call);
  cudaError_t (*launch)(const Blas2Call& call, const Blas2Plan& plan);
};

// The rows of one precision (instances/blas2_<p>.cu).
const Blas2Instance* blas2_instances_s(int* count);
const Blas2Instance* blas2_instances_d(int* count);
const Blas2Instance* blas2_instances_c(int* count);
const Blas2Instance* blas2_instances_z(int* count);
cudaError_t blas2_scale_s(int64_t count, void* y, int64_t inc, const Blas2Call& call, cudaStream_t stream);
cudaError_t blas2_scale_d(int64_t count, void* y, int64_t inc, const Blas2Call& call, cudaStream_t stream);
cudaError_t blas2_scale_c(int64_t count, void* y, int64_t inc, const Blas2Call& call, cudaStream_t stream);
cudaError_t blas2_scale_z(int64_t count, void* y, int64_t inc, const Blas2Call& call, cudaStream_t stream);

// y[i * inc] = beta y[i * inc] for i < count (0 where beta = 0), beta from the call.
cudaError_t blas2_scale(Precision precision, int64_t count, void* y, int64_t inc,
                        const Blas2Call& call, cudaStream_t stream);

// Every instance of this build (stable order: the table's).
const Blas2Instance* const* blas2_instances(int* count);
const Blas2Instance* find_blas2_instance(const char* name);

}  // namespace aegis::blas2
