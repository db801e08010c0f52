// Checks GEMM results in FP64 on the GPU, cheaply enough to run before every timing:
//  * all of C through a random projection (Freivalds): C x against op(A) (op(B) x), x
//    uniform in [-1, 1]^n;
//  * a few whole rows and columns of C element by element (the first, the last and random
//    ones), against FP64 dot products.
// Each difference is compared with its rigorous rounding bound, and a result passes when
// no difference exceeds twice its bound:
//  * f32 operands (SGEMM): gamma_k |op(A)| |op(B)| (times |x| for the projection),
//    gamma_k = k u / (1 - k u), u = 2^-24;
//  * f16 and bf16 operands (FP32 accumulation, then one rounding to C's type): the products
//    of 16-bit numbers are exact in FP32 and the FP32 sums stay within gamma_k |op(A)| |op(B)|
//    (u = 2^-24 as above); rounding the sum s to C's type adds at most u_c |s| plus, among
//    the subnormals, eta_c, where |s| <= |c| / (1 - u_c) for the stored c. So the bound is
//    gamma_k |op(A)| |op(B)| + u_c / (1 - u_c) |c| + eta_c (times |x| for the projection),
//    u_c = 2^-11 (f16), 2^-8 (bf16), 2^-24 (f32), eta_c half the subnormal spacing of C's type.
// The projection alone cannot see one wrong element: its bound adds up n elements' worst
// cases, far more than one element's size. The sampled rows and columns see single wrong
// elements where they look; the projection sees everything that is grossly wrong (NaN,
// unwritten, whole tiles off). A wrong element cannot hide behind its own |c| term: that
// grows by u_c times the error only.
#ifndef AEGIS_BENCH_GEMM_CHECK_H
#define AEGIS_BENCH_GEMM_CHECK_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "aegis/aegis.h"
#include "device.h"

namespace aegis::bench {

// op(A) is m x k, op(B) is k x n; column-major, A stored m x k (N) or k x m (T), B likewise.
struct GemmOperands {
  aegisOperation_t transa, transb;
  int64_t m, n, k;
  const void* a;
  int64_t lda;
  const void* b;
  int64_t ldb;
  aegisDataType_t type = AEGIS_R_32F;  // of A and B: f32 (SGEMM), f16 or bf16
};

struct CheckResult {
  bool passed = false;
  double max_error = 0;  // largest difference in units of its bound; NaN counts as infinite
};

class GemmCheck {
 public:
  static constexpr double kErrorLimit = 2.0;  // in units of the rounding bound

  // Device memory the check takes from an arena.
  static size_t device_bytes(int64_t m, int64_t n, int64_t k);

  // Queues the FP64 references on `stream`; the operands must stay unchanged while the
  // check is in use.
  GemmCheck(DeviceArena& arena, const GemmOperands& operands, uint64_t seed, uint64_t stream_id,
            cudaStream_t stream);

  // Compares C = alpha op(A) op(B) (m x n, leading dimension ldc, elements of c_type: f32
  // for f32 operands) with the references and waits for the result.
  CheckResult check(const void* c, aegisDataType_t c_type, int64_t ldc, double alpha,
                    cudaStream_t stream) const;

 private:
  GemmOperands operands_;
  std::vector<int64_t> rows_, columns_;  // sampled lines of C
  double* x_;                            // n
  double* projection_;                   // m: op(A) op(B) x
  double* projection_bound_;             // m: |op(A)| |op(B)| |x|
  double* row_reference_;                // rows_.size() x n, one sampled row after another
  double* row_bound_;
  double* column_reference_;  // columns_.size() x m
  double* column_bound_;
  double* scratch_;  // max(m, n, k): one line of C or of an operand
  double* c_magnitude_;  // m: |C| |x|, the projection's share of the final rounding
  double* errors_;   // m + rows_.size() * n + columns_.size() * m
  int64_t error_count_;
};

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_GEMM_CHECK_H
