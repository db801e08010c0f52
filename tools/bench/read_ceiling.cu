#include "read_ceiling.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "device_kernels.h"

namespace aegis::bench {
namespace {

constexpr int64_t kChunkVectors = kReadChunkBytes / 16;

__global__ void __launch_bounds__(kReadThreads)
    read_stream_kernel(const uint4* data, uint32_t* block_xor) {
  const uint4* chunk = data + int64_t(blockIdx.x) * kChunkVectors;
  uint32_t x = 0;
#pragma unroll 1
  for (int r = 0; r < kReadRounds; ++r) {
    uint4 v[kReadLoadsPerRound];
    // Independent loads (ptxas keeps five or more of them in flight per thread: with 2048
    // threads per SM, far more bytes than the memory's latency asks for); evict-first, as
    // the data is read once.
#pragma unroll
    for (int u = 0; u < kReadLoadsPerRound; ++u)
      v[u] = __ldcs(chunk + (r * kReadLoadsPerRound + u) * kReadThreads + threadIdx.x);
#pragma unroll
    for (int u = 0; u < kReadLoadsPerRound; ++u) x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) x ^= __shfl_xor_sync(0xffffffffu, x, offset);
  __shared__ uint32_t warp_xor[kReadThreads / 32];
  if (threadIdx.x % 32 == 0) warp_xor[threadIdx.x / 32] = x;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t all = 0;
    for (int w = 0; w < kReadThreads / 32; ++w) all ^= warp_xor[w];
    block_xor[blockIdx.x] = all;
  }
}

}  // namespace

cudaError_t read_stream(const void* data, int64_t bytes, uint32_t* block_xor, cudaStream_t stream) {
  if (bytes <= 0 || bytes % kReadChunkBytes != 0 || bytes / kReadChunkBytes > 0x7fffffff)
    return cudaErrorInvalidValue;
  read_stream_kernel<<<unsigned(bytes / kReadChunkBytes), kReadThreads, 0, stream>>>(
      static_cast<const uint4*>(data), block_xor);
  return cudaGetLastError();
}

ReadCeiling measure_read_ceiling(cudaStream_t stream, const TimingPlan& plan, int64_t bytes) {
  ReadCeiling c;
  constexpr int64_t kSmallest = int64_t(1) << 30;
  void* data = nullptr;
  for (int64_t want = bytes; want >= std::min(bytes, kSmallest); want /= 2) {
    const int64_t whole = want / kReadChunkBytes * kReadChunkBytes;
    if (whole > 0 && cudaMalloc(&data, size_t(whole)) == cudaSuccess) {
      c.bytes = whole;
      break;
    }
    cudaGetLastError();
    data = nullptr;
  }
  uint32_t* block_xor = nullptr;
  if (!data || cudaMalloc(&block_xor, size_t(c.bytes / kReadChunkBytes) * 4) != cudaSuccess) {
    cudaGetLastError();
    cudaFree(data);
    return ReadCeiling{};
  }
  // Random words, as the routines' operands are (the read's speed should not depend on them,
  // but a constant buffer is a pattern no operand has).
  bool ok = fill_uniform(static_cast<float*>(data), c.bytes / 4, 1, 0, stream) == cudaSuccess;
  if (ok) {
    auto read = [&](int64_t) {
      if (read_stream(data, c.bytes, block_xor, stream) != cudaSuccess) ok = false;
    };
    // Untimed reads first, as before the routines' timing (event_timer.h: streaming over new
    // buffers ran ~10 % slow for the first milliseconds).
    condition_on_stream(stream, 50, 1000, read);
    const TimingStats t = time_on_stream(stream, plan, read);
    ok = ok && cudaStreamSynchronize(stream) == cudaSuccess && t.median_ms > 0;
    if (ok) c.gbs = double(c.bytes) / (t.median_ms * 1e6);
  }
  cudaFree(block_xor);
  cudaFree(data);
  if (!ok) {
    cudaGetLastError();
    return ReadCeiling{};
  }
  return c;
}

}  // namespace aegis::bench
