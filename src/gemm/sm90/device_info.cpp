// Per-device facts the sm90 launcher needs on every call, looked up once per device.
#include <atomic>

#include <cuda_runtime_api.h>

namespace aegis::gemm::sm90 {

int current_sm_count() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> cached[kMaxDevices] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 1;
  if (device >= 0 && device < kMaxDevices) {
    const int known = cached[device].load(std::memory_order_relaxed);
    if (known > 0) return known;
  }
  int count = 1;
  if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      count < 1)
    count = 1;
  if (device >= 0 && device < kMaxDevices) cached[device].store(count, std::memory_order_relaxed);
  return count;
}

}  // namespace aegis::gemm::sm90
