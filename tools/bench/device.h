// The GPU under test and the device memory a benchmark case lives in.
#ifndef AEGIS_BENCH_DEVICE_H
#define AEGIS_BENCH_DEVICE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace aegis::bench {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int cc_major = 0;
  int cc_minor = 0;
  std::string compute_capability() const {
    return std::to_string(cc_major) + "." + std::to_string(cc_minor);
  }
};

// Describes the current device. Where no GPU is usable it prints one line on stderr and
// exits with status 2, so that scripts can tell "nothing to measure" from a failure.
DeviceInfo require_device();

// How many operand sets to cycle through so that each call finds its operands evicted from
// L2: enough sets to span twice the L2, plus one.
int64_t rotation_set_count(int64_t bytes_per_set, int64_t l2_bytes);

// Level 2: at least four sets as well, so that no call reads a matrix one of the three
// calls before it read (whatever of it a cache or translation structure still holds). With
// one set, timings of new buffers looked better than with two or four (dgemv T, n = 8192:
// 125 vs 128-141 us); most of that was the new-buffer slowdown that condition_on_stream
// (event_timer.h) now runs off before timing.
int64_t blas2_rotation_set_count(int64_t bytes_per_set, int64_t l2_bytes);

// One cudaMalloc carved into 256-byte aligned pieces and freed as a whole, so that each
// benchmark case releases everything it took before the next case allocates.
class DeviceArena {
 public:
  static size_t footprint(size_t bytes) {
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }
  template <typename T>
  static size_t footprint_of(int64_t count) {
    return footprint(size_t(count) * sizeof(T));
  }

  explicit DeviceArena(size_t bytes);  // exits with status 1 if the memory is not there
  ~DeviceArena();
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  template <typename T>
  T* take(int64_t count) {
    return static_cast<T*>(take_bytes(size_t(count) * sizeof(T)));
  }

 private:
  static constexpr size_t kAlignment = 256;
  void* take_bytes(size_t bytes);
  char* base_ = nullptr;
  size_t capacity_ = 0;
  size_t used_ = 0;
};

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_DEVICE_H
