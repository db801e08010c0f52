// GPU helpers of the benchmarks: random operands and FP64 checks of results. Launchers
// take raw pointers and a stream and return the launch's cudaError_t.
#ifndef AEGIS_BENCH_DEVICE_KERNELS_H
#define AEGIS_BENCH_DEVICE_KERNELS_H

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

// y = op(M) x in FP64 for a float matrix. op(M) is rows x cols; M is column-major with
// leading dimension ld, stored rows x cols, or cols x rows when `transposed`.
// If y_magnitude is not null it also gets |op(M)| x_magnitude (|x| when x_magnitude is
// null): the scale of the rounding error a float product with op(M) may carry.
cudaError_t gemv_fp64(bool transposed, int64_t rows, int64_t cols, const float* M, int64_t ld,
                      const double* x, const double* x_magnitude, double* y, double* y_magnitude,
                      cudaStream_t stream);

// out[i] = base[i * stride] as double: a row or column of a column-major float matrix.
cudaError_t gather_fp64(int64_t count, const float* base, int64_t stride, double* out,
                        cudaStream_t stream);

// error[i] = |y[i] - alpha * reference[i]| / (unit * magnitude[i] + 0.5e-30): the difference
// in units of the allowed error `unit * magnitude`; the tiny term keeps exact zeros finite.
cudaError_t normalized_difference(int64_t count, const double* y, const double* reference,
                                  double alpha, const double* magnitude, double unit, double* error,
                                  cudaStream_t stream);

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_DEVICE_KERNELS_H
