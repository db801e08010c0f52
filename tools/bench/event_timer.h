// Times work queued on a stream with CUDA events: warm-up first, then every run between
// its own pair of events, summarized by median, minimum and maximum. With
// TimingPlan::queued, each batch is queued whole behind a LaunchGate before the GPU starts on
// it, so short calls are timed on the GPU alone rather than at the host's enqueue rate.
#ifndef AEGIS_BENCH_EVENT_TIMER_H
#define AEGIS_BENCH_EVENT_TIMER_H

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace aegis::bench {

struct TimingPlan {
  int warmup_runs = 3;
  int timed_runs = 20;
  double min_time_ms = 0;  // keep timing batches of timed_runs until this much is measured
  int max_runs = 10000;    // ... but never more runs than this
  // Queue each batch behind a LaunchGate (launch_gate.h). Off: the GPU starts on a batch as
  // it is queued, and calls shorter than the host's enqueue cost measure that cost.
  bool queued = false;
};

struct TimingStats {
  int runs = 0;
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  // Host time to queue one timed run (the call and its two event records), median over the
  // batches; 0 where not measured. With TimingPlan::queued it is the host's cost alone.
  double host_us = 0;
};

// The --timing lines of the benchmarks' usage texts.
constexpr const char* kTimingOptionHelp =
    "  --timing MODE         queued (default): each batch of runs is queued behind a gate\n"
    "                        before the GPU starts on it, so a call is timed on the GPU\n"
    "                        even when queueing it takes the host longer; launch: runs\n"
    "                        start as they are queued (short calls then time the host)\n";

// What time_runs_on_stream saw besides the run times.
struct RunsInfo {
  std::vector<double> host_us;  // per batch: host time to queue one timed run
  int gates_given_up = 0;       // queued batches that ran before the host had queued them
};

// `enqueue(call_index)` queues one call on `stream`; call_index counts warm-up and timed
// calls together so that the caller can rotate operand sets with it.
TimingStats time_on_stream(cudaStream_t stream, const TimingPlan& plan,
                           const std::function<void(int64_t call_index)>& enqueue);

// The same runs as time_on_stream, each run's time in ms, for callers that pool the runs of
// several timing rounds; call_index starts at `first_call_index`.
// `info`, if given, collects the host times and gate failures of these runs.
std::vector<double> time_runs_on_stream(cudaStream_t stream, const TimingPlan& plan,
                                        const std::function<void(int64_t call_index)>& enqueue,
                                        int64_t first_call_index = 0, RunsInfo* info = nullptr);

// The median of `values` (0 for none).
double median_of(std::vector<double> values);

// Warns once per process (stderr) that a launch gate gave up, so some runs include host time.
void warn_gate_given_up(int count);

// Median, minimum and maximum of run times (all zero for no runs).
TimingStats summarize_times(std::vector<double> times_ms);

// Calls `enqueue(i)` until at least `min_ms` of GPU time has passed (or `max_calls` calls),
// untimed. For memory-bound calls on freshly filled buffers: on the H200 the first few
// milliseconds of streaming over new buffers ran ~10 % slower, whichever library came
// first (level 2, n = 8448-10112), far longer than a 3-call warm-up; conditioning before
// the first library's timing removes that order bias.
void condition_on_stream(cudaStream_t stream, double min_ms, int max_calls,
                         const std::function<void(int64_t call_index)>& enqueue);

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_EVENT_TIMER_H
