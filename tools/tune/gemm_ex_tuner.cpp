// aegis-tune gemm-ex: times every tensor-core GEMM kernel of this build (except the
// mma.sync fallback, which dispatch uses where nothing else can run) against cublasGemmEx on
// representative shapes of every shape class, FP16 A, B and C with FP32 accumulation, NN and
// TN, and writes the rows of src/dispatch/tuning/gemm_ex_<gpu>.inc.
//
// A kernel is forced through the public API with aegisSetGemmExOverride, so the tuner
// measures exactly what dispatch will run. Where a kernel cannot run a call, dispatch falls
// back to another one; the tuner sees that in aegisGetLastGemmExChoice and skips the kernel
// on that problem. Each kernel's first result on a problem is checked in FP64 (GemmCheck, the
// benchmark's check) before it is timed: a wrong kernel is never chosen, however fast.
// Per class the winner has the smallest geometric mean of time / best time over the class's
// problems (shapes x transposes) among the kernels that ran and passed on all of them.
// Dispatch does not split K below kFewTilesMaxK when the class's few-tiles kernel fills
// the SMs unsplit (gemm_ex_dispatch.h). So each class other than small first gets its
// few-tiles kernel: the best, by the same score, of the kernels that ran unsplit on all of
// the class's problems that some kernel split (k <= kFewTilesMaxK); without such
// problems the medium class's few-tiles kernel serves, else the small class's winner. A
// kernel that split such a problem is then scored with the few-tiles kernel's time there,
// which is what dispatch will run.
// Last, a class may get a one-wave kernel: a candidate of smaller tiles than the winner's that
// dispatch runs wherever all of a call's tiles under it fit in one wave. It is the candidate
// whose use there gives the class the best score, kept if that beats the winner alone by
// more than kOneWaveMargin.
#include "gemm_ex_tuner.h"

#include <cublas_v2.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "class_shapes.h"
#include "console.h"
#include "cuda_check.h"
#include "device.h"
#include "event_timer.h"
#include "gemm_call.h"
#include "gemm_case.h"
#include "gemm_check.h"
#include "gemm_types.h"
#include "json_writer.h"

namespace aegis::tune {
namespace {

using bench::format_text;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kFallbackKernel = "gemm_sm80_mma_sync";
constexpr aegisDataType_t kType = AEGIS_R_16F;  // A, B and C

const std::vector<bench::GemmOp> kOps = {{AEGIS_OP_N, AEGIS_OP_N}, {AEGIS_OP_T, AEGIS_OP_N}};

enum class Outcome { kTimed, kRefused, kFailed };

const char* outcome_name(Outcome outcome) {
  return outcome == Outcome::kTimed ? "timed" : outcome == Outcome::kRefused ? "refused" : "failed";
}

struct Measurement {
  Outcome outcome = Outcome::kRefused;
  std::string ran;        // kernel dispatch ran (another one where the candidate refused)
  int split = 0;          // its split-K factor
  bool rerouted = false;  // scored with the few-tiles kernel's time (dispatch runs that)
  double max_err = kNaN;  // GemmCheck units, pass <= 2
  double median_ms = kNaN;
};

// One shape with one transpose pair: every candidate, then cuBLAS.
struct Problem {
  Shape shape;
  bench::GemmOp op;
  std::vector<Measurement> candidates;
  Measurement cublas;
};

// A one-wave kernel must improve its class's score by more than the spread between tuning
// runs (about 1 %).
constexpr double kOneWaveMargin = 0.01;

// Output tile and resident CTAs per SM of a kernel (aegisGemmExConfigTile).
struct Tile {
  int m = 0, n = 0, per_sm = 1;
  int64_t count(const Shape& s) const { return ((s.m + m - 1) / m) * ((s.n + n - 1) / n); }
};

// The deepest K at which dispatch runs a class's few-tiles kernel rather than a split
// (aegis::dispatch::kFewTilesMaxK; the tuner sees only the public API).
constexpr int64_t kFewTilesMaxK = 16384;

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string problem_text(const Problem& p) {
  return format_text("%lldx%lldx%lld %s", (long long)p.shape.m, (long long)p.shape.n,
                     (long long)p.shape.k, p.op.text().c_str());
}

double gflops(const Shape& s, double ms) {
  return 2.0 * double(s.m) * double(s.n) * double(s.k) / (ms * 1e6);
}

struct Context {
  aegisHandle_t aegis = nullptr;
  cublasHandle_t cublas = nullptr;
  cudaStream_t stream = nullptr;
  bench::DeviceInfo dev;
  bench::TimingPlan plan;
  uint64_t seed = 1;
};

// Operands rotated past twice the L2, alpha 1, beta 0, tight leading dimensions. Every
// result is checked on set 0, written over a C of NaNs, before its time counts.
void measure_problem(const Context& ctx, const std::vector<std::string>& candidates,
                     uint64_t problem_id, Problem& problem, bench::ProgressLine& progress,
                     const std::string& label) {
  const Shape& s = problem.shape;
  const size_t bytes = bench::element_bytes(kType);
  const size_t set_bytes = bench::DeviceArena::footprint(size_t(s.m * s.k) * bytes) +
                           bench::DeviceArena::footprint(size_t(s.k * s.n) * bytes) +
                           bench::DeviceArena::footprint(size_t(s.m * s.n) * bytes);
  const int64_t sets = bench::rotation_set_count(static_cast<int64_t>(set_bytes), ctx.dev.l2_bytes);
  bench::DeviceArena arena(set_bytes * static_cast<size_t>(sets) +
                           bench::GemmCheck::device_bytes(s.m, s.n, s.k));
  std::vector<bench::GemmCall> calls(static_cast<size_t>(sets));
  const uint64_t stream_base = problem_id << 32;
  const int64_t lda = problem.op.a == AEGIS_OP_N ? s.m : s.k;
  const int64_t ldb = problem.op.b == AEGIS_OP_N ? s.k : s.n;
  for (int64_t i = 0; i < sets; ++i) {
    void* a = arena.take<char>(s.m * s.k * int64_t(bytes));
    void* b = arena.take<char>(s.k * s.n * int64_t(bytes));
    void* c = arena.take<char>(s.m * s.n * int64_t(bytes));
    AEGIS_BENCH_CHECK_CUDA(
        bench::fill_uniform(kType, a, s.m * s.k, ctx.seed, stream_base + 3 * i, ctx.stream));
    AEGIS_BENCH_CHECK_CUDA(
        bench::fill_uniform(kType, b, s.k * s.n, ctx.seed, stream_base + 3 * i + 1, ctx.stream));
    calls[size_t(i)] = {problem.op, s.m, s.n, s.k, kType, kType, a, lda, b, ldb, c, s.m};
  }
  const bench::GemmCall& first = calls[0];
  const bench::GemmCheck checker(
      arena, {first.op.a, first.op.b, s.m, s.n, s.k, first.a, first.lda, first.b, first.ldb, kType},
      ctx.seed, stream_base + 3 * sets + 2, ctx.stream);
  auto poison_c = [&] {
    AEGIS_BENCH_CHECK_CUDA(cudaMemsetAsync(first.c, 0xFF, size_t(s.m * s.n) * bytes, ctx.stream));
  };
  auto verified = [&](Measurement& m) {
    m.max_err = checker.check(first.c, kType, first.ldc, 1.0, ctx.stream).max_error;
    return m.max_err <= bench::GemmCheck::kErrorLimit;
  };

  problem.candidates.assign(candidates.size(), Measurement());
  for (size_t c = 0; c < candidates.size(); ++c) {
    Measurement& m = problem.candidates[c];
    progress.show(format_text("%s %s: %s", label.c_str(), problem_text(problem).c_str(),
                              candidates[c].c_str()));
    AEGIS_BENCH_CHECK_AEGIS(ctx.aegis, aegisSetGemmExOverride(ctx.aegis, candidates[c].c_str()));
    poison_c();
    const aegisStatus_t status = bench::call_aegis(ctx.aegis, first);
    if (status != AEGIS_STATUS_SUCCESS) {
      m.ran = format_text("error: %s", bench::aegis_failure_detail(ctx.aegis, status));
      continue;  // refused
    }
    AEGIS_BENCH_CHECK_AEGIS(ctx.aegis,
                            bench::last_aegis_kernel(ctx.aegis, kType, &m.ran, &m.split));
    if (m.ran != candidates[c]) continue;  // dispatch fell back: the kernel refused the call
    if (!verified(m)) {
      m.outcome = Outcome::kFailed;
      continue;
    }
    m.outcome = Outcome::kTimed;
    m.median_ms =
        bench::time_on_stream(ctx.stream, ctx.plan, [&](int64_t index) {
          AEGIS_BENCH_CHECK_AEGIS(ctx.aegis, bench::call_aegis(ctx.aegis, calls[index % sets]));
        }).median_ms;
  }
  AEGIS_BENCH_CHECK_AEGIS(ctx.aegis, aegisSetGemmExOverride(ctx.aegis, nullptr));

  progress.show(format_text("%s %s: cuBLAS", label.c_str(), problem_text(problem).c_str()));
  problem.cublas.ran = "cublasGemmEx";
  poison_c();
  AEGIS_BENCH_CHECK_CUBLAS(bench::call_cublas(ctx.cublas, first));
  if (verified(problem.cublas)) {
    problem.cublas.outcome = Outcome::kTimed;
    problem.cublas.median_ms =
        bench::time_on_stream(ctx.stream, ctx.plan, [&](int64_t index) {
          AEGIS_BENCH_CHECK_CUBLAS(bench::call_cublas(ctx.cublas, calls[index % sets]));
        }).median_ms;
  } else {
    problem.cublas.outcome = Outcome::kFailed;
  }
  AEGIS_BENCH_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
}

// Candidates ranked over a set of problems: those timed on every one of them (and, with
// unsplit_only, run unsplit on each), best first by the mean of log(time / best time on
// that problem); ties keep the registry's order.
struct Ranking {
  std::vector<size_t> order;
  std::vector<double> log_sum;        // per candidate: sum of log(time / best)
  std::vector<double> log_vs_cublas;  // per candidate: sum of log(cuBLAS time / time)
  int problems = 0, with_cublas = 0;

  double geomean(size_t c) const { return std::exp(log_sum[c] / problems); }
  double cublas_ratio(size_t c) const {
    return with_cublas ? std::exp(log_vs_cublas[c] / with_cublas) : kNaN;
  }
};

Ranking rank_candidates(const std::vector<const Problem*>& problems, size_t candidates,
                        bool unsplit_only) {
  Ranking r;
  r.log_sum.assign(candidates, 0.0);
  r.log_vs_cublas.assign(candidates, 0.0);
  std::vector<bool> eligible(candidates, true);
  for (const Problem* p : problems) {
    ++r.problems;
    double best = std::numeric_limits<double>::infinity();
    for (const Measurement& m : p->candidates)
      if (m.outcome == Outcome::kTimed && (!unsplit_only || m.split == 1))
        best = std::min(best, m.median_ms);
    const bool with_cublas = p->cublas.outcome == Outcome::kTimed;
    r.with_cublas += with_cublas;
    for (size_t c = 0; c < candidates; ++c) {
      const Measurement& m = p->candidates[c];
      if (m.outcome != Outcome::kTimed || (unsplit_only && m.split != 1)) {
        eligible[c] = false;
        continue;
      }
      r.log_sum[c] += std::log(m.median_ms / best);
      if (with_cublas) r.log_vs_cublas[c] += std::log(p->cublas.median_ms / m.median_ms);
    }
  }
  for (size_t c = 0; c < candidates; ++c)
    if (eligible[c]) r.order.push_back(c);
  std::stable_sort(r.order.begin(), r.order.end(), [&](size_t a, size_t b) {
    return r.log_sum[a] < r.log_sum[b] - 1e-12;
  });
  return r;
}

// The class's one-wave kernel (see the top): each candidate of smaller tiles than the winner
// `win` is scored as dispatch would run it, on the problems whose tiles under it fit in one
// wave of sm_count SMs, with the winner's time elsewhere. Returns the best candidate that
// beats the winner alone by more than kOneWaveMargin (candidates.size() for none), and its
// geometric mean of time / best time in *geomean.
size_t choose_one_wave(const std::vector<Problem>& problems, const std::vector<Tile>& tiles,
                       size_t win, int sm_count, double* geomean) {
  const size_t none = tiles.size();
  std::vector<double> best(problems.size(), std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < problems.size(); ++i)
    for (const Measurement& m : problems[i].candidates)
      if (m.outcome == Outcome::kTimed) best[i] = std::min(best[i], m.median_ms);
  auto log_score = [&](size_t c) {
    double sum = 0.0;
    for (size_t i = 0; i < problems.size(); ++i) {
      const Problem& p = problems[i];
      const bool fits =
          c != none && tiles[c].count(p.shape) <= int64_t(sm_count) * tiles[c].per_sm;
      const Measurement& m = fits ? p.candidates[c] : p.candidates[win];
      if (m.outcome != Outcome::kTimed) return std::numeric_limits<double>::infinity();
      sum += std::log(m.median_ms / best[i]);
    }
    return sum;
  };
  size_t chosen = none;
  double best_with =
      log_score(none) + std::log(1.0 - kOneWaveMargin) * double(problems.size());
  for (size_t c = 0; c < tiles.size(); ++c) {
    if (int64_t(tiles[c].m) * tiles[c].n >= int64_t(tiles[win].m) * tiles[win].n) continue;
    const double with = log_score(c);
    if (with < best_with) {
      best_with = with;
      chosen = c;
    }
  }
  *geomean = std::exp(best_with / double(problems.size()));
  return chosen;
}

void write_measurement_json(bench::JsonWriter& json, const Shape& s, const Measurement& m) {
  json.field("outcome", outcome_name(m.outcome))
      .field("ran", m.ran)
      .field("split_k", m.split)
      .field("scored_as_few_tiles_kernel", m.rerouted)
      .field("max_err", m.max_err)
      .field("median_ms", m.median_ms)
      .field("gflops", gflops(s, m.median_ms));
}

}  // namespace

int run_gemm_ex_tuner(const TuneOptions& opt) {
  Context ctx;
  ctx.dev = bench::require_device();
  ctx.seed = opt.seed;
  ctx.plan.warmup_runs = 2;
  ctx.plan.timed_runs = opt.reps;
  // Ranked by GPU time, not by the host's rate of queueing calls (TimingPlan::queued).
  ctx.plan.queued = true;
  ctx.plan.min_time_ms = 0;
  AEGIS_BENCH_CHECK_CUDA(cudaStreamCreate(&ctx.stream));
  AEGIS_BENCH_CHECK_AEGIS(nullptr, aegisCreate(&ctx.aegis));
  AEGIS_BENCH_CHECK_AEGIS(ctx.aegis, aegisSetStream(ctx.aegis, ctx.stream));
  AEGIS_BENCH_CHECK_AEGIS(ctx.aegis, aegisSetPointerMode(ctx.aegis, AEGIS_POINTER_MODE_HOST));
  AEGIS_BENCH_CHECK_CUBLAS(cublasCreate(&ctx.cublas));
  AEGIS_BENCH_CHECK_CUBLAS(cublasSetStream(ctx.cublas, ctx.stream));
  AEGIS_BENCH_CHECK_CUBLAS(cublasSetMathMode(ctx.cublas, CUBLAS_DEFAULT_MATH));

  std::vector<std::string> candidates;
  std::vector<Tile> tiles;
  for (int i = 0; i < aegisGemmExConfigCount(); ++i) {
    if (std::string(aegisGemmExConfigName(i)) == kFallbackKernel) continue;
    candidates.push_back(aegisGemmExConfigName(i));
    Tile t;
    AEGIS_BENCH_CHECK_AEGIS(ctx.aegis, aegisGemmExConfigTile(i, &t.m, &t.n, &t.per_sm));
    tiles.push_back(t);
  }
  if (candidates.empty()) {
    std::fprintf(stderr, "aegis-tune: this build has no tensor-core GEMM kernel to tune\n");
    return 1;
  }

  bench::JsonWriter json;
  json.begin_object()
      .field("tool", "aegis-tune")
      .field("subcommand", "gemm-ex")
      .field("command", opt.command)
      .field("date", bench::utc_timestamp())
      .key("device")
      .begin_object()
      .field("name", ctx.dev.name)
      .field("sm_count", ctx.dev.sm_count)
      .field("l2_bytes", ctx.dev.l2_bytes)
      .field("cc", ctx.dev.compute_capability())
      .end_object()
      .field("dtype", bench::element_type_name(kType))
      .field("ctype", bench::element_type_name(kType))
      .field("compute", "f32")
      .field("reps", opt.reps)
      .field("max_err_unit", "gamma_k |op(A)| |op(B)| + u_c / (1 - u_c) |C| + eta_c; pass <= 2");
  json.key("candidates").begin_array();
  for (const std::string& name : candidates) json.value(name);
  json.end_array();
  json.key("classes").begin_array();

  bench::ProgressLine progress;
  std::string rows;
  int failures = 0, classes_without_row = 0;
  uint64_t problem_id = 0;
  std::printf("%-8s %-36s %9s %9s   %s\n", "class", "chosen config", "geo-mean", "vs cuBLAS",
              "runner-up");
  // Indices among the candidates of the small class's winner and the medium class's own
  // few-tiles kernel (those classes are tuned first): a class without a few-tiles kernel of
  // its own takes the medium class's, else the small class's (dispatch's few_tiles_config).
  size_t small_winner = candidates.size();
  size_t medium_few_winner = candidates.size();
  for (const auto& [shape_class, shapes] : class_shapes()) {
    const std::string cls = aegisShapeClassName(shape_class);
    std::vector<Problem> problems;
    for (const Shape& s : shapes) {
      if (aegisGemmShapeClass(s.m, s.n, s.k) != shape_class) {
        progress.clear();
        std::fprintf(stderr, "aegis-tune: warning: %lldx%lldx%lld is not of class %s\n",
                     (long long)s.m, (long long)s.n, (long long)s.k, cls.c_str());
      }
      for (const bench::GemmOp& op : kOps) {
        Problem problem{s, op, {}, {}};
        measure_problem(ctx, candidates, problem_id++, problem, progress, "[" + cls + "]");
        problems.push_back(problem);
      }
    }
    progress.clear();
    // Failures are loud: a kernel that computes wrong results must be fixed, not tuned.
    for (const Problem& p : problems) {
      for (size_t c = 0; c < candidates.size(); ++c) {
        if (p.candidates[c].outcome != Outcome::kFailed) continue;
        ++failures;
        std::fprintf(stderr,
                     "aegis-tune: %s FAILED verification on %s: max normalized error %.3g "
                     "(limit %g); not a candidate for class %s\n",
                     candidates[c].c_str(), problem_text(p).c_str(), p.candidates[c].max_err,
                     bench::GemmCheck::kErrorLimit, cls.c_str());
      }
      if (p.cublas.outcome == Outcome::kFailed)
        std::fprintf(stderr, "aegis-tune: cuBLAS failed verification on %s (max error %.3g)\n",
                     problem_text(p).c_str(), p.cublas.max_err);
    }

    // The class's few-tiles kernel, and what dispatch runs for a candidate that split K on
    // a shallow-K problem (see the top).
    size_t few_winner = medium_few_winner < candidates.size() ? medium_few_winner : small_winner;
    bool own_few_kernel = false;
    if (shape_class != AEGIS_SHAPE_SMALL) {
      std::vector<const Problem*> few_tiles;
      for (const Problem& p : problems) {
        bool some_split = false;
        for (const Measurement& m : p.candidates)
          some_split |= m.outcome == Outcome::kTimed && m.split > 1;
        if (some_split && p.shape.k <= kFewTilesMaxK) few_tiles.push_back(&p);
      }
      const Ranking few = rank_candidates(few_tiles, candidates.size(), /*unsplit_only=*/true);
      if (!few_tiles.empty() && !few.order.empty()) {
        few_winner = few.order[0];
        own_few_kernel = true;
        if (shape_class == AEGIS_SHAPE_MEDIUM) medium_few_winner = few_winner;
      }
      for (Problem& p : problems) {
        if (few_winner == candidates.size() || p.shape.k > kFewTilesMaxK) continue;
        const Measurement& unsplit = p.candidates[few_winner];
        if (unsplit.outcome != Outcome::kTimed || unsplit.split > 1) continue;
        for (Measurement& m : p.candidates)
          if (m.outcome == Outcome::kTimed && m.split > 1) {
            m.median_ms = unsplit.median_ms;
            m.rerouted = true;
          }
      }
    }

    std::vector<const Problem*> all;
    for (const Problem& p : problems) all.push_back(&p);
    const Ranking ranking = rank_candidates(all, candidates.size(), /*unsplit_only=*/false);
    const std::vector<size_t>& order = ranking.order;
    auto geomean = [&](size_t c) { return ranking.geomean(c); };
    auto cublas_ratio = [&](size_t c) { return ranking.cublas_ratio(c); };
    const std::string row_class = "AEGIS_SHAPE_" + upper(cls);
    size_t one_wave = candidates.size();  // none
    if (order.empty()) {
      ++classes_without_row;
      std::printf("%-8s %-36s\n", cls.c_str(), "(none: no kernel ran every problem)");
      rows += format_text(
          "// %s: no kernel ran and passed every problem of the class; dispatch falls back\n",
          row_class.c_str());
    } else {
      const size_t win = order[0];
      if (shape_class == AEGIS_SHAPE_SMALL) small_winner = win;
      double one_wave_geomean = 0.0;
      one_wave = choose_one_wave(problems, tiles, win, ctx.dev.sm_count, &one_wave_geomean);
      const std::string runner_up =
          order.size() > 1
              ? format_text("%s (%.3f)", candidates[order[1]].c_str(), geomean(order[1]))
              : std::string("-");
      std::printf("%-8s %-36s %9.3f %9.3f   %s\n", cls.c_str(), candidates[win].c_str(),
                  geomean(win), cublas_ratio(win), runner_up.c_str());
      if (own_few_kernel)
        std::printf("%-8s %-36s (few tiles)\n", "", candidates[few_winner].c_str());
      if (one_wave < candidates.size())
        std::printf("%-8s %-36s (one wave: geo-mean %.3f)\n", "", candidates[one_wave].c_str(),
                    one_wave_geomean);
      const std::string few_entry =
          own_few_kernel ? "\"" + candidates[few_winner] + "\"" : std::string("nullptr");
      if (one_wave < candidates.size()) {
        rows += format_text("{%s, \"%s\", %s, \"%s\"},\n", row_class.c_str(),
                            candidates[win].c_str(), few_entry.c_str(),
                            candidates[one_wave].c_str());
      } else if (own_few_kernel) {
        rows += format_text("{%s, \"%s\", %s},\n", row_class.c_str(), candidates[win].c_str(),
                            few_entry.c_str());
      } else {
        rows += format_text("{%s, \"%s\"},\n", row_class.c_str(), candidates[win].c_str());
      }
    }

    json.begin_object().field("class", cls);
    if (order.empty())
      json.key("config").null();
    else
      json.field("config", candidates[order[0]])
          .field("geomean_vs_best", geomean(order[0]))
          .field("geomean_ratio_vs_cublas", cublas_ratio(order[0]));
    if (own_few_kernel)
      json.field("few_tiles_config", candidates[few_winner]);
    else
      json.key("few_tiles_config").null();
    if (one_wave < candidates.size())
      json.field("one_wave_config", candidates[one_wave]);
    else
      json.key("one_wave_config").null();
    json.key("problems").begin_array();
    for (const Problem& p : problems) {
      json.begin_object()
          .field("m", p.shape.m)
          .field("n", p.shape.n)
          .field("k", p.shape.k)
          .field("op", p.op.text());
      json.key("cublas").begin_object();
      write_measurement_json(json, p.shape, p.cublas);
      json.end_object();
      json.key("candidates").begin_array();
      for (size_t c = 0; c < candidates.size(); ++c) {
        json.begin_object().field("config", candidates[c]);
        write_measurement_json(json, p.shape, p.candidates[c]);
        const double cublas_ms = p.cublas.median_ms, ms = p.candidates[c].median_ms;
        json.field("ratio_vs_cublas", cublas_ms / ms).end_object();
      }
      json.end_array().end_object();
    }
    json.end_array().end_object();
  }
  json.end_array().field("verification_failures", failures).end_object();

  int status = 0;
  if (!opt.out_path.empty()) {
    std::FILE* f = std::fopen(opt.out_path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "aegis-tune: cannot write %s\n", opt.out_path.c_str());
      return 1;
    }
    std::fprintf(f,
                 "// Tensor-core GEMM tuning table for %s (%d SMs), written by aegis-tune on %s; "
                 "do not edit.\n"
                 "//   %s\n"
                 "// FP16 A, B and C, FP32 accumulation, NN and TN. Per class the kernel with the "
                 "smallest\n"
                 "// geometric mean of time / best time over the class's shapes and transposes, "
                 "among the\n"
                 "// kernels that ran and passed the FP64 check on all of them (%s, the "
                 "fallback,\n"
                 "// is not a candidate).\n"
                 "// Row: {shape class, configuration[, few-tiles configuration[, one-wave "
                 "configuration]]}\n%s",
                 ctx.dev.name.c_str(), ctx.dev.sm_count, bench::utc_timestamp().c_str(),
                 opt.command.c_str(), kFallbackKernel, rows.c_str());
    std::fclose(f);
  }
  if (!opt.json_path.empty() && !json.save(opt.json_path)) {
    std::fprintf(stderr, "aegis-tune: cannot write %s\n", opt.json_path.c_str());
    status = 1;
  }
  if (classes_without_row > 0)
    std::fprintf(stderr, "aegis-tune: %d class(es) got no row (see the table)\n",
                 classes_without_row);
  if (failures > 0) {
    std::fprintf(stderr, "aegis-tune: %d kernel result(s) FAILED verification\n", failures);
    status = 1;
  }
  cublasDestroy(ctx.cublas);
  aegisDestroy(ctx.aegis);
  cudaStreamDestroy(ctx.stream);
  return status;
}

}  // namespace aegis::tune
