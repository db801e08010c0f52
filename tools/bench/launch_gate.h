// Holds a stream's work back until the host has queued a whole batch of timed calls.
//
// Between a pair of events, a call's time is the GPU's from the start event to the stop
// event. When the host queues calls more slowly than the GPU runs them (a few microseconds of
// GPU work, against a library call, a launch or two and two event records on the host), the
// GPU reaches the start event first and then waits for the call itself: the measured time is
// then the host's enqueue cost, and it moves with the host (level 2 at n = 1024: cuBLAS's
// median 6.0 us in one process and 10.3 us in another, docs/blas2.md v16). The gate queues a
// one-thread kernel that spins until the host opens it, so the whole batch is queued before
// the GPU starts on it and every event pair brackets GPU work only (nvbench's blocking kernel
// does the same). The host's own cost per call is measured separately (TimingStats::host_us).
#ifndef AEGIS_BENCH_LAUNCH_GATE_H
#define AEGIS_BENCH_LAUNCH_GATE_H

#include <cuda_runtime_api.h>

#include <cstdint>

namespace aegis::bench {

class LaunchGate {
 public:
  LaunchGate();
  ~LaunchGate();
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;

  // Queues the gate on `stream`: what the host queues after it waits until open(). The gate
  // gives up after `timeout_ms` (a call that waits for the GPU inside the batch, such as a
  // cudaFree, would otherwise wait forever).
  void hold(cudaStream_t stream, double timeout_ms = 2000);
  // Lets the held stream run.
  void open();
  // After the batch has finished: whether the last gate gave up before it was opened (those
  // runs then include host time, as without the gate).
  bool gave_up() const;

 private:
  // Host-mapped: the host writes the generation it opened, the gate the one it gave up on.
  volatile uint32_t* opened_ = nullptr;
  volatile uint32_t* given_up_ = nullptr;
  uint32_t* opened_on_device_ = nullptr;  // the same two words as the gate kernel sees them
  uint32_t* given_up_on_device_ = nullptr;
  uint32_t generation_ = 0;
};

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_LAUNCH_GATE_H
