// Per-device facts the sm90 launcher needs on every call, looked up once per device, and the
// persistent tile order's band height.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>

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

int choose_group_m(int unit_rows, int concurrent, int unit_m, int unit_n) {
  // The units running together cover about G rows by concurrent / G columns of units; per
  // k-step they read G * unit_m rows of A and (concurrent / G) * unit_n columns of B, which
  // is least (the most L2 reuse) at G = sqrt(concurrent * unit_n / unit_m).
  // AEGIS_GEMM_EX_GROUP_M overrides it, for measuring the choice.
  static const int forced = [] {
    const char* text = std::getenv("AEGIS_GEMM_EX_GROUP_M");
    return text ? std::atoi(text) : 0;
  }();
  int g = forced > 0 ? forced
                     : static_cast<int>(std::lround(std::sqrt(
                           static_cast<double>(concurrent) * unit_n / unit_m)));
  return std::clamp(g, 1, std::max(unit_rows, 1));
}

}  // namespace aegis::gemm::sm90
