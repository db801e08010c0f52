// The campaign itself: for each case the clean reference, the injections one call each,
// then the clean runs on adversarial data; everything counted into one report.
#ifndef AEGIS_INJECT_CAMPAIGN_H
#define AEGIS_INJECT_CAMPAIGN_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "gemm_case.h"
#include "inject_options.h"
#include "operand_patterns.h"
#include "outcome.h"

namespace aegis::inject {

struct CaseReport {
  bench::GemmCase gemm_case;
  std::string kernel;              // the FT kernel aegis reports for the clean call
  int tile_m = 0, tile_n = 0;      // its tile (the whole of C where the name says none)
  int64_t k_tile = 0, k_steps = 0;  // K per k_step and the steps a fault picks from
  int64_t reference_detections = 0;  // in the clean FT call: false positives
  Difference ft_vs_off;            // clean FT result against the FT-off result (split-K
                                   // may make them differ within rounding)
  Tally tally;
};

struct PatternCount {
  Pattern pattern;
  int64_t runs = 0;
  int64_t false_positives = 0;  // runs with any detection
  int64_t nonfinite = 0;        // runs whose checks met non-finite values (finite data!)
};

// A failed injection, listed one by one in the JSON.
struct ListedFailure {
  std::string case_text;
  aegisFault_t fault;
  InjectionOutcome outcome;
  aegisFtStats_t stats;
};

struct CampaignReport {
  std::vector<CaseReport> cases;
  std::array<Tally, 32> by_bit;         // bit flips
  std::map<int, Tally> by_add_decade;   // added values, by floor(log10 |value|)
  Tally k_loop, epilogue;               // where the fault hit
  std::array<Tally, 3> by_target;       // aegisFaultTarget_t
  Tally total;
  std::vector<PatternCount> clean;      // one per pattern of the options
  int64_t listed_left_out = 0;          // failures beyond the options' max_listed
  std::vector<ListedFailure> listed;

  int64_t false_positives() const;
  int64_t failures() const;  // what makes the exit status 1
};

// The handle is set to the options' level and verify interval; its stream is `stream`,
// as is cublas's.
CampaignReport run_campaign(const InjectOptions& options, aegisHandle_t aegis,
                            cublasHandle_t cublas, cudaStream_t stream);

const char* outcome_name(Outcome outcome);

}  // namespace aegis::inject

#endif  // AEGIS_INJECT_CAMPAIGN_H
