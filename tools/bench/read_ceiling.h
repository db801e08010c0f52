// The read bandwidth the GPU reaches in this process: a plain streaming read of a large
// buffer, timed like the routines it is the ceiling of.
//
// The level-2 bars are percentages of "the measured read bandwidth". A figure measured once
// on another machine (4545 GB/s, ../shared/BASELINE-H200.md) moves every percentage with the
// machine at hand: H200s lent on different days have read about 2 % apart (cuBLAS's dgemv N
// 16384 at 96.1-98.2 % of 4545 GB/s: docs/blas2.md v15, v18, v22), as much as some bars'
// margins. Measured in the same process as the routines, at its start and at its end, the
// ceiling moves with them.
#ifndef AEGIS_BENCH_READ_CEILING_H
#define AEGIS_BENCH_READ_CEILING_H

#include <cuda_runtime_api.h>

#include <cstdint>

#include "event_timer.h"

namespace aegis::bench {

// The streaming read: each block reads one chunk of kReadChunkBytes, every thread in rounds
// of kReadLoadsPerRound independent 16-byte loads, and writes the XOR of the chunk's 32-bit
// words to block_xor[block] (so nothing is optimized away, and a test can check that every
// word was read).
constexpr int kReadThreads = 256;
constexpr int kReadLoadsPerRound = 8;
constexpr int kReadRounds = 4;
constexpr int64_t kReadChunkBytes =
    int64_t(kReadThreads) * kReadLoadsPerRound * kReadRounds * 16;  // 128 KB

// Reads `bytes` (a positive multiple of kReadChunkBytes) at `data` (16-byte aligned);
// block_xor has bytes / kReadChunkBytes words.
cudaError_t read_stream(const void* data, int64_t bytes, uint32_t* block_xor, cudaStream_t stream);

struct ReadCeiling {
  double gbs = 0;     // bytes over the median time of the timed runs; 0 if not measured
  int64_t bytes = 0;  // bytes read per run
};

// Times read_stream over a buffer of `bytes` (4 GiB by default, as the baseline's figure;
// halved down to 1 GiB where that much cannot be allocated; rounded down to whole chunks)
// with `plan`, after 50 ms of untimed reads. The buffer is far larger than L2, so each run
// reads DRAM. Returns gbs = 0 where no buffer could be had.
ReadCeiling measure_read_ceiling(cudaStream_t stream, const TimingPlan& plan,
                                 int64_t bytes = int64_t(4) << 30);

// What the ceiling is, for reports.
constexpr const char* kReadCeilingMethod =
    "read-only streaming kernel (16-byte loads, 256 threads and 128 KB per block), "
    "median of the timed runs";

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_READ_CEILING_H
