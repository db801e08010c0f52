#include "campaign.h"

#include <algorithm>
#include <cstdlib>

#include "console.h"
#include "cuda_check.h"
#include "device.h"
#include "device_kernels.h"
#include "fault_plan.h"

namespace aegis::inject {
namespace {

using bench::DeviceArena;
using bench::GemmCase;

// Tile of a kernel from its name ("sgemm_simt_nn_128x128x8_w32x64_t8x8_ftblock": the first
// piece of three numbers). False where the name has none.
bool parse_tile(const std::string& kernel, int tile[3]) {
  for (const std::string& piece : bench::split(kernel, '_')) {
    std::vector<std::string> sizes = bench::split(piece, 'x');
    if (sizes.size() != 3) continue;
    bool valid = true;
    for (int i = 0; valid && i < 3; ++i) {
      char* end = nullptr;
      long value = std::strtol(sizes[i].c_str(), &end, 10);
      valid = !sizes[i].empty() && *end == '\0' && value >= 1 && value <= 4096;
      tile[i] = int(value);
    }
    if (valid) return true;
  }
  return false;
}

// The device memory of one case, taken from one arena that is freed with the case.
struct CaseBuffers {
  float* a;
  float* b;
  float* c;        // written by every call
  float* clean;    // the clean FT result: the reference
  float* off;      // the FT-off result
  float* scratch;  // max(m, n): the patterns' scale exponents
  int64_t lda, ldb;

  static size_t bytes(const bench::GemmShape& s) {
    return DeviceArena::footprint_of<float>(s.m * s.k) +
           DeviceArena::footprint_of<float>(s.k * s.n) +
           3 * DeviceArena::footprint_of<float>(s.m * s.n) +
           DeviceArena::footprint_of<float>(std::max(s.m, s.n)) +
           ResultComparer::device_bytes(s.m, s.n, s.k);
  }
  CaseBuffers(DeviceArena& arena, const GemmCase& gemm_case) {
    const bench::GemmShape& s = gemm_case.shape;
    a = arena.take<float>(s.m * s.k);
    b = arena.take<float>(s.k * s.n);
    c = arena.take<float>(s.m * s.n);
    clean = arena.take<float>(s.m * s.n);
    off = arena.take<float>(s.m * s.n);
    scratch = arena.take<float>(std::max(s.m, s.n));
    lda = gemm_case.op.a == AEGIS_OP_N ? s.m : s.k;
    ldb = gemm_case.op.b == AEGIS_OP_N ? s.k : s.n;
  }
};

class CaseRunner {
 public:
  CaseRunner(aegisHandle_t aegis, cudaStream_t stream, const GemmCase& gemm_case,
             const CaseBuffers& buffers)
      : aegis_(aegis), stream_(stream), case_(gemm_case), buffers_(buffers) {}

  void set_ft(aegisFtMode_t mode) const {
    AEGIS_BENCH_CHECK_AEGIS(aegis_, aegisSetFtMode(aegis_, mode));
  }

  // One SGEMM into `c` with the case's operands; beta = 0 unless given.
  void sgemm(float* c, float alpha = 1.0f, float beta = 0.0f) const {
    const bench::GemmShape& s = case_.shape;
    AEGIS_BENCH_CHECK_AEGIS(
        aegis_, aegisSgemm(aegis_, case_.op.a, case_.op.b, s.m, s.n, s.k, &alpha, buffers_.a,
                           buffers_.lda, buffers_.b, buffers_.ldb, &beta, c, s.m));
  }

  // NaN in every element first, so an element the library skips cannot pass for clean.
  void poison(float* c) const {
    AEGIS_BENCH_CHECK_CUDA(cudaMemsetAsync(
        c, 0xFF, size_t(case_.shape.m * case_.shape.n) * sizeof(float), stream_));
  }

  aegisFtStats_t stats() const {
    aegisFtStats_t stats{};
    AEGIS_BENCH_CHECK_AEGIS(aegis_, aegisGetFtStatsSync(aegis_, &stats));
    return stats;
  }

  std::string last_kernel() const {
    const char* kernel = nullptr;
    int split = 0;
    AEGIS_BENCH_CHECK_AEGIS(aegis_, aegisGetLastSgemmChoice(aegis_, &kernel, &split));
    return kernel ? kernel : "";
  }

 private:
  aegisHandle_t aegis_;
  cudaStream_t stream_;
  const GemmCase& case_;
  const CaseBuffers& buffers_;
};

void count(CampaignReport& report, const InjectOptions& options, const std::string& case_text,
           CaseReport& case_report, const aegisFault_t& fault, const InjectionOutcome& outcome,
           const aegisFtStats_t& stats) {
  case_report.tally.add(outcome);
  report.total.add(outcome);
  if (fault.kind == AEGIS_FAULT_BITFLIP)
    report.by_bit[size_t(fault.bit)].add(outcome);
  else
    report.by_add_decade[add_decade(fault.value)].add(outcome);
  (fault.k_step == AEGIS_FAULT_K_EPILOGUE ? report.epilogue : report.k_loop).add(outcome);
  report.by_target[size_t(fault.target)].add(outcome);
  if (!is_failure(outcome)) return;
  if (int64_t(report.listed.size()) < options.max_listed)
    report.listed.push_back({case_text, fault, outcome, stats});
  else
    ++report.listed_left_out;
}

void run_case(const InjectOptions& options, size_t case_index, size_t case_count,
              const GemmCase& gemm_case, aegisHandle_t aegis, cublasHandle_t cublas,
              cudaStream_t stream, CampaignReport& report, bench::ProgressLine& progress) {
  const bench::GemmShape& s = gemm_case.shape;
  const std::string case_text = gemm_case.text();
  DeviceArena arena(CaseBuffers::bytes(s));
  CaseBuffers buffers(arena, gemm_case);
  ResultComparer comparer(arena, s.m, s.n, s.k);
  CaseRunner runner(aegis, stream, gemm_case, buffers);
  CaseReport case_report;
  case_report.gemm_case = gemm_case;

  // Operands of the injections: uniform, from the harness's hash streams (one per case).
  const uint64_t case_stream = uint64_t(case_index) << 40;
  AEGIS_BENCH_CHECK_CUDA(
      bench::fill_uniform(buffers.a, s.m * s.k, options.seed, case_stream | 1, stream));
  AEGIS_BENCH_CHECK_CUDA(
      bench::fill_uniform(buffers.b, s.k * s.n, options.seed, case_stream | 2, stream));

  // The reference is the clean FT call itself, not the FT-off one: without FT the library
  // may split K, which changes the rounding, and a fault's effect must not be confused with
  // that. A plain (fault-free) FT call gives the same bits every time.
  progress.show(bench::format_text("[%zu/%zu] %s: clean reference", case_index + 1, case_count,
                                   case_text.c_str()));
  runner.set_ft(AEGIS_FT_OFF);
  runner.poison(buffers.off);
  runner.sgemm(buffers.off);
  runner.set_ft(options.mode);
  AEGIS_BENCH_CHECK_AEGIS(aegis, aegisResetFtStats(aegis));
  runner.poison(buffers.clean);
  runner.sgemm(buffers.clean);
  case_report.kernel = runner.last_kernel();
  case_report.reference_detections = runner.stats().detected;
  int tile[3] = {0, 0, 0};
  if (!parse_tile(case_report.kernel, tile)) {
    // Bounds over the whole of C are looser than over a tile, never wrong.
    tile[0] = int(std::min<int64_t>(s.m, 1 << 30));
    tile[1] = int(std::min<int64_t>(s.n, 1 << 30));
    tile[2] = 8;
  }
  case_report.tile_m = tile[0];
  case_report.tile_n = tile[1];
  case_report.k_tile = options.k_tile > 0 ? options.k_tile : tile[2];
  case_report.k_steps = (s.k + case_report.k_tile - 1) / case_report.k_tile;
  comparer.prepare({gemm_case.op.a, gemm_case.op.b, s.m, s.n, s.k, buffers.a, buffers.b},
                   buffers.clean, tile[0], tile[1], cublas, stream);
  case_report.ft_vs_off = comparer.compare(buffers.off, stream);

  // Every case draws its own faults, so that adding a case leaves the others unchanged.
  Random random(options.seed ^ (0x9E3779B97F4A7C15ull * (case_index + 1)));
  for (int64_t i = 0; i < options.injections; ++i) {
    if (i % 200 == 0)
      progress.show(bench::format_text("[%zu/%zu] %s: injection %lld/%lld", case_index + 1,
                                       case_count, case_text.c_str(), (long long)i,
                                       (long long)options.injections));
    aegisFault_t fault = draw_fault(random, options, s.m, s.n, case_report.k_steps);
    runner.poison(buffers.c);
    AEGIS_BENCH_CHECK_AEGIS(aegis, aegisResetFtStats(aegis));
    AEGIS_BENCH_CHECK_AEGIS(aegis, aegisInjectFaults(aegis, &fault, 1));
    runner.sgemm(buffers.c);
    // The call consumed its fault; clearing keeps a call that fired none from passing it on.
    AEGIS_BENCH_CHECK_AEGIS(aegis, aegisClearFaults(aegis));
    aegisFtStats_t stats = runner.stats();
    InjectionOutcome outcome =
        classify(stats, options.mode, fault, comparer.compare(buffers.c, stream));
    count(report, options, case_text, case_report, fault, outcome, stats);
  }

  // Clean runs: run g of the campaign belongs to case g % case_count and uses pattern
  // (g / case_count) % patterns; every second round adds alpha and beta to check the
  // epilogue's bound too. Any detection is a false positive.
  const size_t pattern_count = options.patterns.size();
  for (int64_t g = int64_t(case_index); g < options.clean_runs; g += int64_t(case_count)) {
    int64_t round = g / int64_t(case_count);
    Pattern pattern = options.patterns[size_t(round) % pattern_count];
    bool with_beta = (round / int64_t(pattern_count)) % 2 == 1;
    if (round % 10 == 0)
      progress.show(bench::format_text("[%zu/%zu] %s: clean run %lld/%lld", case_index + 1,
                                       case_count, case_text.c_str(), (long long)g,
                                       (long long)options.clean_runs));
    uint64_t run_stream = case_stream | (uint64_t(g + 1) << 8);
    MatrixView a{buffers.a, gemm_case.op.a == AEGIS_OP_T, s.m, s.k, buffers.lda};
    MatrixView b{buffers.b, gemm_case.op.b == AEGIS_OP_T, s.k, s.n, buffers.ldb};
    AEGIS_BENCH_CHECK_CUDA(
        fill_pattern(pattern, a, b, buffers.scratch, options.seed, run_stream, stream));
    if (with_beta)
      AEGIS_BENCH_CHECK_CUDA(
          bench::fill_uniform(buffers.c, s.m * s.n, options.seed, run_stream | 7, stream));
    AEGIS_BENCH_CHECK_AEGIS(aegis, aegisResetFtStats(aegis));
    runner.sgemm(buffers.c, with_beta ? -1.5f : 1.0f, with_beta ? 0.75f : 0.0f);
    aegisFtStats_t stats = runner.stats();
    PatternCount& counted = *std::find_if(
        report.clean.begin(), report.clean.end(),
        [&](const PatternCount& p) { return p.pattern == pattern; });
    ++counted.runs;
    counted.false_positives += stats.detected > 0;
    counted.nonfinite += stats.nonfinite > 0;
  }
  runner.set_ft(AEGIS_FT_OFF);
  report.cases.push_back(case_report);
}

}  // namespace

int64_t CampaignReport::false_positives() const {
  int64_t count = 0;
  for (const PatternCount& p : clean) count += p.false_positives;
  for (const CaseReport& c : cases) count += c.reference_detections > 0;
  return count;
}

int64_t CampaignReport::failures() const {
  int64_t count = total.failures() + false_positives();
  for (const CaseReport& c : cases)  // a clean FT result off by more than a check allows
    count += !(c.ft_vs_off.max_line_units <= kLineUnitsLimit);
  return count;
}

CampaignReport run_campaign(const InjectOptions& options, aegisHandle_t aegis,
                            cublasHandle_t cublas, cudaStream_t stream) {
  CampaignReport report;
  for (Pattern pattern : options.patterns) report.clean.push_back({pattern});
  std::vector<GemmCase> cases;
  for (const bench::GemmShape& shape : options.shapes)
    for (const bench::GemmOp& op : options.ops) cases.push_back({shape, op});
  bench::ProgressLine progress;
  for (size_t i = 0; i < cases.size(); ++i)
    run_case(options, i, cases.size(), cases[i], aegis, cublas, stream, report, progress);
  progress.clear();
  return report;
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kCorrected: return "corrected";
    case Outcome::kRecomputed: return "recomputed";
    case Outcome::kUnrecovered: return "unrecovered";
    case Outcome::kReported: return "reported";
    case Outcome::kEscapedHarmless: return "escaped_harmless";
    case Outcome::kEscapedBelowBound: return "escaped_below_bound";
    case Outcome::kEscapedBeyondBound: return "escaped_beyond_bound";
  }
  return "?";
}

}  // namespace aegis::inject
