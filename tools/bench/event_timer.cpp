#include "event_timer.h"

#include <algorithm>
#include <vector>

#include "cuda_check.h"

namespace aegis::bench {

TimingStats time_on_stream(cudaStream_t stream, const TimingPlan& plan,
                           const std::function<void(int64_t)>& enqueue) {
  return summarize_times(time_runs_on_stream(stream, plan, enqueue));
}

std::vector<double> time_runs_on_stream(cudaStream_t stream, const TimingPlan& plan,
                                        const std::function<void(int64_t)>& enqueue,
                                        int64_t first_call_index) {
  int64_t call_index = first_call_index;
  for (int i = 0; i < plan.warmup_runs; ++i) enqueue(call_index++);

  std::vector<double> times_ms;
  double measured_ms = 0;
  do {
    int batch = std::min<int>(plan.timed_runs, plan.max_runs - int(times_ms.size()));
    // Every run has its own events and nothing synchronizes inside the batch, so the host
    // stays ahead of the GPU and the events bracket GPU time, not host launch gaps (except
    // for calls shorter than a launch, which no host-side timer could resolve either).
    std::vector<cudaEvent_t> starts(batch), stops(batch);
    for (int i = 0; i < batch; ++i) {
      AEGIS_BENCH_CHECK_CUDA(cudaEventCreate(&starts[i]));
      AEGIS_BENCH_CHECK_CUDA(cudaEventCreate(&stops[i]));
    }
    for (int i = 0; i < batch; ++i) {
      AEGIS_BENCH_CHECK_CUDA(cudaEventRecord(starts[i], stream));
      enqueue(call_index++);
      AEGIS_BENCH_CHECK_CUDA(cudaEventRecord(stops[i], stream));
    }
    AEGIS_BENCH_CHECK_CUDA(cudaEventSynchronize(stops[batch - 1]));
    for (int i = 0; i < batch; ++i) {
      float ms = 0;
      AEGIS_BENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, starts[i], stops[i]));
      times_ms.push_back(ms);
      measured_ms += ms;
      AEGIS_BENCH_CHECK_CUDA(cudaEventDestroy(starts[i]));
      AEGIS_BENCH_CHECK_CUDA(cudaEventDestroy(stops[i]));
    }
  } while (measured_ms < plan.min_time_ms && int(times_ms.size()) < plan.max_runs);
  return times_ms;
}

TimingStats summarize_times(std::vector<double> times_ms) {
  TimingStats stats;
  if (times_ms.empty()) return stats;
  std::sort(times_ms.begin(), times_ms.end());
  stats.runs = int(times_ms.size());
  size_t middle = times_ms.size() / 2;
  stats.median_ms =
      times_ms.size() % 2 ? times_ms[middle] : 0.5 * (times_ms[middle - 1] + times_ms[middle]);
  stats.min_ms = times_ms.front();
  stats.max_ms = times_ms.back();
  return stats;
}

void condition_on_stream(cudaStream_t stream, double min_ms, int max_calls,
                         const std::function<void(int64_t)>& enqueue) {
  cudaEvent_t start = nullptr, stop = nullptr;
  AEGIS_BENCH_CHECK_CUDA(cudaEventCreate(&start));
  AEGIS_BENCH_CHECK_CUDA(cudaEventCreate(&stop));
  AEGIS_BENCH_CHECK_CUDA(cudaEventRecord(start, stream));
  int64_t calls = 0;
  float elapsed_ms = 0;
  // Batches that double in size, so short calls do not pay one synchronization each.
  for (int64_t batch = 4; calls < max_calls && elapsed_ms < min_ms; batch *= 2) {
    for (int64_t i = 0; i < batch && calls < max_calls; ++i) enqueue(calls++);
    AEGIS_BENCH_CHECK_CUDA(cudaEventRecord(stop, stream));
    AEGIS_BENCH_CHECK_CUDA(cudaEventSynchronize(stop));
    AEGIS_BENCH_CHECK_CUDA(cudaEventElapsedTime(&elapsed_ms, start, stop));
  }
  AEGIS_BENCH_CHECK_CUDA(cudaEventDestroy(start));
  AEGIS_BENCH_CHECK_CUDA(cudaEventDestroy(stop));
}

}  // namespace aegis::bench
