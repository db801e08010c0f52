#include "device.h"

#include <cstdio>
#include <cstdlib>

#include "cuda_check.h"

namespace aegis::bench {

DeviceInfo require_device() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::fprintf(stderr,
                 "%s: no CUDA GPU available (cudaGetDeviceCount: %s); nothing to "
                 "measure\n",
                 tool_name(), err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    std::exit(2);
  }
  DeviceInfo info;
  AEGIS_BENCH_CHECK_CUDA(cudaGetDevice(&info.ordinal));
  cudaDeviceProp properties{};
  AEGIS_BENCH_CHECK_CUDA(cudaGetDeviceProperties(&properties, info.ordinal));
  info.name = properties.name;
  int l2 = 0;
  AEGIS_BENCH_CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, info.ordinal));
  AEGIS_BENCH_CHECK_CUDA(
      cudaDeviceGetAttribute(&info.sm_count, cudaDevAttrMultiProcessorCount, info.ordinal));
  AEGIS_BENCH_CHECK_CUDA(
      cudaDeviceGetAttribute(&info.cc_major, cudaDevAttrComputeCapabilityMajor, info.ordinal));
  AEGIS_BENCH_CHECK_CUDA(
      cudaDeviceGetAttribute(&info.cc_minor, cudaDevAttrComputeCapabilityMinor, info.ordinal));
  info.l2_bytes = l2;
  return info;
}

int64_t rotation_set_count(int64_t bytes_per_set, int64_t l2_bytes) {
  int64_t sets_spanning_l2 = (2 * l2_bytes + bytes_per_set - 1) / bytes_per_set;
  return (sets_spanning_l2 > 1 ? sets_spanning_l2 : 1) + 1;
}

int64_t blas2_rotation_set_count(int64_t bytes_per_set, int64_t l2_bytes) {
  const int64_t sets = rotation_set_count(bytes_per_set, l2_bytes);
  return sets > 4 ? sets : 4;
}

DeviceArena::DeviceArena(size_t bytes) : capacity_(bytes) {
  cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&base_), bytes);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: cudaMalloc of %.2f GiB failed: %s\n", tool_name(),
                 double(bytes) / (1u << 30), cudaGetErrorString(err));
    std::exit(1);
  }
}

DeviceArena::~DeviceArena() { cudaFree(base_); }

void* DeviceArena::take_bytes(size_t bytes) {
  size_t needed = footprint(bytes);
  if (used_ + needed > capacity_) {
    std::fprintf(stderr, "%s: internal error: device arena of %zu bytes overrun\n", tool_name(),
                 capacity_);
    std::exit(1);
  }
  void* piece = base_ + used_;
  used_ += needed;
  return piece;
}

}  // namespace aegis::bench
