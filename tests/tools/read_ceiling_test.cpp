// Device tests of the benchmarks' read ceiling (tools/bench/read_ceiling.h): the streaming
// read must read every word of its buffer, refuse sizes that are not whole chunks, and time
// a buffer it can allocate.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <random>
#include <vector>

#include "read_ceiling.h"
#include "skip_without_gpu.h"

namespace {

using aegis::bench::kReadChunkBytes;

TEST(ReadStream, XorsEveryWordOfEachChunk) {
  SKIP_WITHOUT_GPU("the streaming read");
  constexpr int kChunks = 3;
  const size_t words = size_t(kChunks) * kReadChunkBytes / 4;
  std::vector<uint32_t> host(words);
  std::mt19937 gen(std::random_device{}());
  for (uint32_t& w : host) w = gen();
  void* data = nullptr;
  uint32_t* block_xor = nullptr;
  ASSERT_EQ(cudaMalloc(&data, words * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&block_xor), kChunks * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(data, host.data(), words * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(block_xor, 0, kChunks * 4), cudaSuccess);
  ASSERT_EQ(aegis::bench::read_stream(data, kChunks * kReadChunkBytes, block_xor, nullptr),
            cudaSuccess);
  uint32_t got[kChunks] = {};
  ASSERT_EQ(cudaMemcpy(got, block_xor, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
  const size_t chunk_words = size_t(kReadChunkBytes / 4);
  for (int c = 0; c < kChunks; ++c) {
    uint32_t want = 0;
    for (size_t i = 0; i < chunk_words; ++i) want ^= host[c * chunk_words + i];
    EXPECT_EQ(got[c], want) << "chunk " << c;
  }
  cudaFree(block_xor);
  cudaFree(data);
}

TEST(ReadStream, RefusesSizesThatAreNotWholeChunks) {
  SKIP_WITHOUT_GPU("the streaming read");
  void* data = nullptr;
  uint32_t* block_xor = nullptr;
  ASSERT_EQ(cudaMalloc(&data, 2 * kReadChunkBytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&block_xor), 8), cudaSuccess);
  EXPECT_EQ(aegis::bench::read_stream(data, 0, block_xor, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(aegis::bench::read_stream(data, kReadChunkBytes + 16, block_xor, nullptr),
            cudaErrorInvalidValue);
  EXPECT_EQ(aegis::bench::read_stream(data, -kReadChunkBytes, block_xor, nullptr),
            cudaErrorInvalidValue);
  cudaFree(block_xor);
  cudaFree(data);
}

TEST(ReadCeiling, TimesTheWholeChunksOfItsBuffer) {
  SKIP_WITHOUT_GPU("the streaming read");
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  aegis::bench::TimingPlan plan;
  plan.queued = true;
  plan.warmup_runs = 1;
  plan.timed_runs = 3;
  // Eight chunks and a half: the half is not read.
  const aegis::bench::ReadCeiling c =
      aegis::bench::measure_read_ceiling(stream, plan, 8 * kReadChunkBytes + kReadChunkBytes / 2);
  EXPECT_EQ(c.bytes, 8 * kReadChunkBytes);
  EXPECT_GT(c.gbs, 0.0);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  cudaStreamDestroy(stream);
}

}  // namespace
