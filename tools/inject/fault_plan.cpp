#include "fault_plan.h"

#include <cmath>

namespace aegis::inject {

uint64_t Random::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t Random::below(int64_t bound) {
  // Multiply-shift (Lemire) without the rejection step: the bias is below 2^-40 for the
  // bounds a campaign uses (sizes of C, 32 bits).
  return int64_t((unsigned __int128)next() * uint64_t(bound) >> 64);
}

double Random::unit() { return double(next() >> 11) * 0x1p-53; }

aegisFault_t draw_fault(Random& random, const InjectOptions& options, int64_t m, int64_t n,
                        int64_t k_steps) {
  aegisFault_t fault{};
  fault.call = 0;
  fault.row = random.below(m);
  fault.col = random.below(n);
  fault.target = options.targets[size_t(random.below(int64_t(options.targets.size())))];
  // The epilogue has no checksums of its own to hit, only the output value.
  bool epilogue = fault.target == AEGIS_FAULT_TARGET_ACCUMULATOR &&
                  random.unit() < options.epilogue_fraction;
  fault.k_step = epilogue ? AEGIS_FAULT_K_EPILOGUE : random.below(k_steps);
  bool bitflip = options.bitflips && (!options.adds || random.below(2) == 0);
  if (bitflip) {
    fault.kind = AEGIS_FAULT_BITFLIP;
    fault.bit = options.bits[size_t(random.below(int64_t(options.bits.size())))];
  } else {
    fault.kind = AEGIS_FAULT_ADD;
    double exponent = options.add_exponent_min +
                      (options.add_exponent_max - options.add_exponent_min) * random.unit();
    fault.value = float(std::pow(10.0, exponent)) * (random.below(2) ? 1.0f : -1.0f);
  }
  return fault;
}

int add_decade(float value) { return int(std::floor(std::log10(std::fabs(double(value))))); }

}  // namespace aegis::inject
