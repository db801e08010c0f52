#include "event_timer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "console.h"
#include "cuda_check.h"
#include "launch_gate.h"

namespace aegis::bench {

TimingStats time_on_stream(cudaStream_t stream, const TimingPlan& plan,
                           const std::function<void(int64_t)>& enqueue) {
  RunsInfo info;
  TimingStats stats = summarize_times(time_runs_on_stream(stream, plan, enqueue, 0, &info));
  stats.host_us = median_of(info.host_us);
  warn_gate_given_up(info.gates_given_up);
  return stats;
}

std::vector<double> time_runs_on_stream(cudaStream_t stream, const TimingPlan& plan,
                                        const std::function<void(int64_t)>& enqueue,
                                        int64_t first_call_index, RunsInfo* info) {
  static LaunchGate* gate = nullptr;  // made on first use, kept for the process
  if (plan.queued && !gate) gate = new LaunchGate;
  int64_t call_index = first_call_index;
  bool warmed_up = false;

  std::vector<double> times_ms;
  double measured_ms = 0;
  do {
    int batch = std::min<int>(plan.timed_runs, plan.max_runs - int(times_ms.size()));
    // Every run has its own events and nothing synchronizes inside the batch. Without the
    // gate the host stays ahead of the GPU only where a call takes longer on the GPU than
    // queueing it takes on the host.
    std::vector<cudaEvent_t> starts(batch), stops(batch);
    for (int i = 0; i < batch; ++i) {
      AEGIS_BENCH_CHECK_CUDA(cudaEventCreate(&starts[i]));
      AEGIS_BENCH_CHECK_CUDA(cudaEventCreate(&stops[i]));
    }
    if (plan.queued) gate->hold(stream);
    // Behind the gate the warm-up runs right before the timed runs, as without it.
    if (!warmed_up) {
      for (int i = 0; i < plan.warmup_runs; ++i) enqueue(call_index++);
      warmed_up = true;
    }
    const auto host_start = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) {
      AEGIS_BENCH_CHECK_CUDA(cudaEventRecord(starts[i], stream));
      enqueue(call_index++);
      AEGIS_BENCH_CHECK_CUDA(cudaEventRecord(stops[i], stream));
    }
    const std::chrono::duration<double, std::micro> host_time =
        std::chrono::steady_clock::now() - host_start;
    if (plan.queued) gate->open();
    AEGIS_BENCH_CHECK_CUDA(cudaEventSynchronize(stops[batch - 1]));
    if (info) {
      info->host_us.push_back(host_time.count() / batch);
      if (plan.queued && gate->gave_up()) ++info->gates_given_up;
    }
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

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

void warn_gate_given_up(int count) {
  static bool warned = false;
  if (count == 0 || warned) return;
  warned = true;
  std::fprintf(stderr,
               "%s: a launch gate opened on its timeout (a call waited for the GPU inside a "
               "timed batch); those runs include host time\n",
               tool_name());
}

TimingStats summarize_times(std::vector<double> times_ms) {
  TimingStats stats;
  if (times_ms.empty()) return stats;
  stats.runs = int(times_ms.size());
  stats.median_ms = median_of(times_ms);
  stats.min_ms = *std::min_element(times_ms.begin(), times_ms.end());
  stats.max_ms = *std::max_element(times_ms.begin(), times_ms.end());
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
