// Division by a divisor fixed at launch, as a multiply-high, an add and a shift (Granlund and
// Montgomery's round-up method). The GPU has no integer divide instruction: n / d is a
// sequence of dependent float conversions and corrections. The sm90 kernels' work order
// divided four or five times per unit, in the producer and the consumers; without that,
// shapes whose CTAs walk several units ran 4-6 % faster (docs/perf-notes.md TC-13).
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace aegis {

class FastDivisor {
 public:
  FastDivisor() = default;  // divides by 1
  // d >= 1; quotient() is exact for dividends below 2^31.
  explicit FastDivisor(uint32_t d) : divisor_(d) {
    while ((uint64_t(1) << shift_) < d) ++shift_;  // ceil(log2(d))
    multiplier_ = static_cast<uint32_t>(
        ((uint64_t(1) << 32) * ((uint64_t(1) << shift_) - d)) / d + 1);
  }

  AEGIS_HOST_DEVICE uint32_t divisor() const { return divisor_; }

  AEGIS_HOST_DEVICE uint32_t quotient(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const uint32_t high = __umulhi(n, multiplier_);
#else
    const uint32_t high = static_cast<uint32_t>((uint64_t(n) * multiplier_) >> 32);
#endif
    return (high + n) >> shift_;
  }

 private:
  uint32_t divisor_ = 1;
  uint32_t multiplier_ = 1;
  uint32_t shift_ = 0;
};

}  // namespace aegis
