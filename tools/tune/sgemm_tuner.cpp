// aegis-tune sgemm: measures every compiled SGEMM configuration, with each split-K limit,
// on representative shapes of every shape class, and writes the tuning table dispatch reads.
//
// A candidate is a tuning row (configuration, split-K limit); it is timed through the
// public API with aegisSetSgemmOverride, so the tuner measures exactly what dispatch will
// run. Per class the winner has the smallest geometric mean of time / best time over the
// class's shapes: no single shape decides a row. With --ft the handle runs in FT CORRECT
// mode, so the FT instances are timed (split-K never applies) and the rows written are the
// FT rows dispatch reads when a fault-tolerance mode is set.
#include "sgemm_tuner.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "class_shapes.h"
#include "console.h"
#include "cuda_check.h"
#include "device.h"
#include "device_kernels.h"
#include "event_timer.h"
#include "json_writer.h"

namespace aegis::tune {
namespace {

using bench::format_text;

const int kSplitLimits[] = {1, 2, 4, 8, 16};

struct Candidate {
  std::string config;
  int max_split;
};

struct Measurement {
  std::string kernel;  // as dispatch reports it (transposes included)
  int split_k = 0;
  double median_ms = 0;
};

// Times every candidate on one shape (op N, N; alpha 1, beta 0, operands rotated past L2).
std::vector<Measurement> measure_shape(aegisHandle_t h, cudaStream_t stream,
                                       const bench::DeviceInfo& dev, const Shape& s,
                                       const std::vector<Candidate>& candidates,
                                       const bench::TimingPlan& plan, uint64_t seed,
                                       bench::ProgressLine& progress, const std::string& label) {
  const int64_t a_count = s.m * s.k, b_count = s.k * s.n, c_count = s.m * s.n;
  const size_t set_bytes = bench::DeviceArena::footprint_of<float>(a_count) +
                           bench::DeviceArena::footprint_of<float>(b_count) +
                           bench::DeviceArena::footprint_of<float>(c_count);
  const int64_t sets = bench::rotation_set_count(static_cast<int64_t>(set_bytes), dev.l2_bytes);
  bench::DeviceArena arena(set_bytes * static_cast<size_t>(sets));
  std::vector<float*> A(sets), B(sets), C(sets);
  for (int64_t i = 0; i < sets; ++i) {
    A[i] = arena.take<float>(a_count);
    B[i] = arena.take<float>(b_count);
    C[i] = arena.take<float>(c_count);
    AEGIS_BENCH_CHECK_CUDA(bench::fill_uniform(A[i], a_count, seed, 3 * i, stream));
    AEGIS_BENCH_CHECK_CUDA(bench::fill_uniform(B[i], b_count, seed, 3 * i + 1, stream));
  }
  const float alpha = 1.0f, beta = 0.0f;
  auto call = [&](int64_t index) {
    const int64_t i = index % sets;
    AEGIS_BENCH_CHECK_AEGIS(h, aegisSgemm(h, AEGIS_OP_N, AEGIS_OP_N, s.m, s.n, s.k, &alpha,
                                          A[i], s.m, B[i], s.k, &beta, C[i], s.m));
  };

  std::vector<Measurement> results(candidates.size());
  std::map<std::pair<std::string, int>, double> timed;  // (kernel, split) -> median
  for (size_t c = 0; c < candidates.size(); ++c) {
    AEGIS_BENCH_CHECK_AEGIS(h, aegisSetSgemmOverride(h, candidates[c].config.c_str(),
                                                     candidates[c].max_split));
    call(0);
    const char* kernel = nullptr;
    int split = 0;
    AEGIS_BENCH_CHECK_AEGIS(h, aegisGetLastSgemmChoice(h, &kernel, &split));
    results[c].kernel = kernel;
    results[c].split_k = split;
    // Split limits above what the shape can use give the same launch: time it once.
    const auto key = std::make_pair(results[c].kernel, split);
    auto it = timed.find(key);
    if (it == timed.end()) {
      progress.show(format_text("%s %lldx%lldx%lld: %s split %d", label.c_str(),
                                (long long)s.m, (long long)s.n, (long long)s.k,
                                candidates[c].config.c_str(), split));
      it = timed.emplace(key, bench::time_on_stream(stream, plan, call).median_ms).first;
    }
    results[c].median_ms = it->second;
  }
  AEGIS_BENCH_CHECK_AEGIS(h, aegisSetSgemmOverride(h, nullptr, 0));
  AEGIS_BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  return results;
}

}  // namespace

int run_sgemm_tuner(const TuneOptions& opt) {
  const bench::DeviceInfo dev = bench::require_device();
  aegisHandle_t h = nullptr;
  AEGIS_BENCH_CHECK_AEGIS(nullptr, aegisCreate(&h));
  cudaStream_t stream = nullptr;
  AEGIS_BENCH_CHECK_CUDA(cudaStreamCreate(&stream));
  AEGIS_BENCH_CHECK_AEGIS(h, aegisSetStream(h, stream));
  if (opt.ft) AEGIS_BENCH_CHECK_AEGIS(h, aegisSetFtMode(h, AEGIS_FT_CORRECT));

  std::vector<Candidate> candidates;
  for (int i = 0; i < aegisSgemmConfigCount(); ++i)
    for (int s : kSplitLimits)
      if (!opt.ft || s == 1) candidates.push_back({aegisSgemmConfigName(i), s});

  bench::TimingPlan plan;
  plan.warmup_runs = 2;
  plan.timed_runs = opt.reps;
  // Ranked by GPU time, not by the host's rate of queueing calls (TimingPlan::queued).
  plan.queued = true;
  plan.min_time_ms = 0;

  bench::JsonWriter json;
  json.begin_object()
      .field("tool", "aegis-tune")
      .field("subcommand", opt.ft ? "sgemm --ft" : "sgemm")
      .field("command", opt.command)
      .field("date", bench::utc_timestamp())
      .key("device")
      .begin_object()
      .field("name", dev.name)
      .field("sm_count", dev.sm_count)
      .field("l2_bytes", dev.l2_bytes)
      .field("cc", dev.compute_capability())
      .end_object()
      .field("reps", opt.reps)
      .key("classes")
      .begin_array();

  bench::ProgressLine progress;
  std::string rows;
  std::printf("%-8s %-36s %5s %10s   %s\n", "class", "chosen config", "split", "geo-mean",
              "runner-up");
  for (const auto& [shape_class, shapes] : class_shapes()) {
    const std::string cls = aegisShapeClassName(shape_class);
    std::vector<std::vector<Measurement>> per_shape;
    for (const Shape& s : shapes) {
      if (aegisGemmShapeClass(s.m, s.n, s.k) != shape_class)
        std::fprintf(stderr, "aegis-tune: warning: %lldx%lldx%lld is not of class %s\n",
                     (long long)s.m, (long long)s.n, (long long)s.k, cls.c_str());
      per_shape.push_back(
          measure_shape(h, stream, dev, s, candidates, plan, opt.seed, progress, "[" + cls + "]"));
    }
    // Score: geometric mean over shapes of time / best time on that shape.
    std::vector<double> score(candidates.size(), 0.0);
    for (const auto& results : per_shape) {
      double best = results[0].median_ms;
      for (const auto& r : results) best = std::min(best, r.median_ms);
      for (size_t c = 0; c < candidates.size(); ++c)
        score[c] += std::log(results[c].median_ms / best);
    }
    std::vector<size_t> order(candidates.size());
    for (size_t c = 0; c < order.size(); ++c) order[c] = c;
    // Ties (split limits the shapes cannot use) go to the smaller limit: listed first.
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return score[a] < score[b] - 1e-12; });
    const size_t win = order[0];
    size_t second = order.size() > 1 ? order[1] : win;
    for (size_t o : order)
      if (candidates[o].config != candidates[win].config) {
        second = o;
        break;
      }
    const double n_shapes = static_cast<double>(shapes.size());
    progress.clear();
    std::printf("%-8s %-36s %5d %10.3f   %s/%d (%.3f)\n", cls.c_str(),
                candidates[win].config.c_str(), candidates[win].max_split,
                std::exp(score[win] / n_shapes), candidates[second].config.c_str(),
                candidates[second].max_split, std::exp(score[second] / n_shapes));
    rows += format_text("{AEGIS_SHAPE_%s, \"%s\", %d},\n", [&] {
              std::string u = cls;
              for (char& ch : u) ch = static_cast<char>(std::toupper(ch));
              return u;
            }().c_str(), candidates[win].config.c_str(), candidates[win].max_split);

    json.begin_object().field("class", cls).field("config", candidates[win].config)
        .field("max_split", candidates[win].max_split)
        .field("geomean_vs_best", std::exp(score[win] / n_shapes))
        .key("shapes").begin_array();
    for (size_t si = 0; si < shapes.size(); ++si) {
      const Shape& s = shapes[si];
      json.begin_object().field("m", s.m).field("n", s.n).field("k", s.k)
          .key("candidates").begin_array();
      for (size_t c = 0; c < candidates.size(); ++c) {
        const Measurement& r = per_shape[si][c];
        json.begin_object().field("config", candidates[c].config)
            .field("max_split", candidates[c].max_split).field("kernel", r.kernel)
            .field("split_k", r.split_k).field("median_ms", r.median_ms)
            .field("gflops", 2.0 * s.m * s.n * s.k / (r.median_ms * 1e6)).end_object();
      }
      json.end_array().end_object();
    }
    json.end_array().end_object();
  }
  json.end_array().end_object();

  if (!opt.out_path.empty()) {
    std::FILE* f = std::fopen(opt.out_path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "aegis-tune: cannot write %s\n", opt.out_path.c_str());
      return 1;
    }
    std::fprintf(f,
                 "// %s tuning table for %s (%d SMs), written by aegis-tune on %s; do not edit.\n"
                 "//   %s\n"
                 "// Row: {shape class, configuration, %s}\n%s",
                 opt.ft ? "Fault-tolerant SGEMM" : "SGEMM", dev.name.c_str(), dev.sm_count,
                 bench::utc_timestamp().c_str(), opt.command.c_str(),
                 opt.ft ? "unused (FT never splits K)" : "split-K limit", rows.c_str());
    std::fclose(f);
  }
  if (!opt.json_path.empty() && !json.save(opt.json_path)) {
    std::fprintf(stderr, "aegis-tune: cannot write %s\n", opt.json_path.c_str());
    return 1;
  }
  aegisDestroy(h);
  cudaStreamDestroy(stream);
  return 0;
}

}  // namespace aegis::tune
