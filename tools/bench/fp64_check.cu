#include "device_kernels.h"

namespace aegis::bench {
namespace {

constexpr int kThreads = 256;
// Columns one thread sums in the untransposed product. Splitting long rows across blocks
// keeps enough threads in flight when rows are few (a 16384 x 16384 C has only 16384).
constexpr int64_t kColumnsPerSlice = 256;

// Every element type converts to double exactly.
__device__ double to_double(float v) { return v; }
__device__ double to_double(__half v) { return __half2float(v); }
__device__ double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }

// One thread per row i over one slice of columns; neighbouring threads read neighbouring
// rows of a column, so loads are coalesced. Slices add into y, which starts at zero.
template <typename T>
__global__ void gemv_n_kernel(int64_t rows, int64_t cols, int64_t slice_width, const T* M,
                              int64_t ld, const double* x, const double* x_magnitude, double* y,
                              double* y_magnitude) {
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  int64_t first = int64_t(blockIdx.y) * slice_width;
  int64_t last = min(cols, first + slice_width);
  double sum = 0, magnitude = 0;
  for (int64_t j = first; j < last; ++j) {
    double m = to_double(M[i + j * ld]);
    sum += m * x[j];
    if (y_magnitude) magnitude += fabs(m) * (x_magnitude ? x_magnitude[j] : fabs(x[j]));
  }
  atomicAdd(&y[i], sum);
  if (y_magnitude) atomicAdd(&y_magnitude[i], magnitude);
}

// One warp per output element: element i is column i of M, read contiguously by the lanes.
template <typename T>
__global__ void gemv_t_kernel(int64_t rows, int64_t cols, const T* M, int64_t ld,
                              const double* x, const double* x_magnitude, double* y,
                              double* y_magnitude) {
  int lane = threadIdx.x % 32;
  int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  for (int64_t i = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; i < rows; i += warps) {
    const T* column = M + i * ld;
    double sum = 0, magnitude = 0;
    for (int64_t j = lane; j < cols; j += 32) {
      double m = to_double(column[j]);
      sum += m * x[j];
      if (y_magnitude) magnitude += fabs(m) * (x_magnitude ? x_magnitude[j] : fabs(x[j]));
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
      magnitude += __shfl_down_sync(0xffffffffu, magnitude, offset);
    }
    if (lane == 0) {
      y[i] = sum;
      if (y_magnitude) y_magnitude[i] = magnitude;
    }
  }
}

__global__ void normalized_difference_kernel(int64_t count, const double* y,
                                             const double* y_magnitude, const double* reference,
                                             double alpha, const double* magnitude, double unit,
                                             double rounding, double underflow, double* error) {
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    double y_scale = y_magnitude ? y_magnitude[i] : fabs(y[i]);
    error[i] = fabs(y[i] - alpha * reference[i]) /
               (unit * magnitude[i] + rounding * y_scale + underflow + 0.5e-30);
  }
}

template <typename T>
__global__ void gather_kernel(int64_t count, const T* base, int64_t stride, double* out) {
  int64_t grid_stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += grid_stride)
    out[i] = to_double(base[i * stride]);
}

int64_t capped_blocks(int64_t threads_needed) {
  int64_t blocks = (threads_needed + kThreads - 1) / kThreads;
  return blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536;  // grid-stride loops do the rest
}

template <typename T>
cudaError_t launch_gemv(bool transposed, int64_t rows, int64_t cols, const T* M, int64_t ld,
                        const double* x, const double* x_magnitude, double* y,
                        double* y_magnitude, cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  if (transposed) {
    gemv_t_kernel<<<unsigned(capped_blocks(rows * 32)), kThreads, 0, stream>>>(
        rows, cols, M, ld, x, x_magnitude, y, y_magnitude);
    return cudaGetLastError();
  }
  cudaError_t err = cudaMemsetAsync(y, 0, size_t(rows) * sizeof(double), stream);
  if (err == cudaSuccess && y_magnitude)
    err = cudaMemsetAsync(y_magnitude, 0, size_t(rows) * sizeof(double), stream);
  if (err != cudaSuccess || cols <= 0) return err;
  // gridDim.y is at most 65535: widen the slices where the columns would need more.
  int64_t slice_width = kColumnsPerSlice;
  if ((cols + slice_width - 1) / slice_width > 65535) slice_width = (cols + 65534) / 65535;
  dim3 grid(unsigned((rows + kThreads - 1) / kThreads),
            unsigned((cols + slice_width - 1) / slice_width));
  gemv_n_kernel<<<grid, kThreads, 0, stream>>>(rows, cols, slice_width, M, ld, x, x_magnitude, y,
                                               y_magnitude);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_gather(int64_t count, const T* base, int64_t stride, double* out,
                          cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  gather_kernel<<<unsigned(capped_blocks(count)), kThreads, 0, stream>>>(count, base, stride, out);
  return cudaGetLastError();
}

}  // namespace

cudaError_t gemv_fp64(bool transposed, int64_t rows, int64_t cols, const float* M, int64_t ld,
                      const double* x, const double* x_magnitude, double* y, double* y_magnitude,
                      cudaStream_t stream) {
  return launch_gemv(transposed, rows, cols, M, ld, x, x_magnitude, y, y_magnitude, stream);
}

cudaError_t gemv_fp64(bool transposed, int64_t rows, int64_t cols, const __half* M, int64_t ld,
                      const double* x, const double* x_magnitude, double* y, double* y_magnitude,
                      cudaStream_t stream) {
  return launch_gemv(transposed, rows, cols, M, ld, x, x_magnitude, y, y_magnitude, stream);
}

cudaError_t gemv_fp64(bool transposed, int64_t rows, int64_t cols, const __nv_bfloat16* M,
                      int64_t ld, const double* x, const double* x_magnitude, double* y,
                      double* y_magnitude, cudaStream_t stream) {
  return launch_gemv(transposed, rows, cols, M, ld, x, x_magnitude, y, y_magnitude, stream);
}

cudaError_t gather_fp64(int64_t count, const float* base, int64_t stride, double* out,
                        cudaStream_t stream) {
  return launch_gather(count, base, stride, out, stream);
}

cudaError_t gather_fp64(int64_t count, const __half* base, int64_t stride, double* out,
                        cudaStream_t stream) {
  return launch_gather(count, base, stride, out, stream);
}

cudaError_t gather_fp64(int64_t count, const __nv_bfloat16* base, int64_t stride, double* out,
                        cudaStream_t stream) {
  return launch_gather(count, base, stride, out, stream);
}

cudaError_t normalized_difference(int64_t count, const double* y, const double* y_magnitude,
                                  const double* reference, double alpha, const double* magnitude,
                                  double unit, double rounding, double underflow, double* error,
                                  cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  normalized_difference_kernel<<<unsigned(capped_blocks(count)), kThreads, 0, stream>>>(
      count, y, y_magnitude, reference, alpha, magnitude, unit, rounding, underflow, error);
  return cudaGetLastError();
}

}  // namespace aegis::bench
