// GPU helpers of the benchmarks: random operands and FP64 checks of results. Launchers
// take raw pointers and a stream and return the launch's cudaError_t.
#ifndef AEGIS_BENCH_DEVICE_KERNELS_H
#define AEGIS_BENCH_DEVICE_KERNELS_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace aegis::bench {

// Uniform values in [-1, 1) from a counter-based hash of (seed, stream_id, index). There is
// no generator state, so every (seed, buffer) pair gets its own numbers and the values do
// not depend on the launch shape.
cudaError_t fill_uniform(float* data, int64_t count, uint64_t seed, uint64_t stream_id,
                         cudaStream_t stream);
cudaError_t fill_uniform(double* data, int64_t count, uint64_t seed, uint64_t stream_id,
                         cudaStream_t stream);
// 16-bit operands: the float value rounded to the type, so every element is an exact
// 16-bit number in [-1, 1] and the FP64 checks see exactly what the GEMM reads.
cudaError_t fill_uniform(__half* data, int64_t count, uint64_t seed, uint64_t stream_id,
                         cudaStream_t stream);
cudaError_t fill_uniform(__nv_bfloat16* data, int64_t count, uint64_t seed, uint64_t stream_id,
                         cudaStream_t stream);

// y = op(M) x in FP64 for a float, FP16 or BF16 matrix. op(M) is rows x cols; M is
// column-major with leading dimension ld, stored rows x cols, or cols x rows when
// `transposed`. If y_magnitude is not null it also gets |op(M)| x_magnitude (|x| when
// x_magnitude is null): the scale of the rounding error a float product with op(M) may carry.
cudaError_t gemv_fp64(bool transposed, int64_t rows, int64_t cols, const float* M, int64_t ld,
                      const double* x, const double* x_magnitude, double* y, double* y_magnitude,
                      cudaStream_t stream);
cudaError_t gemv_fp64(bool transposed, int64_t rows, int64_t cols, const __half* M, int64_t ld,
                      const double* x, const double* x_magnitude, double* y, double* y_magnitude,
                      cudaStream_t stream);
cudaError_t gemv_fp64(bool transposed, int64_t rows, int64_t cols, const __nv_bfloat16* M,
                      int64_t ld, const double* x, const double* x_magnitude, double* y,
                      double* y_magnitude, cudaStream_t stream);

// out[i] = base[i * stride] as double: a row or column of a column-major matrix.
cudaError_t gather_fp64(int64_t count, const float* base, int64_t stride, double* out,
                        cudaStream_t stream);
cudaError_t gather_fp64(int64_t count, const __half* base, int64_t stride, double* out,
                        cudaStream_t stream);
cudaError_t gather_fp64(int64_t count, const __nv_bfloat16* base, int64_t stride, double* out,
                        cudaStream_t stream);

// The difference in units of the allowed error, for results that were rounded once more
// after the accumulation (to a narrower C type):
//   error[i] = |y[i] - alpha * reference[i]| /
//              (unit * magnitude[i] + rounding * |y|[i] + underflow + 0.5e-30)
// where |y|[i] is y_magnitude[i], or |y[i]| when y_magnitude is null. unit * magnitude is the
// accumulation's bound, rounding * |y| + underflow the final rounding's (its relative and its
// absolute part); rounding = underflow = 0 leave the accumulation's bound alone. The tiny
// term keeps exact zeros finite.
cudaError_t normalized_difference(int64_t count, const double* y, const double* y_magnitude,
                                  const double* reference, double alpha, const double* magnitude,
                                  double unit, double rounding, double underflow, double* error,
                                  cudaStream_t stream);

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_DEVICE_KERNELS_H
