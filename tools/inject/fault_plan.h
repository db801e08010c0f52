// Draws the faults of a campaign: where in C, when in the K loop, what kind. A seeded
// generator of our own (the distributions of <random> differ between standard libraries),
// so a seed names the same campaign on any host.
#ifndef AEGIS_INJECT_FAULT_PLAN_H
#define AEGIS_INJECT_FAULT_PLAN_H

#include <cstdint>

#include "aegis/aegis.h"
#include "inject_options.h"

namespace aegis::inject {

// SplitMix64: small state, every seed gives a full-quality stream.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next();
  int64_t below(int64_t bound);  // uniform in [0, bound), bound >= 1
  double unit();                 // uniform in [0, 1)

 private:
  uint64_t state_;
};

// Draws one fault for the next FT call (call = 0) on an m x n result whose K loop has
// k_steps steps.
aegisFault_t draw_fault(Random& random, const InjectOptions& options, int64_t m, int64_t n,
                        int64_t k_steps);

// Decade of an added value: floor(log10 |value|).
int add_decade(float value);

}  // namespace aegis::inject

#endif  // AEGIS_INJECT_FAULT_PLAN_H
