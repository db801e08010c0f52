#include "launch_gate.h"

#include "cuda_check.h"

namespace aegis::bench {
namespace {

__device__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Spins (sleeping between polls, so it takes no issue slots from anything else) until the
// host has written `generation` to *opened, or gives up after timeout_ns.
__global__ void hold_until_opened(const volatile uint32_t* opened, volatile uint32_t* given_up,
                                  uint32_t generation, uint64_t timeout_ns) {
  const uint64_t start = global_ns();
  while (*opened != generation) {
    if (global_ns() - start > timeout_ns) {
      *given_up = generation;
      return;
    }
    __nanosleep(1000);
  }
}

}  // namespace

LaunchGate::LaunchGate() {
  void* p = nullptr;
  AEGIS_BENCH_CHECK_CUDA(cudaHostAlloc(&p, 2 * sizeof(uint32_t), cudaHostAllocMapped));
  opened_ = static_cast<volatile uint32_t*>(p);
  given_up_ = opened_ + 1;
  *opened_ = 0;
  *given_up_ = 0;
  AEGIS_BENCH_CHECK_CUDA(
      cudaHostGetDevicePointer(reinterpret_cast<void**>(&opened_on_device_), p, 0));
  given_up_on_device_ = opened_on_device_ + 1;
}

LaunchGate::~LaunchGate() { cudaFreeHost(const_cast<uint32_t*>(opened_)); }

void LaunchGate::hold(cudaStream_t stream, double timeout_ms) {
  ++generation_;
  hold_until_opened<<<1, 1, 0, stream>>>(opened_on_device_, given_up_on_device_, generation_,
                                         uint64_t(timeout_ms * 1e6));
  AEGIS_BENCH_CHECK_CUDA(cudaGetLastError());
}

void LaunchGate::open() { *opened_ = generation_; }

bool LaunchGate::gave_up() const { return *given_up_ == generation_; }

}  // namespace aegis::bench
