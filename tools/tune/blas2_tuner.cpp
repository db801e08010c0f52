// aegis-tune blas2: for every level-2 routine key (sgemv_n, sgemv_t, ssymv, chemv, ...) and
// size band, times every built configuration of that routine with every Y split through
// aegisSetBlas2Override, in each reduction mode, and keeps for each mode the candidate with
// the smallest geometric mean of time over the best time on the band's sizes: one row for
// both modes where they agree, a row for each mode where they do not. (Timed in the
// deterministic mode alone, the tuner chose splits of 32-64 blocks per panel at n = 1024 that
// ran 15-30 % slower in the atomics mode; one winner for both modes cost one of them up to
// 4 % at some sizes: docs/blas2.md, v13.) In the deterministic mode each GEMV split of 2 to 16
// blocks is timed twice, its sums meeting in the workspace and in a thread-block cluster
// (aegisSetBlas2SumsOverride): the cluster wins at some sizes and splits and loses up to 15 %
// at others (docs/blas2.md, v14). A cluster candidate competes in the atomics mode too, with
// the same time: dispatch then launches the same kernel (an ordered sum in the cluster, no
// beta pre-pass, no atomic adds), which beat the atomic adds at some small sizes (v15).
// With --keep and --margin, the table's row for a tuned routine, band and mode stays unless a
// candidate beats it by more than the margin (v20: a re-tune for one new instance had moved
// rows it did not concern, by noise, and those rows measured up to 5 % slower).
#include "blas2_tuner.h"

#include <cuComplex.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "blas2_table_rows.h"
#include "command_line.h"
#include "console.h"
#include "cuda_check.h"
#include "device.h"
#include "device_kernels.h"
#include "event_timer.h"
#include "json_writer.h"

namespace aegis::tune {
namespace {

using bench::format_text;

struct Band {
  int64_t max_size;             // row's max(m, n); 0 = any
  std::vector<int64_t> sizes;   // square sizes measured
};
// One band per measured size, its edge halfway to the next size: the best split moves by a
// few percent between neighbouring sizes (how many blocks a wave holds, how long each block
// runs), so a band spanning several sizes chose a compromise that cost 2-9 % at some of them
// (docs/blas2.md, v13). A size between two measured ones takes its nearer neighbour's row.
const std::vector<int64_t> kTunedSizes = {1024, 1792, 2048, 3072,  3456,  4096,  5120,  6144,
                                          6784, 8192, 8448, 10112, 12288, 16384, 24576, 32768};

std::vector<Band> size_bands() {
  std::vector<Band> bands;
  for (size_t i = 0; i < kTunedSizes.size(); ++i) {
    const bool last = i + 1 == kTunedSizes.size();
    bands.push_back({last ? 0 : (kTunedSizes[i] + kTunedSizes[i + 1]) / 2, {kTunedSizes[i]}});
  }
  return bands;
}
// Splits between the powers of two too: the best split of a GEMV at n <= 4096 peaks sharply
// (dgemv T 3072: 0.92, 1.00, 0.92 of the best at 2, 4, 8 blocks per panel; docs/blas2.md v14).
const int kSplits[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64};
// GEMV only: splits whose blocks take 32-128 columns (N) at n = 8192-16384, where a block of
// few columns has all its loads in flight at once (docs/blas2.md, v19).
const int kGemvSplits[] = {128, 256};
// "median_ms" in the JSON is the deterministic mode's, "atomics_median_ms" the other's.
constexpr int kModeCount = 2;
const aegisReductionMode_t kModes[kModeCount] = {AEGIS_REDUCTION_DETERMINISTIC,
                                                 AEGIS_REDUCTION_ATOMICS};
const char* const kModeNames[kModeCount] = {"det", "atomics"};
// The last field of a table row that serves one mode only (blas2_dispatch.h).
const char* const kRowModes[kModeCount] = {", Blas2RowModes::DeterministicOnly",
                                           ", Blas2RowModes::AtomicsOnly"};
const char* const kBothModes = ", Blas2RowModes::Both";
// Appended to a row whose split sums meet in a cluster.
const char* const kClusterSums = ", Blas2Sums::Cluster";

size_t elem_bytes(char p) { return p == 's' ? 4 : p == 'z' ? 16 : 8; }

// Whether `family` ("gemv_t") is in the comma-separated list (empty: every family).
bool family_selected(const std::string& list, const std::string& family) {
  if (list.empty()) return true;
  const std::vector<std::string> families = bench::split(list, ',');
  return std::find(families.begin(), families.end(), family) != families.end();
}

// Reads an existing table: its text to *text, and the rows of the routine keys in `tuned` to
// *incumbents. Returns false when the file cannot be read.
bool read_table(const std::string& path, const std::vector<std::string>& tuned, std::string* text,
                std::vector<Blas2TableRow>* incumbents) {
  std::ifstream file(path);
  if (!file) return false;
  std::string line;  // whole lines: the history line outgrows any fixed buffer
  while (std::getline(file, line)) {
    *text += line + "\n";
    if (!line.empty() && line.back() == '\r') line.pop_back();
    Blas2TableRow row;
    if (parse_blas2_table_row(line, &row) &&
        std::find(tuned.begin(), tuned.end(), row.key) != tuned.end())
      incumbents->push_back(row);
  }
  return true;
}

// One call of `key` (e.g. "cgemv_t") on n x n operands, alpha 1, beta 0.
void call(aegisHandle_t h, const std::string& key, int64_t n, const void* A, const void* x, void* y) {
  const char p = key[0];
  const std::string f = key.substr(1);
  const aegisOperation_t op = f == "gemv_n" ? AEGIS_OP_N : AEGIS_OP_T;
  const aegisFillMode_t lo = AEGIS_FILL_MODE_LOWER;
  aegisStatus_t s = AEGIS_STATUS_NOT_SUPPORTED;
  if (p == 's') {
    const float one = 1, zero = 0;
    auto a = static_cast<const float*>(A);
    auto xv = static_cast<const float*>(x);
    auto yv = static_cast<float*>(y);
    s = f == "symv" ? aegisSsymv(h, lo, n, &one, a, n, xv, 1, &zero, yv, 1)
                    : aegisSgemv(h, op, n, n, &one, a, n, xv, 1, &zero, yv, 1);
  } else if (p == 'd') {
    const double one = 1, zero = 0;
    auto a = static_cast<const double*>(A);
    auto xv = static_cast<const double*>(x);
    auto yv = static_cast<double*>(y);
    s = f == "symv" ? aegisDsymv(h, lo, n, &one, a, n, xv, 1, &zero, yv, 1)
                    : aegisDgemv(h, op, n, n, &one, a, n, xv, 1, &zero, yv, 1);
  } else if (p == 'c') {
    const cuComplex one = make_cuComplex(1, 0), zero = make_cuComplex(0, 0);
    auto a = static_cast<const cuComplex*>(A);
    auto xv = static_cast<const cuComplex*>(x);
    auto yv = static_cast<cuComplex*>(y);
    s = f == "symv"   ? aegisCsymv(h, lo, n, &one, a, n, xv, 1, &zero, yv, 1)
        : f == "hemv" ? aegisChemv(h, lo, n, &one, a, n, xv, 1, &zero, yv, 1)
                      : aegisCgemv(h, op, n, n, &one, a, n, xv, 1, &zero, yv, 1);
  } else {
    const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
    auto a = static_cast<const cuDoubleComplex*>(A);
    auto xv = static_cast<const cuDoubleComplex*>(x);
    auto yv = static_cast<cuDoubleComplex*>(y);
    s = f == "symv"   ? aegisZsymv(h, lo, n, &one, a, n, xv, 1, &zero, yv, 1)
        : f == "hemv" ? aegisZhemv(h, lo, n, &one, a, n, xv, 1, &zero, yv, 1)
                      : aegisZgemv(h, op, n, n, &one, a, n, xv, 1, &zero, yv, 1);
  }
  AEGIS_BENCH_CHECK_AEGIS(h, s);
}

}  // namespace

int run_blas2_tuner(const Blas2TuneOptions& opt) {
  const bench::DeviceInfo dev = bench::require_device();
  aegisHandle_t h = nullptr;
  AEGIS_BENCH_CHECK_AEGIS(nullptr, aegisCreate(&h));
  cudaStream_t stream = nullptr;
  AEGIS_BENCH_CHECK_CUDA(cudaStreamCreate(&stream));
  AEGIS_BENCH_CHECK_AEGIS(h, aegisSetStream(h, stream));
  AEGIS_BENCH_CHECK_AEGIS(h, aegisSetReductionMode(h, AEGIS_REDUCTION_DETERMINISTIC));

  // Routine keys and their configurations, in table order.
  std::vector<std::pair<std::string, std::vector<std::string>>> routines;
  for (int i = 0; i < aegisBlas2ConfigCount(); ++i) {
    const std::string name = aegisBlas2ConfigName(i);
    if (opt.precisions.find(name[0]) == std::string::npos) continue;
    const std::string key = name.substr(0, name.find("_nb"));
    if (!family_selected(opt.routines, key.substr(1))) continue;
    auto it = std::find_if(routines.begin(), routines.end(), [&](auto& r) { return r.first == key; });
    if (it == routines.end()) routines.push_back({key, {name}});
    else it->second.push_back(name);
  }

  // The new rows per routine key, in table order; with --keep merged into the kept table.
  std::vector<std::pair<std::string, std::string>> tuned_rows;
  std::string kept_table;
  std::vector<Blas2TableRow> incumbents;
  if (!opt.keep_path.empty()) {
    std::vector<std::string> tuned;
    for (const auto& r : routines) tuned.push_back(r.first);
    if (!read_table(opt.keep_path, tuned, &kept_table, &incumbents)) {
      std::fprintf(stderr, "aegis-tune: cannot read %s\n", opt.keep_path.c_str());
      return 1;
    }
  }

  bench::TimingPlan plan;
  plan.warmup_runs = 2;
  plan.timed_runs = opt.reps;
  // Ranked by GPU time, not by the host's rate of queueing calls (TimingPlan::queued).
  plan.queued = true;
  bench::JsonWriter json;
  json.begin_object()
      .field("tool", "aegis-tune")
      .field("subcommand", "blas2")
      .field("command", opt.command)
      .field("date", bench::utc_timestamp())
      .field("device", dev.name)
      .field("reps", opt.reps)
      .field("margin_percent", opt.margin_percent)
      .key("rows")
      .begin_array();
  bench::ProgressLine progress;
  std::printf("%-8s %8s %-22s %5s %9s  %s\n", "routine", "max size", "config", "Y", "geo-mean",
              "modes");
  const std::vector<Band> bands = size_bands();
  for (const auto& [key, configs] : routines) {
    const size_t eb = elem_bytes(key[0]);
    tuned_rows.push_back({key, ""});
    std::string& rows = tuned_rows.back().second;
    for (const Band& band : bands) {
      struct Cand {
        std::string config;
        int y;
        bool cluster;  // the split sums meet in a cluster (either mode: the same launch)
      };
      const bool gemv = key.find("gemv") != std::string::npos;
      std::vector<Cand> cands;
      for (const std::string& c : configs) {
        for (int y : kSplits) {
          cands.push_back({c, y, false});
          if (gemv && y >= 2 && y <= AEGIS_BLAS2_CLUSTER_SPLIT_MAX) cands.push_back({c, y, true});
        }
        if (gemv)
          for (int y : kGemvSplits) cands.push_back({c, y, false});
      }
      std::vector<double> score[kModeCount];
      for (auto& sc : score) sc.assign(cands.size(), 0.0);
      for (int64_t n : band.sizes) {
        const int64_t a_bytes = n * n * int64_t(eb), v_bytes = n * int64_t(eb);
        const int64_t sets = bench::blas2_rotation_set_count(a_bytes + 2 * v_bytes, dev.l2_bytes);
        bench::DeviceArena arena(size_t(sets) * (bench::DeviceArena::footprint(size_t(a_bytes)) +
                                                 2 * bench::DeviceArena::footprint(size_t(v_bytes))));
        std::vector<char*> A, X, Y;
        for (int64_t s = 0; s < sets; ++s) {
          A.push_back(arena.take<char>(a_bytes));
          X.push_back(arena.take<char>(v_bytes));
          Y.push_back(arena.take<char>(v_bytes));
          AEGIS_BENCH_CHECK_CUDA(bench::fill_uniform(reinterpret_cast<float*>(A.back()), a_bytes / 4,
                                                     opt.seed, uint64_t(2 * s), stream));
          AEGIS_BENCH_CHECK_CUDA(bench::fill_uniform(reinterpret_cast<float*>(X.back()), v_bytes / 4,
                                                     opt.seed, uint64_t(2 * s + 1), stream));
        }
        // Untimed calls first, or the first candidates on these new buffers run slow
        // (bench::condition_on_stream).
        AEGIS_BENCH_CHECK_AEGIS(h, aegisSetBlas2Override(h, nullptr, 0));
        bench::condition_on_stream(stream, 50, 5000, [&](int64_t i) {
          const int64_t s = i % sets;
          call(h, key, n, A[s], X[s], Y[s]);
        });
        std::vector<double> times[kModeCount];
        for (int m = 0; m < kModeCount; ++m) {
          AEGIS_BENCH_CHECK_AEGIS(h, aegisSetReductionMode(h, kModes[m]));
          times[m].assign(cands.size(), HUGE_VAL);
          for (size_t c = 0; c < cands.size(); ++c) {
            if (cands[c].cluster && kModes[m] != AEGIS_REDUCTION_DETERMINISTIC) {
              times[m][c] = times[0][c];  // the deterministic mode's launch, timed there
              continue;
            }
            progress.show(format_text("%s n=%lld %s: %s Y=%d%s", key.c_str(), (long long)n,
                                      kModeNames[m], cands[c].config.c_str(), cands[c].y,
                                      cands[c].cluster ? " cluster" : ""));
            AEGIS_BENCH_CHECK_AEGIS(h,
                                    aegisSetBlas2Override(h, cands[c].config.c_str(), cands[c].y));
            AEGIS_BENCH_CHECK_AEGIS(
                h, aegisSetBlas2SumsOverride(h, cands[c].cluster ? AEGIS_BLAS2_SUMS_CLUSTER
                                                                 : AEGIS_BLAS2_SUMS_WORKSPACE));
            times[m][c] = bench::time_on_stream(stream, plan, [&](int64_t i) {
                            const int64_t s = i % sets;
                            call(h, key, n, A[s], X[s], Y[s]);
                          }).median_ms;
          }
          const double best = *std::min_element(times[m].begin(), times[m].end());
          for (size_t c = 0; c < cands.size(); ++c) score[m][c] += std::log(times[m][c] / best);
        }
        json.begin_object().field("routine", key).field("n", n);
        json.key("ms").begin_array();
        for (size_t c = 0; c < cands.size(); ++c) {
          json.begin_object().field("config", cands[c].config).field("y", cands[c].y);
          if (cands[c].cluster) json.field("sums", "cluster");
          json.field("median_ms", times[0][c]);
          if (!cands[c].cluster) json.field("atomics_median_ms", times[1][c]);
          json.end_object();
        }
        json.end_array().end_object();
      }
      // Ties go to the earlier candidate (y = 0, automatic, is listed first).
      size_t win[kModeCount] = {};
      bool kept[kModeCount] = {};
      for (int m = 0; m < kModeCount; ++m) {
        for (size_t c = 1; c < cands.size(); ++c)
          if (score[m][c] < score[m][win[m]] - 1e-9) win[m] = c;
        // The table's row for this band and mode stays unless the winner beats it by more
        // than the margin: the best of candidates within a point or two of each other moves
        // with the noise of one run (docs/blas2.md, v20).
        if (opt.margin_percent <= 0) continue;
        const Blas2TableRow* inc = nullptr;
        for (const Blas2TableRow& r : incumbents)
          if (r.key == key && r.max_size == band.max_size && (m == 0 ? r.deterministic : r.atomics))
            inc = &r;
        if (!inc) continue;
        for (size_t c = 0; c < cands.size(); ++c) {
          if (cands[c].config != inc->config || cands[c].y != inc->y ||
              cands[c].cluster != inc->cluster)
            continue;
          const double gain = (score[m][c] - score[m][win[m]]) / double(band.sizes.size());
          if (gain <= std::log1p(opt.margin_percent / 100)) {
            kept[m] = c != win[m];
            win[m] = c;
          }
          break;
        }
      }
      progress.clear();
      const bool agree = win[0] == win[1];
      for (int m = 0; m < (agree ? 1 : kModeCount); ++m) {
        const Cand& w = cands[win[m]];
        const double geo = std::exp(score[m][win[m]] / double(band.sizes.size()));
        std::printf("%-8s %8lld %-22s %5d %9.3f  %s%s%s\n", key.c_str(), (long long)band.max_size,
                    w.config.c_str(), w.y, geo, agree ? "both modes" : kModeNames[m],
                    w.cluster ? " (cluster)" : "",
                    kept[m] || (agree && kept[1 - m]) ? " (the table's row, within the margin)" : "");
        // The sums field follows the modes field, so a cluster row for both modes names them.
        const char* modes = !agree ? kRowModes[m] : w.cluster ? kBothModes : "";
        rows += format_text("{\"%s\", %lld, \"%s\", %d%s%s},\n", key.c_str(),
                            (long long)band.max_size, w.config.c_str(), w.y, modes,
                            w.cluster ? kClusterSums : "");
      }
    }
  }
  AEGIS_BENCH_CHECK_AEGIS(h, aegisSetBlas2Override(h, nullptr, 0));
  AEGIS_BENCH_CHECK_AEGIS(h, aegisSetBlas2SumsOverride(h, AEGIS_BLAS2_SUMS_AUTO));
  json.end_array().end_object();
  if (!opt.json_path.empty() && !json.save(opt.json_path)) {
    std::fprintf(stderr, "aegis-tune: cannot write %s\n", opt.json_path.c_str());
    return 1;
  }
  if (!opt.out_path.empty()) {
    std::FILE* f = std::fopen(opt.out_path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "aegis-tune: cannot write %s\n", opt.out_path.c_str());
      return 1;
    }
    if (!opt.keep_path.empty()) {
      std::fputs(merge_blas2_table(kept_table, tuned_rows, opt.command).c_str(), f);
    } else {
      std::fprintf(f,
                   "// Level-2 tuning table of %s: {routine, max(m, n) up to (0: any), config, "
                   "y_split (0: from the size)[, the one reduction mode served[, where the "
                   "GEMV split sums meet]]}.\n"
                   "// Written by: %s\n",
                   dev.name.c_str(), opt.command.c_str());
      for (const auto& t : tuned_rows) std::fputs(t.second.c_str(), f);
    }
    std::fclose(f);
  }
  aegisDestroy(h);
  cudaStreamDestroy(stream);
  return 0;
}

}  // namespace aegis::tune
