// aegis-bench gemv | symv | hemv | blas2: GB/s of aegis and cuBLAS on the same buffers,
// counting the bytes the routine must move (the whole matrix for GEMV, the stored triangle
// for SYMV/HEMV, plus x and y), as a percentage of the measured read bandwidth.
#include "blas2_bench.h"

#include <cuComplex.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <type_traits>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "blas2_check.h"
#include "console.h"
#include "cuda_check.h"
#include "device.h"
#include "device_kernels.h"
#include "event_timer.h"
#include "json_writer.h"
#include "read_ceiling.h"

namespace aegis::bench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kCheckLimit = 2.0;  // normalized error allowed by the spot check
constexpr double kConditionMs = 50;   // untimed GPU time on a case's buffers before timing
constexpr int kConditionCalls = 5000;

// Square sizes: powers of two and the awkward sizes of the issue.
const std::vector<int64_t> kDefaultSizes = {1024, 1792, 2048, 3456, 4096, 5120, 6784,
                                            8192, 8448, 10112, 16384, 24576, 32768};
const std::vector<int64_t> kQuickSizes = {1024, 2048, 3456, 4096, 8192, 16384};

struct Routine {
  std::string family;  // gemv, symv, hemv
  int precision;       // 0 s, 1 d, 2 c, 3 z
  int kind;            // 0 N, 1 T, 2 C, 3 symv, 4 hemv
  bool upper;
  std::string name() const {
    static const char kLetters[] = "sdcz";
    std::string s = std::string(1, kLetters[precision]) + family;
    if (family == "gemv") s += kind == 0 ? " N" : kind == 1 ? " T" : " C";
    else s += upper ? " U" : " L";
    return s;
  }
  size_t elem() const { return precision == 0 ? 4 : precision == 3 ? 16 : 8; }
};

struct Options {
  std::vector<std::string> families;
  std::string precisions = "sdcz";
  std::string trans = "NT";
  std::string uplos = "L";
  std::vector<int64_t> sizes;
  std::string suite = "default";
  double bandwidth = 4545;  // GB/s, the measured read-only streaming figure of an H200
  bool bandwidth_measured = false;  // %bw against this process's read ceiling instead
  TimingPlan timing;
  bool reps_given = false;
  bool with_cublas = true;
  bool with_atomics = true;
  std::string json_path;
  uint64_t seed = 1;
  int64_t max_bytes = int64_t(16) << 30;  // skip cases whose matrix is larger
  int64_t lda_pad = 0;                    // lda = n + lda_pad
  std::string tuning_table;               // the table aegis's dispatch reads ("" = the GPU's)
  std::string config;                     // forced aegis configuration ("" = dispatch's)
  int config_y = 0;                       // its Y split (0 = from the size)
  int64_t sets = 0;                       // operand sets rotated (0 = past twice the L2)
  bool cublas_first = false;              // time cuBLAS before aegis in each case
};

struct LibRun {
  bool ran = false, verified = false;
  double error = kNaN, ms = kNaN, gbs = kNaN;
  double min_ms = kNaN, max_ms = kNaN;
  double host_us = kNaN;  // host time to queue one call (TimingStats::host_us)
  std::string config;
  int y_split = 0;
  aegisBlas2Sums_t sums = AEGIS_BLAS2_SUMS_AUTO;  // where a deterministic GEMV split met
};

struct Result {
  Routine routine;
  int64_t n = 0;
  double bytes = 0;
  LibRun aegis_det, aegis_atomics, cublas, cublas_atomics;
};

}  // namespace

void print_blas2_usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: aegis-bench gemv|symv|hemv|blas2 [options]\n"
      "\n"
      "Level-2 BLAS of aegis against cuBLAS on identical square n x n operands (alpha = 1,\n"
      "beta = 0, unit increments, lda = n + --lda-pad). GB/s counts the bytes the routine\n"
      "must move: the whole matrix for GEMV, the stored triangle n (n + 1) / 2 for\n"
      "SYMV/HEMV, plus x and y. %%bw is against the read bandwidth (--bandwidth). aegis\n"
      "runs in both reduction modes (det = deterministic, the default; atom = atomics);\n"
      "cuBLAS SYMV/HEMV in its default mode and with CUBLAS_ATOMICS_ALLOWED. 'blas2' runs\n"
      "gemv, symv and hemv. The config column: dispatch's choice, its Y split (det/atom);\n"
      "'Yc' where the split sums met in a thread-block cluster (either mode).\n"
      "\n"
      "  --precisions LETTERS  any of s, d, c, z (default sdcz)\n"
      "  --trans LETTERS       GEMV: any of N, T, C (default NT; C only for c, z)\n"
      "  --uplo LETTERS        SYMV/HEMV: L, U or LU (default L)\n"
      "  --sizes LIST          n[,n...] instead of the suite's\n"
      "  --suite NAME          default (1024..32768 with 1792 3456 5120 6784 8448 10112)\n"
      "                        or quick (1024..16384, --reps 10)\n"
      "  --bandwidth GBS|measured\n"
      "                        read bandwidth for %%bw (default 4545, H200 measured), or\n"
      "                        this process's read ceiling at its start (below)\n"
      "  --reps N              timed runs (default 20); --warmup N (default 3)\n"
      "%s"
      "  --max-gib G           skip cases whose matrix exceeds G GiB (default 16)\n"
      "  --no-cublas           aegis only;  --no-atomics: aegis deterministic mode only\n"
      "  --json FILE           all results as JSON\n"
      "  --seed S              operand seed (default 1)\n"
      "  --cublas-first        time cuBLAS before aegis in each case (default: after)\n"
      "  --sets N              rotate N operand sets (default: enough to span twice the\n"
      "                        L2, at least 4)\n"
      "  --lda-pad P           lda = n + P for both libraries (default 0): shows what the\n"
      "                        matrix's column stride does to the memory system\n"
      "  --config NAME[:Y]     aegis runs this configuration (aegisSetBlas2Override), Y\n"
      "                        blocks per panel (default 0: from the size); routines that\n"
      "                        it does not serve use dispatch's choice\n"
      "  --tuning-table NAME   aegis dispatches from this tuning table (aegisSetTuningTable:\n"
      "                        h200, default) instead of its GPU's\n"
      "\n"
      "The read ceiling, a streaming read of 4 GiB timed like the routines, is measured at\n"
      "the start and at the end of the run and reported with the table and in the JSON.\n"
      "Before a case is timed, aegis runs untimed over its buffers for 50 ms (new buffers\n"
      "slowed down whichever library came first). Each result is spot-checked first in\n"
      "FP64 (64 elements of y against c gamma_{n+4} |A||x|); one that fails prints FAILED,\n"
      "is not timed, and the exit status is 1.\n", kTimingOptionHelp);
}

namespace {

Options parse(const Invocation& invocation) {
  Options o;
  o.timing.queued = true;  // --timing queued is the default
  if (invocation.subcommand == "blas2") o.families = {"gemv", "symv", "hemv"};
  else o.families = {invocation.subcommand};
  OptionReader reader(invocation);
  auto letters = [&](const std::string& allowed) {
    std::string v = reader.text();
    for (char& c : v) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (v.empty() || v.find_first_not_of(allowed) != std::string::npos)
      reader.reject("expected letters from '" + allowed + "'");
    return v;
  };
  while (reader.next()) {
    if (reader.is("--precisions")) o.precisions = letters("sdcz");
    else if (reader.is("--trans")) {
      o.trans = letters("ntc");
      for (char& c : o.trans) c = char(std::toupper(static_cast<unsigned char>(c)));
    } else if (reader.is("--uplo")) {
      o.uplos = letters("lu");
      for (char& c : o.uplos) c = char(std::toupper(static_cast<unsigned char>(c)));
    } else if (reader.is("--sizes")) {
      for (const std::string& piece : split(reader.text(), ',')) {
        char* end = nullptr;
        const long long v = std::strtoll(piece.c_str(), &end, 10);
        if (piece.empty() || *end || v < 1 || v > 2147483647LL) reader.reject("bad size '" + piece + "'");
        o.sizes.push_back(v);
      }
    } else if (reader.is("--suite")) {
      o.suite = reader.text();
      if (o.suite != "default" && o.suite != "quick") reader.reject("unknown suite '" + o.suite + "'");
    } else if (reader.is("--bandwidth")) {
      const std::string v = reader.text();
      char* end = nullptr;
      const double gbs = std::strtod(v.c_str(), &end);
      if (v == "measured") o.bandwidth_measured = true;
      else if (v.empty() || *end || !std::isfinite(gbs) || gbs < 1)
        reader.reject("option '--bandwidth' is GB/s (>= 1) or 'measured', not '" + v + "'");
      else o.bandwidth = gbs;
    } else if (reader.is("--reps")) {
      o.timing.timed_runs = int(std::min<int64_t>(reader.integer(1), 100000));
      o.reps_given = true;
    } else if (reader.is("--warmup")) {
      o.timing.warmup_runs = int(std::min<int64_t>(reader.integer(0), 100000));
    } else if (reader.is("--timing")) {
      o.timing.queued = reader.queued_timing();
    } else if (reader.is("--max-gib")) {
      o.max_bytes = int64_t(reader.number(0) * double(int64_t(1) << 30));
    } else if (reader.is("--no-cublas")) {
      o.with_cublas = false;
    } else if (reader.is("--no-atomics")) {
      o.with_atomics = false;
    } else if (reader.is("--json")) {
      o.json_path = reader.text();
    } else if (reader.is("--seed")) {
      o.seed = uint64_t(reader.integer(0));
    } else if (reader.is("--cublas-first")) {
      o.cublas_first = true;
    } else if (reader.is("--sets")) {
      o.sets = reader.integer(1);
    } else if (reader.is("--lda-pad")) {
      o.lda_pad = reader.integer(0);
    } else if (reader.is("--tuning-table")) {
      o.tuning_table = reader.text();
    } else if (reader.is("--config")) {
      const std::string text = reader.text();
      int64_t y = 0;
      if (!split_name_and_number(text, 65535, &o.config, &y) || o.config.empty())
        reader.reject("expected NAME[:Y] with Y from 0 to 65535, not '" + text + "'");
      o.config_y = int(y);
    } else {
      reader.reject_unknown();
    }
  }
  if (o.suite == "quick" && !o.reps_given) o.timing.timed_runs = 10;
  if (o.sizes.empty()) o.sizes = o.suite == "quick" ? kQuickSizes : kDefaultSizes;
  return o;
}

std::vector<Routine> routines(const Options& o) {
  std::vector<Routine> r;
  for (const std::string& f : o.families)
    for (char p : o.precisions) {
      const int prec = int(std::string("sdcz").find(p));
      if (f == "hemv" && prec < 2) continue;
      if (f == "gemv") {
        for (char t : o.trans) {
          if (t == 'C' && prec < 2) continue;
          r.push_back({f, prec, t == 'N' ? 0 : t == 'T' ? 1 : 2, false});
        }
      } else {
        for (char u : o.uplos) r.push_back({f, prec, f == "symv" ? 3 : 4, u == 'U'});
      }
    }
  return r;
}

// Both libraries' entry points for one routine, with void* operands.
using Call = std::function<void(const void* A, const void* x, void* y)>;

template <typename T>
Call aegis_call(aegisHandle_t h, const Routine& r, int64_t n, int64_t lda) {
  static const T one = [] {
    T v{};
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) v = 1;
    else v.x = 1;
    return v;
  }();
  static const T zero{};
  return [=](const void* A, const void* x, void* y) {
    const T* a = static_cast<const T*>(A);
    const T* xv = static_cast<const T*>(x);
    T* yv = static_cast<T*>(y);
    const aegisOperation_t op = r.kind == 0 ? AEGIS_OP_N : r.kind == 1 ? AEGIS_OP_T : AEGIS_OP_C;
    const aegisFillMode_t uplo = r.upper ? AEGIS_FILL_MODE_UPPER : AEGIS_FILL_MODE_LOWER;
    aegisStatus_t s;
    if constexpr (std::is_same_v<T, float>) {
      s = r.kind < 3 ? aegisSgemv(h, op, n, n, &one, a, lda, xv, 1, &zero, yv, 1)
                     : aegisSsymv(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1);
    } else if constexpr (std::is_same_v<T, double>) {
      s = r.kind < 3 ? aegisDgemv(h, op, n, n, &one, a, lda, xv, 1, &zero, yv, 1)
                     : aegisDsymv(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1);
    } else if constexpr (std::is_same_v<T, cuComplex>) {
      s = r.kind < 3 ? aegisCgemv(h, op, n, n, &one, a, lda, xv, 1, &zero, yv, 1)
          : r.kind == 3 ? aegisCsymv(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1)
                        : aegisChemv(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1);
    } else {
      s = r.kind < 3 ? aegisZgemv(h, op, n, n, &one, a, lda, xv, 1, &zero, yv, 1)
          : r.kind == 3 ? aegisZsymv(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1)
                        : aegisZhemv(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1);
    }
    AEGIS_BENCH_CHECK_AEGIS(h, s);
  };
}

template <typename T>
Call cublas_call(cublasHandle_t h, const Routine& r, int64_t n64, int64_t lda64) {
  static const T one = [] {
    T v{};
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) v = 1;
    else v.x = 1;
    return v;
  }();
  static const T zero{};
  const int n = int(n64), lda = int(lda64);
  return [=](const void* A, const void* x, void* y) {
    const T* a = static_cast<const T*>(A);
    const T* xv = static_cast<const T*>(x);
    T* yv = static_cast<T*>(y);
    const cublasOperation_t op = r.kind == 0 ? CUBLAS_OP_N : r.kind == 1 ? CUBLAS_OP_T : CUBLAS_OP_C;
    const cublasFillMode_t uplo = r.upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    if constexpr (std::is_same_v<T, float>) {
      AEGIS_BENCH_CHECK_CUBLAS(r.kind < 3 ? cublasSgemv_v2(h, op, n, n, &one, a, lda, xv, 1, &zero, yv, 1)
                                          : cublasSsymv_v2(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1));
    } else if constexpr (std::is_same_v<T, double>) {
      AEGIS_BENCH_CHECK_CUBLAS(r.kind < 3 ? cublasDgemv_v2(h, op, n, n, &one, a, lda, xv, 1, &zero, yv, 1)
                                          : cublasDsymv_v2(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1));
    } else if constexpr (std::is_same_v<T, cuComplex>) {
      AEGIS_BENCH_CHECK_CUBLAS(r.kind < 3    ? cublasCgemv_v2(h, op, n, n, &one, a, lda, xv, 1, &zero, yv, 1)
                               : r.kind == 3 ? cublasCsymv_v2(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1)
                                             : cublasChemv_v2(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1));
    } else {
      AEGIS_BENCH_CHECK_CUBLAS(r.kind < 3    ? cublasZgemv_v2(h, op, n, n, &one, a, lda, xv, 1, &zero, yv, 1)
                               : r.kind == 3 ? cublasZsymv_v2(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1)
                                             : cublasZhemv_v2(h, uplo, n, &one, a, lda, xv, 1, &zero, yv, 1));
    }
  };
}

Call make_aegis_call(aegisHandle_t h, const Routine& r, int64_t n, int64_t lda) {
  switch (r.precision) {
    case 0: return aegis_call<float>(h, r, n, lda);
    case 1: return aegis_call<double>(h, r, n, lda);
    case 2: return aegis_call<cuComplex>(h, r, n, lda);
    default: return aegis_call<cuDoubleComplex>(h, r, n, lda);
  }
}
Call make_cublas_call(cublasHandle_t h, const Routine& r, int64_t n, int64_t lda) {
  switch (r.precision) {
    case 0: return cublas_call<float>(h, r, n, lda);
    case 1: return cublas_call<double>(h, r, n, lda);
    case 2: return cublas_call<cuComplex>(h, r, n, lda);
    default: return cublas_call<cuDoubleComplex>(h, r, n, lda);
  }
}

struct Operands {
  std::vector<void*> A, x, y;
};

void fill(void* p, int64_t bytes, bool single, uint64_t seed, uint64_t id, cudaStream_t s) {
  if (single) AEGIS_BENCH_CHECK_CUDA(fill_uniform(static_cast<float*>(p), bytes / 4, seed, id, s));
  else AEGIS_BENCH_CHECK_CUDA(fill_uniform(static_cast<double*>(p), bytes / 8, seed, id, s));
}

void measure(const Routine& r, int64_t n, int64_t lda, const Operands& ops, cudaStream_t stream,
             const TimingPlan& plan, double bytes, const Call& call, LibRun& run,
             const std::function<void()>& after_call = {}) {
  const size_t yb = size_t(n) * r.elem();
  AEGIS_BENCH_CHECK_CUDA(cudaMemsetAsync(ops.y[0], 0xFF, yb, stream));  // NaN: unwritten fails
  call(ops.A[0], ops.x[0], ops.y[0]);
  if (after_call) after_call();
  run.ran = true;
  run.error = blas2_spot_check(r.precision, r.kind, r.upper, n, n, ops.A[0], lda, ops.x[0],
                               ops.y[0], 64, stream);
  run.verified = run.error <= kCheckLimit;
  if (!run.verified) return;
  const int64_t sets = int64_t(ops.A.size());
  const TimingStats t = time_on_stream(stream, plan, [&](int64_t i) {
    const int64_t s = i % sets;
    call(ops.A[s], ops.x[s], ops.y[s]);
  });
  run.ms = t.median_ms;
  run.min_ms = t.min_ms;
  run.max_ms = t.max_ms;
  run.host_us = t.host_us;
  run.gbs = bytes / (run.ms * 1e6);
}

std::string cell(const LibRun& r) {
  if (!r.ran) return "-";
  return r.verified ? format_text("%.0f", r.gbs) : "FAILED";
}

void write_run(JsonWriter& j, const char* key, const LibRun& r) {
  j.key(key);
  if (!r.ran) {
    j.null();
    return;
  }
  j.begin_object()
      .field("median_ms", r.ms)
      .field("min_ms", r.min_ms)
      .field("max_ms", r.max_ms)
      .field("host_us", r.host_us)
      .field("gbs", r.gbs)
      .field("verified", r.verified)
      .field("max_err", r.error);
  if (!r.config.empty()) j.field("config", r.config).field("y_split", r.y_split);
  if (r.sums != AEGIS_BLAS2_SUMS_AUTO)
    j.field("sums", r.sums == AEGIS_BLAS2_SUMS_CLUSTER ? "cluster" : "workspace");
  j.end_object();
}

std::string ceiling_text(const ReadCeiling& c) {
  return c.gbs > 0 ? format_text("%.0f GB/s", c.gbs) : std::string("not measured");
}

}  // namespace

int run_blas2(const Invocation& invocation) {
  const Options o = parse(invocation);
  const DeviceInfo device = require_device();
  cudaStream_t stream = nullptr;
  AEGIS_BENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  aegisHandle_t ah = nullptr;
  AEGIS_BENCH_CHECK_AEGIS(nullptr, aegisCreate(&ah));
  AEGIS_BENCH_CHECK_AEGIS(ah, aegisSetStream(ah, stream));
  if (!o.tuning_table.empty())
    AEGIS_BENCH_CHECK_AEGIS(ah, aegisSetTuningTable(ah, o.tuning_table.c_str()));
  if (!o.config.empty()) AEGIS_BENCH_CHECK_AEGIS(ah, aegisSetBlas2Override(ah, o.config.c_str(), o.config_y));
  cublasHandle_t ch = nullptr;
  AEGIS_BENCH_CHECK_CUBLAS(cublasCreate(&ch));
  AEGIS_BENCH_CHECK_CUBLAS(cublasSetStream(ch, stream));
  int cublas_version = 0;
  AEGIS_BENCH_CHECK_CUBLAS(cublasGetVersion(ch, &cublas_version));

  const std::vector<Routine> rs = routines(o);
  // The read ceiling at the start and at the end of the run (read_ceiling.h).
  const ReadCeiling ceiling_start = measure_read_ceiling(stream, o.timing);
  if (o.bandwidth_measured && ceiling_start.gbs <= 0) {
    std::fprintf(stderr, "aegis-bench: no read ceiling measured for --bandwidth measured\n");
    return 1;
  }
  const double bandwidth = o.bandwidth_measured ? ceiling_start.gbs : o.bandwidth;
  std::printf("aegis-bench %s: %s (%d SMs, L2 %.0f MiB), cuBLAS %d, %d timed runs, %%bw of %.0f GB/s\n",
              invocation.subcommand.c_str(), device.name.c_str(), device.sm_count,
              double(device.l2_bytes) / (1 << 20), cublas_version, o.timing.timed_runs, bandwidth);
  std::printf("read ceiling in this process (a streaming read of %.0f GiB): %s at the start\n\n",
              double(ceiling_start.bytes) / double(int64_t(1) << 30),
              ceiling_text(ceiling_start).c_str());
  if (o.lda_pad || !o.config.empty())
    std::printf("lda = n + %lld%s%s\n\n", (long long)o.lda_pad, o.config.empty() ? "" : ", aegis forced to ",
                o.config.empty() ? "" : (o.config + ":" + std::to_string(o.config_y)).c_str());
  TablePrinter table({{"routine", 7, true},
                      {"n", 6, false},
                      {"det GB/s", 8, false},
                      {"%bw", 5, false},
                      {"atom GB/s", 9, false},
                      {"%bw", 5, false},
                      {"cuBLAS", 7, false},
                      {"cuB atom", 8, false},
                      {"det/cuB", 7, false},
                      {"best/cuB", 8, false},
                      {"config", 6, true}});
  table.print_header();
  ProgressLine progress;
  std::vector<Result> results;
  int failures = 0;
  size_t index = 0;
  const size_t total = rs.size() * o.sizes.size();
  for (const Routine& r : rs)
    for (int64_t n : o.sizes) {
      ++index;
      const int64_t lda = n + o.lda_pad;
      const int64_t a_bytes = lda * n * int64_t(r.elem());
      if (a_bytes > o.max_bytes) continue;
      progress.show(format_text("[%zu/%zu] %s n=%lld ...", index, total, r.name().c_str(), (long long)n));
      Result res;
      res.routine = r;
      res.n = n;
      const double tri = r.kind >= 3 ? double(n) * double(n + 1) / 2 : double(n) * double(n);
      res.bytes = (tri + 2.0 * double(n)) * double(r.elem());
      const int64_t vec_bytes = n * int64_t(r.elem());
      const int64_t set_bytes = a_bytes + 2 * vec_bytes;
      const int64_t sets = o.sets > 0 ? o.sets : blas2_rotation_set_count(set_bytes, device.l2_bytes);
      DeviceArena arena(size_t(sets) * (DeviceArena::footprint(size_t(a_bytes)) +
                                        2 * DeviceArena::footprint(size_t(vec_bytes))));
      Operands ops;
      const bool single = r.precision == 0 || r.precision == 2;
      for (int64_t s = 0; s < sets; ++s) {
        ops.A.push_back(arena.take<char>(a_bytes));
        ops.x.push_back(arena.take<char>(vec_bytes));
        ops.y.push_back(arena.take<char>(vec_bytes));
        fill(ops.A[s], a_bytes, single, o.seed, uint64_t(index) << 32 | uint64_t(3 * s), stream);
        fill(ops.x[s], vec_bytes, single, o.seed, uint64_t(index) << 32 | uint64_t(3 * s + 1), stream);
      }
      const Call ac = make_aegis_call(ah, r, n, lda);
      auto record = [&](LibRun& run) {
        return [&run, ah]() {
          const char* cfg = "";
          AEGIS_BENCH_CHECK_AEGIS(ah, aegisGetLastBlas2Choice(ah, &cfg, &run.y_split));
          AEGIS_BENCH_CHECK_AEGIS(ah, aegisGetLastBlas2Sums(ah, &run.sums));
          run.config = cfg;
        };
      };
      auto run_aegis = [&] {
        AEGIS_BENCH_CHECK_AEGIS(ah, aegisSetReductionMode(ah, AEGIS_REDUCTION_DETERMINISTIC));
        measure(r, n, lda, ops, stream, o.timing, res.bytes, ac, res.aegis_det, record(res.aegis_det));
        if (o.with_atomics) {
          AEGIS_BENCH_CHECK_AEGIS(ah, aegisSetReductionMode(ah, AEGIS_REDUCTION_ATOMICS));
          measure(r, n, lda, ops, stream, o.timing, res.bytes, ac, res.aegis_atomics, record(res.aegis_atomics));
          AEGIS_BENCH_CHECK_AEGIS(ah, aegisSetReductionMode(ah, AEGIS_REDUCTION_DETERMINISTIC));
        }
      };
      auto run_cublas = [&] {
        if (!o.with_cublas) return;
        const Call cc = make_cublas_call(ch, r, n, lda);
        AEGIS_BENCH_CHECK_CUBLAS(cublasSetAtomicsMode(ch, CUBLAS_ATOMICS_NOT_ALLOWED));
        measure(r, n, lda, ops, stream, o.timing, res.bytes, cc, res.cublas);
        if (r.kind >= 3) {
          AEGIS_BENCH_CHECK_CUBLAS(cublasSetAtomicsMode(ch, CUBLAS_ATOMICS_ALLOWED));
          measure(r, n, lda, ops, stream, o.timing, res.bytes, cc, res.cublas_atomics);
          AEGIS_BENCH_CHECK_CUBLAS(cublasSetAtomicsMode(ch, CUBLAS_ATOMICS_NOT_ALLOWED));
        }
      };
      // Untimed calls over every set first (see condition_on_stream): otherwise the first
      // library timed on these new buffers ran ~10 % slow at n = 8448-10112.
      condition_on_stream(stream, kConditionMs, kConditionCalls, [&](int64_t i) {
        const int64_t s = i % sets;
        ac(ops.A[s], ops.x[s], ops.y[s]);
      });
      if (o.cublas_first) {
        run_cublas();
        run_aegis();
      } else {
        run_aegis();
        run_cublas();
      }
      AEGIS_BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
      progress.clear();
      for (const LibRun* run : {&res.aegis_det, &res.aegis_atomics, &res.cublas, &res.cublas_atomics})
        if (run->ran && !run->verified) {
          ++failures;
          std::fprintf(stderr, "aegis-bench: %s n=%lld failed verification (max normalized error %.3g)\n",
                       r.name().c_str(), (long long)n, run->error);
        }
      const double cub_best = std::max(res.cublas.verified ? res.cublas.gbs : 0.0,
                                       res.cublas_atomics.verified ? res.cublas_atomics.gbs : 0.0);
      const double aeg_best = std::max(res.aegis_det.verified ? res.aegis_det.gbs : 0.0,
                                       res.aegis_atomics.verified ? res.aegis_atomics.gbs : 0.0);
      auto pct = [&](const LibRun& x) {
        return x.verified ? format_text("%.1f", 100.0 * x.gbs / bandwidth) : std::string("-");
      };
      table.print_row({r.name(), std::to_string(n), cell(res.aegis_det), pct(res.aegis_det),
                       cell(res.aegis_atomics), pct(res.aegis_atomics), cell(res.cublas),
                       cell(res.cublas_atomics),
                       res.aegis_det.verified && res.cublas.verified
                           ? format_text("%.3f", res.aegis_det.gbs / res.cublas.gbs) : "-",
                       cub_best > 0 && aeg_best > 0 ? format_text("%.3f", aeg_best / cub_best) : "-",
                       res.aegis_det.config + " Y=" + std::to_string(res.aegis_det.y_split) +
                           (res.aegis_det.sums == AEGIS_BLAS2_SUMS_CLUSTER ? "c" : "") +
                           (res.aegis_atomics.ran ? "/" + std::to_string(res.aegis_atomics.y_split) +
                                                        (res.aegis_atomics.sums == AEGIS_BLAS2_SUMS_CLUSTER ? "c" : "")
                                                  : "")});
      results.push_back(res);
    }
  const ReadCeiling ceiling_end = measure_read_ceiling(stream, o.timing);
  std::printf("\nread ceiling at the end: %s\n", ceiling_text(ceiling_end).c_str());
  if (failures) std::printf("\nverification FAILED for %d results\n", failures);

  if (!o.json_path.empty()) {
    JsonWriter j;
    j.begin_object()
        .field("tool", "aegis-bench")
        .field("subcommand", invocation.subcommand)
        .field("command", invocation.command_line)
        .field("date", utc_timestamp());
    j.key("device").begin_object().field("name", device.name).field("sm_count", device.sm_count)
        .field("l2_bytes", device.l2_bytes).field("cc", device.compute_capability()).end_object();
    j.field("cublas_version", cublas_version)
        .field("aegis_tuning_table", aegisGetTuningTableName(ah))
        .field("bandwidth_gbs", bandwidth)
        .field("bandwidth_source", o.bandwidth_measured
                                       ? "read_ceiling.start_gbs (--bandwidth measured)"
                                       : "--bandwidth (default 4545, the H200 baseline's)");
    // null where not measured (no buffer could be had)
    j.key("read_ceiling").begin_object()
        .field("method", kReadCeilingMethod)
        .field("bytes", ceiling_start.bytes)
        .field("start_gbs", ceiling_start.gbs > 0 ? ceiling_start.gbs : kNaN)
        .field("end_gbs", ceiling_end.gbs > 0 ? ceiling_end.gbs : kNaN)
        .end_object();
    j.field("reps", o.timing.timed_runs)
        .field("timing", o.timing.queued ? "queued" : "launch")
        .field("lda_pad", o.lda_pad)
        .field("forced_config", o.config)
        .field("bytes_counted", "GEMV: n^2 + 2n elements; SYMV/HEMV: n(n+1)/2 + 2n elements");
    j.key("results").begin_array();
    for (const Result& r : results) {
      j.begin_object().field("routine", r.routine.name()).field("n", r.n).field("bytes", r.bytes);
      write_run(j, "aegis_deterministic", r.aegis_det);
      write_run(j, "aegis_atomics", r.aegis_atomics);
      write_run(j, "cublas", r.cublas);
      write_run(j, "cublas_atomics_allowed", r.cublas_atomics);
      j.end_object();
    }
    j.end_array().field("verification_failures", failures).end_object();
    if (!j.save(o.json_path)) {
      std::fprintf(stderr, "aegis-bench: cannot write %s\n", o.json_path.c_str());
      return 1;
    }
  }
  AEGIS_BENCH_CHECK_CUBLAS(cublasDestroy(ch));
  AEGIS_BENCH_CHECK_AEGIS(nullptr, aegisDestroy(ah));
  AEGIS_BENCH_CHECK_CUDA(cudaStreamDestroy(stream));
  return failures ? 1 : 0;
}

}  // namespace aegis::bench
