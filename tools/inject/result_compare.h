// How far an SGEMM result is from the clean one, measured on the GPU so that an injection
// costs one small kernel and a 24-byte copy, not a copy of C.
//
// Three units, each per element of C (column-major, ldc = m):
//  * element units: |dC_ij| / (gamma_k (|op(A)| |op(B)|)_ij), gamma_k = k u / (1 - k u),
//    u = 2^-24: the rounding error one element may carry. <= 2 is harmless.
//  * line units: |dC_ij| against the checksum bound of the lines through (i, j) in its tile,
//    gamma_{2k + 4 T + 8} max(sum over the tile column, sum over the tile row) of |A||B|
//    (T the larger tile side; the bound of src/abft/ft_check.h). A check cannot see less;
//    a repair cannot do better. Above 2 is a fault that had to be caught, or a bad repair.
//  * relative: |dC_ij| / max_i |C_clean(i, j)|, the error against the size of its column.
#ifndef AEGIS_INJECT_RESULT_COMPARE_H
#define AEGIS_INJECT_RESULT_COMPARE_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "aegis/aegis.h"
#include "device.h"

namespace aegis::inject {

// Shared with the device: maxima as float bits (non-negative floats order like their bits).
struct Difference {
  unsigned long long differing = 0;  // elements whose bits differ from the clean result
  float max_element_units = 0;       // NaN or Inf where clean was finite count as infinite
  float max_line_units = 0;
  float max_relative = 0;
};

struct ProductLayout {
  aegisOperation_t transa, transb;
  int64_t m, n, k;
  const float* a;  // lda = m (N) or k (T)
  const float* b;  // ldb = k (N) or n (T)
};

class ResultComparer {
 public:
  static size_t device_bytes(int64_t m, int64_t n, int64_t k);

  ResultComparer(bench::DeviceArena& arena, int64_t m, int64_t n, int64_t k);

  // Takes `clean` as the reference and derives the bounds of every element from the
  // operands (|A||B| through cuBLAS on `cublas`, which must run on `stream`) and the
  // tiles of the FT kernel. Waits for the GPU.
  void prepare(const ProductLayout& product, const float* clean, int tile_m, int tile_n,
               cublasHandle_t cublas, cudaStream_t stream);

  // Compares c (ldc = m) with the clean result; waits for the answer.
  Difference compare(const float* c, cudaStream_t stream) const;

 private:
  int64_t m_, n_, k_;
  const float* clean_ = nullptr;
  float* element_bound_;  // m x n
  float* line_bound_;     // m x n
  float* column_scale_;   // n: max_i |clean(i, j)|
  float* abs_a_;          // |A| and |B| as stored: scratch of prepare()
  float* abs_b_;
  Difference* result_;
};

}  // namespace aegis::inject

#endif  // AEGIS_INJECT_RESULT_COMPARE_H
