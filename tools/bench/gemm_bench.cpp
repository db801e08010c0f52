#include "gemm_bench.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "console.h"
#include "csv_writer.h"
#include "cuda_check.h"
#include "device.h"
#include "device_kernels.h"
#include "event_timer.h"
#include "gemm_check.h"
#include "json_writer.h"

namespace aegis::bench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct GemmShape {
  int64_t m, n, k;
  bool is_square() const { return m == n && n == k; }
  std::string text() const {
    return format_text("%lldx%lldx%lld", (long long)m, (long long)n, (long long)k);
  }
};

struct GemmOp {
  aegisOperation_t a, b;
  std::string text() const {
    return std::string(a == AEGIS_OP_N ? "N" : "T") + (b == AEGIS_OP_N ? "N" : "T");
  }
};

struct GemmCase {
  GemmShape shape;
  GemmOp op;
  std::string text() const { return shape.text() + " " + op.text(); }
};

const std::vector<GemmShape> kSquareSuite = {{1024, 1024, 1024},
                                             {2048, 2048, 2048},
                                             {4096, 4096, 4096},
                                             {8192, 8192, 8192},
                                             {16384, 16384, 16384}};
// The irregular shapes of BASELINE-H200.md: thin K, tall and wide panels, small problems.
const std::vector<GemmShape> kIrregularSuite = {
    {8192, 8192, 1024}, {16384, 16384, 1024}, {4096, 128, 4096}, {128, 4096, 4096},
    {65536, 128, 128},  {4096, 4096, 128},    {384, 384, 256},   {256, 256, 256},
    {160, 160, 256},    {128, 128, 128},      {64, 64, 256}};

struct GemmOptions {
  std::string suite = "default";
  std::vector<GemmShape> shapes;  // --shapes, replacing the suite's
  std::vector<GemmOp> ops = {{AEGIS_OP_N, AEGIS_OP_N}};
  TimingPlan timing;
  bool reps_given = false;
  std::string json_path, csv_path;
  uint64_t seed = 1;
  double ceiling_gflops = 63800;  // measured FFMA ceiling of one H200 (BASELINE-H200.md)
  bool with_cublas = true;
};

// One library's outcome on one case. Times stay NaN unless the result verified.
struct LibraryRun {
  bool ran = false;
  bool verified = false;
  double max_error = kNaN;  // see GemmCheck: units of the rounding bound, pass <= 2
  TimingStats timing;
  double gflops = kNaN;
  std::string kernel;  // aegis only: configuration and split-K of the last call
  int split_k = 0;
};

struct GemmResult {
  GemmCase gemm_case;
  LibraryRun aegis, cublas;
  double ratio = kNaN;  // aegis GFLOP/s over cuBLAS GFLOP/s, when both verified
};

}  // namespace

void print_gemm_usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: aegis-bench gemm [options]\n"
      "\n"
      "SGEMM (FP32 on CUDA cores, no TF32) of aegis against cuBLAS, C = A B with alpha = 1,\n"
      "beta = 0, column-major, tight leading dimensions. A shape MxNxK means op(A) is M x K\n"
      "and op(B) is K x N; a transposed operand is stored the other way round.\n"
      "\n"
      "  --suite NAME          default | quick | squares | irregular (default: default)\n"
      "                        squares: 1024..16384 cubes; irregular: BASELINE-H200.md's other\n"
      "                        shapes; default: both; quick: both with --reps 10\n"
      "  --shapes LIST         MxNxK[,MxNxK...] instead of the suite's shapes\n"
      "  --trans LIST          NN,NT,TN,TT (default NN)\n"
      "  --reps N              timed runs per library and shape (default 20)\n"
      "  --warmup N            untimed runs first (default 3)\n"
      "  --min-time-ms T       keep timing batches of N runs until T ms are measured\n"
      "  --json FILE           write all results as JSON\n"
      "  --csv FILE            write all results as CSV\n"
      "  --seed S              seed of the random operands (default 1)\n"
      "  --ceiling-gflops G    %% of ceiling column is against G (default 63800, FFMA on H200)\n"
      "  --no-cublas           time aegis only\n"
      "  --help                this text\n"
      "\n"
      "Each result is checked first, in FP64 on the GPU: all of C through a random\n"
      "projection (C x against A (B x)) and 8 rows and 8 columns of C element by element,\n"
      "each difference against twice its rounding bound gamma_k |A| |B| (gamma_k = k u /\n"
      "(1 - k u), u = 2^-24). A result that fails is shown as FAILED, its time is not\n"
      "counted, and the exit status is 1.\n");
}

namespace {

GemmShape parse_shape(OptionReader& reader, const std::string& text) {
  std::vector<std::string> sizes = split(text, 'x');
  int64_t values[3] = {0, 0, 0};
  bool valid = sizes.size() == 3;
  for (size_t i = 0; valid && i < 3; ++i) {
    char* end = nullptr;
    long long value = std::strtoll(sizes[i].c_str(), &end, 10);
    // cublasSgemm_v2 takes int sizes.
    valid = !sizes[i].empty() && *end == '\0' && value >= 1 && value <= INT_MAX;
    values[i] = value;
  }
  if (!valid)
    reader.reject("bad shape '" + text + "', expected MxNxK with sizes 1.." +
                  std::to_string(INT_MAX));
  return {values[0], values[1], values[2]};
}

GemmOptions parse_gemm_options(const Invocation& invocation) {
  GemmOptions options;
  OptionReader reader(invocation);
  while (reader.next()) {
    if (reader.is("--suite")) {
      options.suite = reader.text();
      if (options.suite != "default" && options.suite != "quick" && options.suite != "squares" &&
          options.suite != "irregular")
        reader.reject("unknown suite '" + options.suite + "'");
    } else if (reader.is("--shapes")) {
      for (const std::string& piece : split(reader.text(), ','))
        options.shapes.push_back(parse_shape(reader, piece));
    } else if (reader.is("--trans")) {
      options.ops.clear();
      for (std::string piece : split(reader.text(), ',')) {
        for (char& c : piece) c = char(std::toupper(static_cast<unsigned char>(c)));
        if (piece.size() != 2 || piece.find_first_not_of("NT") != std::string::npos)
          reader.reject("bad transpose pair '" + piece + "', expected NN, NT, TN or TT");
        options.ops.push_back(
            {piece[0] == 'N' ? AEGIS_OP_N : AEGIS_OP_T, piece[1] == 'N' ? AEGIS_OP_N : AEGIS_OP_T});
      }
    } else if (reader.is("--reps")) {
      options.timing.timed_runs = int(std::min<int64_t>(reader.integer(1), 100000));
      options.reps_given = true;
    } else if (reader.is("--warmup")) {
      options.timing.warmup_runs = int(std::min<int64_t>(reader.integer(0), 100000));
    } else if (reader.is("--min-time-ms")) {
      options.timing.min_time_ms = reader.number(0);
    } else if (reader.is("--json")) {
      options.json_path = reader.text();
    } else if (reader.is("--csv")) {
      options.csv_path = reader.text();
    } else if (reader.is("--seed")) {
      options.seed = uint64_t(reader.integer(0));
    } else if (reader.is("--ceiling-gflops")) {
      options.ceiling_gflops = reader.number(0);
      if (options.ceiling_gflops == 0) reader.reject("option '--ceiling-gflops' must be positive");
    } else if (reader.is("--no-cublas")) {
      options.with_cublas = false;
    } else {
      reader.reject_unknown();
    }
  }
  if (options.suite == "quick" && !options.reps_given) options.timing.timed_runs = 10;
  if (!options.shapes.empty()) options.suite = "custom (--shapes)";  // as reports show it
  if (options.shapes.empty()) {
    if (options.suite != "irregular") options.shapes = kSquareSuite;
    if (options.suite != "squares")
      options.shapes.insert(options.shapes.end(), kIrregularSuite.begin(), kIrregularSuite.end());
  }
  return options;
}

// Operand sets of one case: consecutive calls use different memory so that each finds
// its operands out of L2.
struct OperandSets {
  int64_t count = 0;
  std::vector<float*> a, b, c;
  int64_t lda = 0, ldb = 0, ldc = 0;
  GemmOperands operands(const GemmCase& gemm_case, int64_t set) const {
    const GemmShape& s = gemm_case.shape;
    return {gemm_case.op.a, gemm_case.op.b, s.m, s.n, s.k, a[set], lda, b[set], ldb};
  }
};

size_t operand_bytes(const GemmShape& s, int64_t sets) {
  return size_t(sets) * (DeviceArena::footprint_of<float>(s.m * s.k) +
                         DeviceArena::footprint_of<float>(s.k * s.n) +
                         DeviceArena::footprint_of<float>(s.m * s.n));
}

// Random A and B in every set (C is write-only with beta = 0). Every case, set and
// operand draws from its own hash stream.
OperandSets make_operand_sets(DeviceArena& arena, const GemmCase& gemm_case, int64_t sets,
                              uint64_t seed, uint64_t case_stream, cudaStream_t stream) {
  const GemmShape& s = gemm_case.shape;
  OperandSets operands;
  operands.count = sets;
  operands.lda = gemm_case.op.a == AEGIS_OP_N ? s.m : s.k;
  operands.ldb = gemm_case.op.b == AEGIS_OP_N ? s.k : s.n;
  operands.ldc = s.m;
  for (int64_t set = 0; set < sets; ++set) {
    operands.a.push_back(arena.take<float>(s.m * s.k));
    operands.b.push_back(arena.take<float>(s.k * s.n));
    operands.c.push_back(arena.take<float>(s.m * s.n));
    uint64_t set_stream = case_stream | (uint64_t(set) << 2);
    AEGIS_BENCH_CHECK_CUDA(fill_uniform(operands.a[set], s.m * s.k, seed, set_stream | 1, stream));
    AEGIS_BENCH_CHECK_CUDA(fill_uniform(operands.b[set], s.k * s.n, seed, set_stream | 2, stream));
  }
  return operands;
}

// Checks one library on set 0, then times it over all sets if the result passed. The
// checked call writes into a C of NaNs, so an element the library never writes fails.
void measure(const GemmCase& gemm_case, const OperandSets& operands, const GemmCheck& checker,
             cudaStream_t stream, const TimingPlan& plan,
             const std::function<void(int64_t set)>& call, LibraryRun& run) {
  const GemmShape& s = gemm_case.shape;
  AEGIS_BENCH_CHECK_CUDA(
      cudaMemsetAsync(operands.c[0], 0xFF, size_t(s.m * s.n) * sizeof(float), stream));
  call(0);
  CheckResult check = checker.check(operands.c[0], operands.ldc, 1.0, stream);
  run.ran = true;
  run.verified = check.passed;
  run.max_error = check.max_error;
  if (!run.verified) return;
  run.timing =
      time_on_stream(stream, plan, [&](int64_t call_index) { call(call_index % operands.count); });
  run.gflops = 2.0 * double(s.m) * double(s.n) * double(s.k) / (run.timing.median_ms * 1e6);
}

std::string version_text(int version) {  // MAJOR * 10000 + MINOR * 100 + PATCH
  return format_text("%d.%d.%d", version / 10000, version / 100 % 100, version % 100);
}

struct Summary {
  double median_square_ratio = kNaN;  // squares 2048..16384
  int square_count = 0;
  double min_nonsquare_ratio = kNaN;
  std::string min_nonsquare_case;
  int failures = 0;
};

Summary summarize(const std::vector<GemmResult>& results) {
  Summary summary;
  std::vector<double> square_ratios;
  for (const GemmResult& r : results) {
    summary.failures += (r.aegis.ran && !r.aegis.verified) + (r.cublas.ran && !r.cublas.verified);
    if (std::isnan(r.ratio)) continue;
    const GemmShape& s = r.gemm_case.shape;
    if (s.is_square() && s.m >= 2048 && s.m <= 16384) {
      square_ratios.push_back(r.ratio);
    } else if (!s.is_square() &&
               (summary.min_nonsquare_case.empty() || r.ratio < summary.min_nonsquare_ratio)) {
      summary.min_nonsquare_ratio = r.ratio;
      summary.min_nonsquare_case = r.gemm_case.text();
    }
  }
  std::sort(square_ratios.begin(), square_ratios.end());
  summary.square_count = int(square_ratios.size());
  size_t middle = square_ratios.size() / 2;
  if (!square_ratios.empty())
    summary.median_square_ratio = square_ratios.size() % 2
                                      ? square_ratios[middle]
                                      : 0.5 * (square_ratios[middle - 1] + square_ratios[middle]);
  return summary;
}

std::string gflops_cell(const LibraryRun& run) {
  if (!run.ran) return "-";
  return run.verified ? format_text("%.0f", run.gflops) : "FAILED";
}

std::vector<std::string> table_row(const GemmResult& r, double ceiling_gflops) {
  const GemmShape& s = r.gemm_case.shape;
  bool failed = (r.aegis.ran && !r.aegis.verified) || (r.cublas.ran && !r.cublas.verified);
  return {
      std::to_string(s.m),
      std::to_string(s.n),
      std::to_string(s.k),
      r.gemm_case.op.text(),
      gflops_cell(r.aegis),
      gflops_cell(r.cublas),
      std::isnan(r.ratio) ? "-" : format_text("%.3f", r.ratio),
      r.aegis.verified ? format_text("%.1f", 100.0 * r.aegis.gflops / ceiling_gflops) : "-",
      failed ? "FAILED" : "yes",
      r.aegis.kernel.empty() ? "-" : r.aegis.kernel + " split=" + std::to_string(r.aegis.split_k)};
}

void write_library_json(JsonWriter& json, const LibraryRun& run, bool is_aegis) {
  json.begin_object()
      .field("median_ms", run.verified ? run.timing.median_ms : kNaN)
      .field("min_ms", run.verified ? run.timing.min_ms : kNaN)
      .field("max_ms", run.verified ? run.timing.max_ms : kNaN)
      .field("runs", run.timing.runs)
      .field("gflops", run.gflops)
      .field("verified", run.verified)
      .field("max_err", run.max_error);
  if (is_aegis) json.field("kernel", run.kernel).field("split_k", run.split_k);
  json.end_object();
}

void write_json(const std::string& path, const Invocation& invocation, const DeviceInfo& device,
                aegisHandle_t aegis_handle, int cublas_version, const GemmOptions& options,
                const std::vector<GemmResult>& results, const Summary& summary) {
  JsonWriter json;
  json.begin_object()
      .field("tool", "aegis-bench")
      .field("subcommand", invocation.subcommand)
      .field("command", invocation.command_line)
      .field("date", utc_timestamp());
  json.key("device")
      .begin_object()
      .field("name", device.name)
      .field("sm_count", device.sm_count)
      .field("l2_bytes", device.l2_bytes)
      .field("cc", device.compute_capability())
      .end_object();
  json.field("aegis_version", version_text(aegisGetVersion()))
      .field("aegis_tuning_table", aegisGetTuningTableName(aegis_handle))
      .field("cublas_version", version_text(cublas_version));
  json.key("settings")
      .begin_object()
      .field("precision", "fp32")
      .field("suite", options.suite)
      .field("reps", options.timing.timed_runs)
      .field("warmup", options.timing.warmup_runs)
      .field("min_time_ms", options.timing.min_time_ms)
      .field("seed", int64_t(options.seed))
      .field("ceiling", options.ceiling_gflops)
      .field("alpha", 1.0)
      .field("beta", 0.0)
      .field("max_err_unit", "gamma_k |op(A)| |op(B)| (times |x| for the projection); pass <= 2")
      .end_object();
  json.key("results").begin_array();
  for (const GemmResult& r : results) {
    json.begin_object()
        .field("m", r.gemm_case.shape.m)
        .field("n", r.gemm_case.shape.n)
        .field("k", r.gemm_case.shape.k)
        .field("op", r.gemm_case.op.text());
    json.key("aegis");
    write_library_json(json, r.aegis, true);
    json.key("cublas");
    if (r.cublas.ran)
      write_library_json(json, r.cublas, false);
    else
      json.null();
    json.field("ratio", r.ratio).end_object();
  }
  json.end_array();
  json.key("summary")
      .begin_object()
      .field("median_ratio_squares_2048_16384", summary.median_square_ratio)
      .field("squares_counted", summary.square_count)
      .field("min_ratio_nonsquare", summary.min_nonsquare_ratio)
      .field("min_ratio_nonsquare_case", summary.min_nonsquare_case)
      .field("verification_failures", summary.failures)
      .end_object();
  json.end_object();
  if (!json.save(path)) {
    std::fprintf(stderr, "aegis-bench: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

void write_csv(const std::string& path, const std::vector<GemmResult>& results) {
  CsvWriter csv({"m", "n", "k", "op", "aegis_median_ms", "aegis_min_ms", "aegis_max_ms",
                 "aegis_gflops", "aegis_verified", "aegis_max_err", "aegis_kernel", "aegis_split_k",
                 "cublas_median_ms", "cublas_min_ms", "cublas_max_ms", "cublas_gflops",
                 "cublas_verified", "cublas_max_err", "ratio"});
  auto times = [](const LibraryRun& run) {
    if (!run.verified) return std::vector<std::string>{"", "", ""};
    return std::vector<std::string>{CsvWriter::number(run.timing.median_ms),
                                    CsvWriter::number(run.timing.min_ms),
                                    CsvWriter::number(run.timing.max_ms)};
  };
  for (const GemmResult& r : results) {
    std::vector<std::string> row = {std::to_string(r.gemm_case.shape.m),
                                    std::to_string(r.gemm_case.shape.n),
                                    std::to_string(r.gemm_case.shape.k), r.gemm_case.op.text()};
    for (const std::string& cell : times(r.aegis)) row.push_back(cell);
    row.insert(row.end(), {CsvWriter::number(r.aegis.gflops), r.aegis.verified ? "true" : "false",
                           CsvWriter::number(r.aegis.max_error), r.aegis.kernel,
                           std::to_string(r.aegis.split_k)});
    for (const std::string& cell : times(r.cublas)) row.push_back(cell);
    row.insert(row.end(), {CsvWriter::number(r.cublas.gflops),
                           r.cublas.ran ? (r.cublas.verified ? "true" : "false") : "",
                           CsvWriter::number(r.cublas.max_error), CsvWriter::number(r.ratio)});
    csv.add_row(row);
  }
  if (!csv.save(path)) {
    std::fprintf(stderr, "aegis-bench: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

// The two libraries under test, sharing one stream.
struct Libraries {
  cudaStream_t stream = nullptr;
  aegisHandle_t aegis = nullptr;
  cublasHandle_t cublas = nullptr;
  int cublas_version = 0;
};

Libraries open_libraries() {
  Libraries libs;
  AEGIS_BENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&libs.stream, cudaStreamNonBlocking));
  AEGIS_BENCH_CHECK_AEGIS(nullptr, aegisCreate(&libs.aegis));
  AEGIS_BENCH_CHECK_AEGIS(libs.aegis, aegisSetStream(libs.aegis, libs.stream));
  AEGIS_BENCH_CHECK_AEGIS(libs.aegis, aegisSetPointerMode(libs.aegis, AEGIS_POINTER_MODE_HOST));
  AEGIS_BENCH_CHECK_CUBLAS(cublasCreate(&libs.cublas));
  AEGIS_BENCH_CHECK_CUBLAS(cublasSetStream(libs.cublas, libs.stream));
  AEGIS_BENCH_CHECK_CUBLAS(cublasSetMathMode(libs.cublas, CUBLAS_DEFAULT_MATH));  // no TF32
  AEGIS_BENCH_CHECK_CUBLAS(cublasGetVersion(libs.cublas, &libs.cublas_version));
  return libs;
}

void close_libraries(const Libraries& libs) {
  AEGIS_BENCH_CHECK_CUBLAS(cublasDestroy(libs.cublas));
  AEGIS_BENCH_CHECK_AEGIS(nullptr, aegisDestroy(libs.aegis));
  AEGIS_BENCH_CHECK_CUDA(cudaStreamDestroy(libs.stream));
}

// Everything one case needs lives in one arena, freed on return (a 16384^3 set is 3 GiB).
GemmResult run_case(const GemmCase& gemm_case, size_t case_index, const GemmOptions& options,
                    const DeviceInfo& device, const Libraries& libs) {
  const GemmShape& s = gemm_case.shape;
  GemmResult result;
  result.gemm_case = gemm_case;
  int64_t bytes_per_set = int64_t(sizeof(float)) * (s.m * s.k + s.k * s.n + s.m * s.n);
  int64_t sets = rotation_set_count(bytes_per_set, device.l2_bytes);
  DeviceArena arena(operand_bytes(s, sets) + GemmCheck::device_bytes(s.m, s.n, s.k));
  uint64_t case_stream = uint64_t(case_index) << 40;
  OperandSets operands =
      make_operand_sets(arena, gemm_case, sets, options.seed, case_stream, libs.stream);
  GemmCheck checker(arena, operands.operands(gemm_case, 0), options.seed, case_stream | 3,
                    libs.stream);

  const float alpha = 1.0f, beta = 0.0f;
  auto call_aegis = [&](int64_t set) {
    AEGIS_BENCH_CHECK_AEGIS(
        libs.aegis, aegisSgemm(libs.aegis, gemm_case.op.a, gemm_case.op.b, s.m, s.n, s.k, &alpha,
                               operands.a[set], operands.lda, operands.b[set], operands.ldb, &beta,
                               operands.c[set], operands.ldc));
    const char* kernel = nullptr;
    AEGIS_BENCH_CHECK_AEGIS(libs.aegis,
                            aegisGetLastSgemmChoice(libs.aegis, &kernel, &result.aegis.split_k));
    result.aegis.kernel = kernel ? kernel : "";
  };
  auto call_cublas = [&](int64_t set) {
    auto op = [](aegisOperation_t o) { return o == AEGIS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T; };
    AEGIS_BENCH_CHECK_CUBLAS(cublasSgemm_v2(libs.cublas, op(gemm_case.op.a), op(gemm_case.op.b),
                                            int(s.m), int(s.n), int(s.k), &alpha, operands.a[set],
                                            int(operands.lda), operands.b[set], int(operands.ldb),
                                            &beta, operands.c[set], int(operands.ldc)));
  };
  measure(gemm_case, operands, checker, libs.stream, options.timing, call_aegis, result.aegis);
  if (options.with_cublas)
    measure(gemm_case, operands, checker, libs.stream, options.timing, call_cublas, result.cublas);
  if (result.aegis.verified && result.cublas.verified)
    result.ratio = result.aegis.gflops / result.cublas.gflops;
  return result;
}

}  // namespace

int run_gemm(const Invocation& invocation) {
  GemmOptions options = parse_gemm_options(invocation);
  DeviceInfo device = require_device();
  Libraries libs = open_libraries();

  std::vector<GemmCase> cases;
  for (const GemmShape& shape : options.shapes)
    for (const GemmOp& op : options.ops) cases.push_back({shape, op});

  std::printf(
      "aegis-bench gemm: %s (%d SMs, L2 %.0f MiB, cc %s), aegis %s, cuBLAS %s, "
      "%d timed runs after %d warm-up\n\n",
      device.name.c_str(), device.sm_count, double(device.l2_bytes) / (1 << 20),
      device.compute_capability().c_str(), version_text(aegisGetVersion()).c_str(),
      version_text(libs.cublas_version).c_str(), options.timing.timed_runs,
      options.timing.warmup_runs);
  TablePrinter table({{"m", 6, false},
                      {"n", 6, false},
                      {"k", 6, false},
                      {"op", 2, true},
                      {"aegis GF/s", 10, false},
                      {"cuBLAS GF/s", 11, false},
                      {"ratio", 6, false},
                      {"%ceil", 5, false},
                      {"verified", 8, true},
                      {"kernel", 6, true}});
  table.print_header();
  ProgressLine progress;
  std::vector<GemmResult> results;
  for (size_t index = 0; index < cases.size(); ++index) {
    progress.show(
        format_text("[%zu/%zu] %s ...", index + 1, cases.size(), cases[index].text().c_str()));
    GemmResult result = run_case(cases[index], index, options, device, libs);
    progress.clear();
    for (const auto& [library, run] :
         {std::pair{"aegis", &result.aegis}, std::pair{"cuBLAS", &result.cublas}})
      if (run->ran && !run->verified)
        std::fprintf(stderr,
                     "aegis-bench: %s result of %s failed verification: max normalized "
                     "error %.3g (limit %g)\n",
                     library, cases[index].text().c_str(), run->max_error, GemmCheck::kErrorLimit);
    table.print_row(table_row(result, options.ceiling_gflops));
    results.push_back(result);
  }

  Summary summary = summarize(results);
  auto ratio_text = [](double ratio) {
    return std::isnan(ratio) ? std::string("n/a") : format_text("%.3f", ratio);
  };
  std::printf("\nmedian aegis/cuBLAS ratio over squares 2048-16384: %s (%d results)\n",
              ratio_text(summary.median_square_ratio).c_str(), summary.square_count);
  std::printf("minimum aegis/cuBLAS ratio over non-square shapes: %s%s%s\n",
              ratio_text(summary.min_nonsquare_ratio).c_str(),
              summary.min_nonsquare_case.empty() ? "" : " at ", summary.min_nonsquare_case.c_str());
  if (summary.failures > 0) std::printf("verification FAILED for %d results\n", summary.failures);

  if (!options.json_path.empty())
    write_json(options.json_path, invocation, device, libs.aegis, libs.cublas_version, options,
               results, summary);
  if (!options.csv_path.empty()) write_csv(options.csv_path, results);
  close_libraries(libs);
  return summary.failures > 0 ? 1 : 0;
}

}  // namespace aegis::bench
