// What became of one injected fault, and the counts a campaign keeps of them.
#ifndef AEGIS_INJECT_OUTCOME_H
#define AEGIS_INJECT_OUTCOME_H

#include <cstdint>

#include "aegis/aegis.h"
#include "result_compare.h"

namespace aegis::inject {

// Limits in the units of result_compare.h: twice the bound, as aegis-bench's check allows,
// for the rounding of the |A||B| the bounds are computed from.
constexpr double kHarmlessElementUnits = 2.0;  // an escape within this is only rounding
constexpr double kLineUnitsLimit = 2.0;        // beyond this a fault must not escape, and
                                               // a repaired result must not stay

enum class Outcome {
  kCorrected,           // CORRECT: the located element was repaired in place
  kRecomputed,          // CORRECT: the tile was computed again
  kUnrecovered,         // CORRECT: the tile still failed after recomputing
  kReported,            // DETECT (or CORRECT without an action): counted, left as computed
  kEscapedHarmless,     // not detected; C equal to the clean result within rounding
  kEscapedBelowBound,   // not detected; C off by more than rounding, but below what a check
                        // can see (the fault was smaller than the checksum bound)
  kEscapedBeyondBound,  // not detected, and larger than the checksum bound: a miss
};

struct InjectionOutcome {
  Outcome outcome;
  Difference difference;
  bool bad_repair = false;  // repaired (corrected or recomputed) and still beyond the bound
  bool mislocated = false;  // corrected, but at another element than the fault's
};

// Classifies from the statistics of the one call (reset before it) and the difference of
// its result from the clean one. `fault` is the injected fault (its row/col locate it).
InjectionOutcome classify(const aegisFtStats_t& stats, aegisFtMode_t mode,
                          const aegisFault_t& fault, const Difference& difference);

bool is_escape(Outcome outcome);
// Outcomes a correct FT implementation never produces (what makes the exit status 1).
bool is_failure(const InjectionOutcome& outcome);

struct Tally {
  int64_t injections = 0;
  int64_t detected = 0;  // any outcome but the escapes
  int64_t corrected = 0, recomputed = 0, unrecovered = 0, reported = 0;
  int64_t escaped = 0, escaped_harmless = 0, escaped_beyond_bound = 0;
  int64_t bad_repairs = 0, mislocated = 0;
  double max_escaped_relative = 0;       // over escapes that changed C
  double max_escaped_element_units = 0;
  double max_escaped_line_units = 0;
  double max_repaired_line_units = 0;    // over corrected and recomputed results

  void add(const InjectionOutcome& outcome);
  int64_t failures() const { return unrecovered + escaped_beyond_bound + bad_repairs + mislocated; }
};

}  // namespace aegis::inject

#endif  // AEGIS_INJECT_OUTCOME_H
