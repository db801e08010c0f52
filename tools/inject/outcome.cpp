#include "outcome.h"

#include <algorithm>

namespace aegis::inject {

InjectionOutcome classify(const aegisFtStats_t& stats, aegisFtMode_t mode,
                          const aegisFault_t& fault, const Difference& difference) {
  InjectionOutcome result;
  result.difference = difference;
  if (stats.detected == 0) {
    if (difference.differing == 0 || difference.max_element_units <= kHarmlessElementUnits)
      result.outcome = Outcome::kEscapedHarmless;
    else if (difference.max_line_units <= kLineUnitsLimit)
      result.outcome = Outcome::kEscapedBelowBound;
    else
      result.outcome = Outcome::kEscapedBeyondBound;
    return result;
  }
  // A fault can be seen by more than one check (a verify interval, then the end); the
  // strongest action taken names the outcome.
  if (mode != AEGIS_FT_CORRECT)
    result.outcome = Outcome::kReported;
  else if (stats.unrecovered > 0)
    result.outcome = Outcome::kUnrecovered;
  else if (stats.recomputed > 0)
    result.outcome = Outcome::kRecomputed;
  else if (stats.corrected > 0)
    result.outcome = Outcome::kCorrected;
  else
    result.outcome = Outcome::kReported;
  bool repaired =
      result.outcome == Outcome::kCorrected || result.outcome == Outcome::kRecomputed;
  result.bad_repair = repaired && !(difference.max_line_units <= kLineUnitsLimit);
  if (result.outcome == Outcome::kCorrected && fault.target == AEGIS_FAULT_TARGET_ACCUMULATOR) {
    int64_t kept = std::min<int64_t>(stats.record_count, AEGIS_FT_MAX_RECORDS);
    for (int64_t r = 0; r < kept; ++r) {
      const aegisFaultRecord_t& record = stats.records[r];
      if (record.action == AEGIS_FAULT_ACTION_CORRECTED &&
          (record.row != fault.row || record.col != fault.col))
        result.mislocated = true;
    }
  }
  return result;
}

bool is_escape(Outcome outcome) {
  return outcome == Outcome::kEscapedHarmless || outcome == Outcome::kEscapedBelowBound ||
         outcome == Outcome::kEscapedBeyondBound;
}

bool is_failure(const InjectionOutcome& outcome) {
  return outcome.outcome == Outcome::kUnrecovered ||
         outcome.outcome == Outcome::kEscapedBeyondBound || outcome.bad_repair ||
         outcome.mislocated;
}

void Tally::add(const InjectionOutcome& outcome) {
  ++injections;
  const Difference& d = outcome.difference;
  switch (outcome.outcome) {
    case Outcome::kCorrected: ++corrected; break;
    case Outcome::kRecomputed: ++recomputed; break;
    case Outcome::kUnrecovered: ++unrecovered; break;
    case Outcome::kReported: ++reported; break;
    case Outcome::kEscapedHarmless: ++escaped_harmless; break;
    case Outcome::kEscapedBelowBound: break;
    case Outcome::kEscapedBeyondBound: ++escaped_beyond_bound; break;
  }
  if (is_escape(outcome.outcome)) {
    ++escaped;
    max_escaped_relative = std::max(max_escaped_relative, double(d.max_relative));
    max_escaped_element_units = std::max(max_escaped_element_units, double(d.max_element_units));
    max_escaped_line_units = std::max(max_escaped_line_units, double(d.max_line_units));
  } else {
    ++detected;
  }
  if (outcome.outcome == Outcome::kCorrected || outcome.outcome == Outcome::kRecomputed)
    max_repaired_line_units = std::max(max_repaired_line_units, double(d.max_line_units));
  bad_repairs += outcome.bad_repair;
  mislocated += outcome.mislocated;
}

}  // namespace aegis::inject
