// FP64 spot check of a level-2 result for aegis-bench: `samples` output elements spread
// over y, each recomputed in FP64 on the GPU and compared with c gamma_{k+4} (|op(A)||x|)_i
// (alpha = 1, beta = 0; c = 2 for complex).
#ifndef AEGIS_BENCH_BLAS2_CHECK_H
#define AEGIS_BENCH_BLAS2_CHECK_H

#include <cuda_runtime_api.h>

#include <cstdint>

namespace aegis::bench {

// kind: 0 gemv N, 1 gemv T, 2 gemv C, 3 symv, 4 hemv. precision: 0 s, 1 d, 2 c, 3 z.
// Returns the largest normalized error (NaN if a sampled element is not finite).
double blas2_spot_check(int precision, int kind, bool upper, int64_t m, int64_t n,
                        const void* A, int64_t lda, const void* x, const void* y, int samples,
                        cudaStream_t stream);

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_BLAS2_CHECK_H
