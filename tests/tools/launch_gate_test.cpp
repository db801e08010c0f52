// Device tests of the benchmark harness's launch gate (tools/bench/launch_gate.h) and of
// queued timing: a gated stream must not run until the host opens the gate, a gate left shut
// must give up on its timeout, and queued timing must time every run it was asked for.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <chrono>
#include <thread>

#include "event_timer.h"
#include "launch_gate.h"
#include "skip_without_gpu.h"

namespace {

using aegis::bench::LaunchGate;

TEST(LaunchGate, HoldsTheStreamUntilOpened) {
  SKIP_WITHOUT_GPU("the launch gate");
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t behind = nullptr;
  ASSERT_EQ(cudaEventCreate(&behind), cudaSuccess);
  LaunchGate gate;
  gate.hold(stream);
  ASSERT_EQ(cudaEventRecord(behind, stream), cudaSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(cudaEventQuery(behind), cudaErrorNotReady) << "work behind a shut gate ran";
  gate.open();
  ASSERT_EQ(cudaEventSynchronize(behind), cudaSuccess);
  EXPECT_FALSE(gate.gave_up());
  cudaEventDestroy(behind);
  cudaStreamDestroy(stream);
}

TEST(LaunchGate, GivesUpOnItsTimeout) {
  SKIP_WITHOUT_GPU("the launch gate");
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  LaunchGate gate;
  gate.hold(stream, 20.0);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  const std::chrono::duration<double, std::milli> waited = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(gate.gave_up());
  EXPECT_GE(waited.count(), 15.0);
  // The next generation starts shut again and opens normally.
  gate.hold(stream);
  gate.open();
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_FALSE(gate.gave_up());
  cudaStreamDestroy(stream);
}

TEST(QueuedTiming, TimesEveryRunBehindTheGate) {
  SKIP_WITHOUT_GPU("the launch gate");
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  void* buffer = nullptr;
  ASSERT_EQ(cudaMalloc(&buffer, 1 << 20), cudaSuccess);
  aegis::bench::TimingPlan plan;
  plan.queued = true;
  plan.timed_runs = 7;
  plan.max_runs = 14;
  plan.min_time_ms = 1e9;  // two batches, each behind its own gate
  aegis::bench::RunsInfo info;
  int calls = 0;
  const std::vector<double> times = aegis::bench::time_runs_on_stream(
      stream, plan,
      [&](int64_t) {
        ++calls;
        cudaMemsetAsync(buffer, calls & 0xFF, 1 << 20, stream);
      },
      0, &info);
  ASSERT_EQ(times.size(), 14u);
  EXPECT_EQ(calls, plan.warmup_runs + 14);
  for (double ms : times) EXPECT_GT(ms, 0.0);
  ASSERT_EQ(info.host_us.size(), 2u);
  for (double us : info.host_us) EXPECT_GT(us, 0.0);
  EXPECT_EQ(info.gates_given_up, 0);
  cudaFree(buffer);
  cudaStreamDestroy(stream);
}

}  // namespace
