#include "gemm_bench.h"

#include <algorithm>
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
#include "gemm_call.h"
#include "gemm_case.h"
#include "gemm_check.h"
#include "gemm_types.h"
#include "json_writer.h"

namespace aegis::bench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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
// Long K with power-of-two strides: the tight leading dimensions (m or k for A, k or n for B,
// m for C) are all powers of two here, the strides that alias cache sets and DRAM channels.
const std::vector<GemmShape> kKpow2Suite = {{2048, 2048, 16384},
                                            {4096, 4096, 16384},
                                            {2048, 2048, 65536},
                                            {1024, 1024, 131072},
                                            {8192, 8192, 8192}};

// Ceilings of the %ceil column on one H200 (BASELINE-H200.md): the measured FFMA ceiling for
// SGEMM, the datasheet's dense FP16/BF16 tensor peak for 16-bit operands.
constexpr double kFfmaCeilingGflops = 63800;
constexpr double kTensorCeilingGflops = 990000;

// One fault-tolerance setting aegis is timed under (--ft).
struct FtSetting {
  std::string name;  // off, block, warp, thread, nonfused
  bool on = false;
  aegisFtLevel_t level = AEGIS_FT_LEVEL_BLOCK;
};

const std::vector<FtSetting> kFtSettings = {{"off", false, AEGIS_FT_LEVEL_BLOCK},
                                            {"block", true, AEGIS_FT_LEVEL_BLOCK},
                                            {"warp", true, AEGIS_FT_LEVEL_WARP},
                                            {"thread", true, AEGIS_FT_LEVEL_THREAD},
                                            {"nonfused", true, AEGIS_FT_LEVEL_NONFUSED}};

struct GemmOptions {
  std::string suite = "default";
  std::vector<GemmShape> shapes;  // --shapes, replacing the suite's
  std::vector<GemmOp> ops = {{AEGIS_OP_N, AEGIS_OP_N}};
  TimingPlan timing;
  bool reps_given = false;
  int rounds = 2;  // --rounds: timing rounds per case, the library order reversed each round
  std::string json_path, csv_path;
  uint64_t seed = 1;
  double ceiling_gflops = kFfmaCeilingGflops;  // kTensorCeilingGflops for 16-bit operands
  bool with_cublas = true;
  // f32: SGEMM (aegisSgemm, cublasSgemm); f16 or bf16: aegisGemmEx and cublasGemmEx with
  // FP32 accumulation and C of ctype.
  aegisDataType_t dtype = AEGIS_R_32F;
  aegisDataType_t ctype = AEGIS_R_32F;
  std::string sgemm_config;    // --sgemm-config: the SIMT kernel aegis is forced to run
  int sgemm_max_split = 0;     // its split-K limit (0: the tuning row's)
  std::string tuning_table;    // --tuning-table: the table aegis's dispatch reads ("" = the GPU's)
  std::string gemm_ex_config;  // --gemm-ex-config: the tensor-core kernel aegis is forced to
  // Empty without --ft: aegis runs once per case as the handle comes (FT off) and reports
  // carry no FT fields, exactly as before FT existed.
  std::vector<FtSetting> ft;
  aegisFtMode_t ft_mode = AEGIS_FT_CORRECT;
  int64_t ft_interval = 0;  // --ft-interval: aegisSetFtVerifyInterval of the FT rows
};

// One library's outcome on one case. Times stay NaN unless the result verified.
struct LibraryRun {
  bool ran = false;
  bool verified = false;
  double max_error = kNaN;  // see GemmCheck: units of the rounding bound, pass <= 2
  TimingStats timing;
  double gflops = kNaN;
  std::string kernel;  // aegis only: configuration and split-K of the last call (0 for 16-bit)
  int split_k = 0;
};

// One row of the report: aegis under one FT setting, and cuBLAS on the same case (with
// --ft, every FT setting of a case shares one cuBLAS measurement).
struct GemmResult {
  GemmCase gemm_case;
  std::string ft;  // the FT setting's name; empty without --ft
  LibraryRun aegis, cublas;
  double ratio = kNaN;        // aegis GFLOP/s over cuBLAS GFLOP/s, when both verified
  double ft_overhead = kNaN;  // FT time over the FT-off time of the case, minus 1
  bool has_ft_stats = false;  // FT rows: the handle's statistics over this row's calls
  aegisFtStats_t ft_stats{};
  bool owns_cublas = true;    // the case's first row: counts cuBLAS's failure once
};

}  // namespace

void print_gemm_usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: aegis-bench gemm [options]\n"
      "\n"
      "GEMM of aegis against cuBLAS, C = A B with alpha = 1, beta = 0, column-major, tight\n"
      "leading dimensions. A shape MxNxK means op(A) is M x K and op(B) is K x N; a transposed\n"
      "operand is stored the other way round. --dtype f32 (the default) is SGEMM, FP32 on CUDA\n"
      "cores (no TF32): aegisSgemm against cublasSgemm. --dtype f16 or bf16 runs the tensor-core\n"
      "GEMM: aegisGemmEx against cublasGemmEx (CUBLAS_GEMM_DEFAULT), 16-bit A and B, FP32\n"
      "accumulation (AEGIS_COMPUTE_32F, CUBLAS_COMPUTE_32F), C of --ctype.\n"
      "\n"
      "  --dtype TYPE          f32 | f16 | bf16: type of A and B (default f32)\n"
      "  --ctype TYPE          f16 | bf16 | f32: type of C with --dtype f16 or bf16 (default:\n"
      "                        the input type); cuBLAS takes C of the input type or f32 only,\n"
      "                        so other pairs time aegis alone\n"
      "  --gemm-ex-config NAME force aegis's tensor-core kernel (aegisSetGemmExOverride; names\n"
      "                        from aegisGemmExConfigName); a shape the kernel cannot run falls\n"
      "                        back as dispatch does, and the kernel column shows what ran\n"
      "  --sgemm-config NAME[:SPLIT]\n"
      "                        force aegis's SGEMM kernel (aegisSetSgemmOverride; names from\n"
      "                        aegisSgemmConfigName) and its split-K limit (default: the\n"
      "                        tuning row's); --dtype f32 only\n"
      "  --tuning-table NAME   aegis dispatches from this tuning table (aegisSetTuningTable:\n"
      "                        h200, default) instead of its GPU's\n"
      "  --suite NAME          default | quick | squares | irregular | kpow2 (default: default)\n"
      "                        squares: 1024..16384 cubes; irregular: BASELINE-H200.md's other\n"
      "                        shapes; default: both; quick: both with --reps 10; kpow2: long K\n"
      "                        with power-of-two leading dimensions (2048x2048x16384,\n"
      "                        4096x4096x16384, 2048x2048x65536, 1024x1024x131072, 8192^3)\n"
      "  --shapes LIST         MxNxK[,MxNxK...] instead of the suite's shapes\n"
      "  --trans LIST          NN,NT,TN,TT (default NN)\n"
      "  --reps N              timed runs per library and shape (default 20)\n"
      "  --warmup N            untimed runs first (default 3)\n"
      "%s"
      "  --min-time-ms T       keep timing batches of N runs until T ms are measured\n"
      "  --rounds R            time each case in R rounds of --reps runs per library, the\n"
      "                        order reversed every round (aegis, cuBLAS, then cuBLAS, aegis,\n"
      "                        ...) and all runs pooled into one median, so that a drift\n"
      "                        during the case (the clock recovering after a power-capped\n"
      "                        case) favours neither library (default 2; 1: aegis first)\n"
      "  --json FILE           write all results as JSON\n"
      "  --csv FILE            write all results as CSV\n"
      "  --seed S              seed of the random operands (default 1)\n"
      "  --ceiling-gflops G    %% of ceiling column is against G (default 63800, FFMA on H200;\n"
      "                        990000, the dense FP16/BF16 tensor peak, for --dtype f16/bf16)\n"
      "  --no-cublas           time aegis only\n"
      "  --ft LIST             time aegis once per fault-tolerance setting: off, block,\n"
      "                        warp, thread, nonfused, e.g. --ft off,block,nonfused;\n"
      "                        FT rows show their overhead against the off row of the case\n"
      "                        (--dtype f32 only)\n"
      "  --ft-mode MODE        correct | detect: the mode of the FT rows (default correct)\n"
      "  --ft-interval K       the FT rows also check every K tiles of K\n"
      "                        (aegisSetFtVerifyInterval; default 0: once, after the loop)\n"
      "  --help                this text\n"
      "\n"
      "Each result is checked first, in FP64 on the GPU: all of C through a random\n"
      "projection (C x against A (B x)) and 8 rows and 8 columns of C element by element,\n"
      "each difference against twice its rounding bound gamma_k |A| |B| (gamma_k = k u /\n"
      "(1 - k u), u = 2^-24); with 16-bit A and B (exact products, FP32 sums, one rounding to\n"
      "C's type) the bound adds u_c / (1 - u_c) |C| + eta_c, u_c = 2^-11 (f16), 2^-8 (bf16),\n"
      "2^-24 (f32), eta_c half the subnormal spacing of C's type. Random operands are uniform\n"
      "in [-1, 1], rounded to the input type. A result that fails is shown as FAILED, its time\n"
      "is not counted, and the exit status is 1. After the FT rows of a case the handle's\n"
      "fault statistics are read: a clean run must detect nothing, so any detection is warned\n"
      "about and reported (JSON: ft_stats).\n", kTimingOptionHelp);
}

namespace {

// "a, b and c" for messages.
std::string gemm_ex_config_list() {
  std::string names;
  const int count = aegisGemmExConfigCount();
  for (int i = 0; i < count; ++i) {
    if (i > 0) names += (i + 1 == count) ? " and " : ", ";
    names += aegisGemmExConfigName(i);
  }
  return names.empty() ? std::string("none (this build has no tensor-core kernel)") : names;
}

bool is_sgemm_config(const std::string& name) {
  for (int i = 0; i < aegisSgemmConfigCount(); ++i)
    if (name == aegisSgemmConfigName(i)) return true;
  return false;
}

bool is_gemm_ex_config(const std::string& name) {
  for (int i = 0; i < aegisGemmExConfigCount(); ++i)
    if (name == aegisGemmExConfigName(i)) return true;
  return false;
}

GemmOptions parse_gemm_options(const Invocation& invocation) {
  GemmOptions options;
  options.timing.queued = true;  // --timing queued is the default
  bool ft_mode_given = false, ft_interval_given = false, ctype_given = false,
       ceiling_given = false;
  OptionReader reader(invocation);
  while (reader.next()) {
    if (reader.is("--suite")) {
      options.suite = reader.text();
      if (options.suite != "default" && options.suite != "quick" && options.suite != "squares" &&
          options.suite != "irregular" && options.suite != "kpow2")
        reader.reject("unknown suite '" + options.suite + "'");
    } else if (reader.is("--dtype") || reader.is("--ctype")) {
      const bool is_dtype = reader.is("--dtype");
      std::string name = reader.text();
      aegisDataType_t type = AEGIS_R_32F;
      if (!parse_element_type(name, &type))
        reader.reject("unknown type '" + name + "', expected f32, f16 or bf16");
      (is_dtype ? options.dtype : options.ctype) = type;
      ctype_given = ctype_given || !is_dtype;
    } else if (reader.is("--sgemm-config")) {
      const std::string text = reader.text();
      int64_t max_split = options.sgemm_max_split;
      const bool split_ok = split_name_and_number(text, 999, &options.sgemm_config, &max_split);
      if (!is_sgemm_config(options.sgemm_config))
        reader.reject("unknown SGEMM kernel '" + options.sgemm_config +
                      "' (aegisSgemmConfigName lists this build's)");
      if (!split_ok)
        reader.reject("split-K limit '" + text.substr(text.find(':') + 1) +
                      "' is not a number from 0 to 999");
      options.sgemm_max_split = int(max_split);
    } else if (reader.is("--tuning-table")) {
      options.tuning_table = reader.text();
    } else if (reader.is("--gemm-ex-config")) {
      options.gemm_ex_config = reader.text();
      if (!is_gemm_ex_config(options.gemm_ex_config))
        reader.reject("unknown tensor-core kernel '" + options.gemm_ex_config +
                      "'; this build has " + gemm_ex_config_list());
    } else if (reader.is("--shapes")) {
      for (const GemmShape& shape : parse_gemm_shapes(reader, reader.text()))
        options.shapes.push_back(shape);
    } else if (reader.is("--trans")) {
      options.ops = parse_gemm_ops(reader, reader.text());
    } else if (reader.is("--reps")) {
      options.timing.timed_runs = int(std::min<int64_t>(reader.integer(1), 100000));
      options.reps_given = true;
    } else if (reader.is("--warmup")) {
      options.timing.warmup_runs = int(std::min<int64_t>(reader.integer(0), 100000));
    } else if (reader.is("--timing")) {
      options.timing.queued = reader.queued_timing();
    } else if (reader.is("--rounds")) {
      options.rounds = int(std::min<int64_t>(reader.integer(1), 1000));
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
      ceiling_given = true;
      if (options.ceiling_gflops == 0) reader.reject("option '--ceiling-gflops' must be positive");
    } else if (reader.is("--no-cublas")) {
      options.with_cublas = false;
    } else if (reader.is("--ft")) {
      options.ft.clear();
      for (const std::string& name : split(reader.text(), ',')) {
        auto known = std::find_if(kFtSettings.begin(), kFtSettings.end(),
                                  [&](const FtSetting& setting) { return setting.name == name; });
        if (known == kFtSettings.end())
          reader.reject("unknown FT setting '" + name +
                        "', expected off, block, warp, thread or nonfused");
        for (const FtSetting& taken : options.ft)
          if (taken.name == name) reader.reject("FT setting '" + name + "' listed twice");
        options.ft.push_back(*known);
      }
    } else if (reader.is("--ft-mode")) {
      std::string mode = reader.text();
      if (mode != "correct" && mode != "detect")
        reader.reject("unknown FT mode '" + mode + "', expected correct or detect");
      options.ft_mode = mode == "correct" ? AEGIS_FT_CORRECT : AEGIS_FT_DETECT;
      ft_mode_given = true;
    } else if (reader.is("--ft-interval")) {
      options.ft_interval = reader.integer(0);
      ft_interval_given = true;
    } else {
      reader.reject_unknown();
    }
  }
  if (ft_mode_given && options.ft.empty())
    reader.reject("option '--ft-mode' needs --ft (the FT settings to time)");
  if (ft_interval_given && options.ft.empty())
    reader.reject("option '--ft-interval' needs --ft (the FT settings to time)");
  const bool tensor = options.dtype != AEGIS_R_32F;
  if (!ctype_given) options.ctype = options.dtype;
  if (!tensor && options.ctype != AEGIS_R_32F)
    reader.reject("option '--ctype' needs --dtype f16 or bf16 (SGEMM writes f32)");
  if (!tensor && !options.gemm_ex_config.empty())
    reader.reject("option '--gemm-ex-config' needs --dtype f16 or bf16");
  if (tensor && !options.sgemm_config.empty())
    reader.reject("option '--sgemm-config' needs --dtype f32");
  if (tensor && !options.ft.empty())
    reader.reject("option '--ft' needs --dtype f32 (fault tolerance is SGEMM's)");
  if (tensor && !ceiling_given) options.ceiling_gflops = kTensorCeilingGflops;
  if (options.suite == "quick" && !options.reps_given) options.timing.timed_runs = 10;
  if (!options.shapes.empty()) options.suite = "custom (--shapes)";  // as reports show it
  if (options.shapes.empty() && options.suite == "kpow2") options.shapes = kKpow2Suite;
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
  aegisDataType_t ab_type = AEGIS_R_32F, c_type = AEGIS_R_32F;
  std::vector<void*> a, b, c;
  int64_t lda = 0, ldb = 0, ldc = 0;
  GemmOperands operands(const GemmCase& gemm_case, int64_t set) const {
    const GemmShape& s = gemm_case.shape;
    return {gemm_case.op.a, gemm_case.op.b, s.m, s.n, s.k, a[set], lda, b[set], ldb, ab_type};
  }
  // alpha = 1, beta = 0 on one set.
  GemmCall call(const GemmCase& gemm_case, int64_t set) const {
    const GemmShape& s = gemm_case.shape;
    return {gemm_case.op, s.m, s.n, s.k, ab_type, c_type, a[set], lda, b[set], ldb, c[set], ldc};
  }
};

size_t operand_bytes(const GemmShape& s, int64_t sets, aegisDataType_t ab_type,
                     aegisDataType_t c_type) {
  return size_t(sets) * (DeviceArena::footprint(size_t(s.m * s.k) * element_bytes(ab_type)) +
                         DeviceArena::footprint(size_t(s.k * s.n) * element_bytes(ab_type)) +
                         DeviceArena::footprint(size_t(s.m * s.n) * element_bytes(c_type)));
}

// Random A and B in every set (C is write-only with beta = 0). Every case, set and
// operand draws from its own hash stream.
OperandSets make_operand_sets(DeviceArena& arena, const GemmCase& gemm_case, int64_t sets,
                              aegisDataType_t ab_type, aegisDataType_t c_type, uint64_t seed,
                              uint64_t case_stream, cudaStream_t stream) {
  const GemmShape& s = gemm_case.shape;
  OperandSets operands;
  operands.count = sets;
  operands.ab_type = ab_type;
  operands.c_type = c_type;
  operands.lda = gemm_case.op.a == AEGIS_OP_N ? s.m : s.k;
  operands.ldb = gemm_case.op.b == AEGIS_OP_N ? s.k : s.n;
  operands.ldc = s.m;
  const int64_t ab_bytes = int64_t(element_bytes(ab_type));
  const int64_t c_bytes = int64_t(element_bytes(c_type));
  for (int64_t set = 0; set < sets; ++set) {
    operands.a.push_back(arena.take<char>(s.m * s.k * ab_bytes));
    operands.b.push_back(arena.take<char>(s.k * s.n * ab_bytes));
    operands.c.push_back(arena.take<char>(s.m * s.n * c_bytes));
    uint64_t set_stream = case_stream | (uint64_t(set) << 2);
    AEGIS_BENCH_CHECK_CUDA(
        fill_uniform(ab_type, operands.a[set], s.m * s.k, seed, set_stream | 1, stream));
    AEGIS_BENCH_CHECK_CUDA(
        fill_uniform(ab_type, operands.b[set], s.k * s.n, seed, set_stream | 2, stream));
  }
  return operands;
}

// Checks one library on set 0. The checked call writes into a C of NaNs (all-ones bytes are
// NaN in every C type), so an element the library never writes fails.
void check_library(const GemmCase& gemm_case, const OperandSets& operands,
                   const GemmCheck& checker, cudaStream_t stream,
                   const std::function<void(int64_t set)>& call, LibraryRun& run) {
  const GemmShape& s = gemm_case.shape;
  AEGIS_BENCH_CHECK_CUDA(cudaMemsetAsync(
      operands.c[0], 0xFF, size_t(s.m * s.n) * element_bytes(operands.c_type), stream));
  call(0);
  CheckResult check = checker.check(operands.c[0], operands.c_type, operands.ldc, 1.0, stream);
  run.ran = true;
  run.verified = check.passed;
  run.max_error = check.max_error;
}

// One verified library of a case (aegis under one FT setting, or cuBLAS) in the timing
// rounds: its runs of every round are pooled into one median.
struct TimedLibrary {
  LibraryRun* run = nullptr;
  std::function<void(int64_t set)> call;
  std::function<void()> before;  // puts the handle in this library's setting
  std::function<void()> after;   // collects what its calls left on the handle
  std::vector<double> times_ms;
  RunsInfo runs_info;            // host times and gate failures of every round
  int64_t call_index = 0;        // over all rounds, so that the operand sets keep rotating
};

// Times the libraries in `rounds` rounds, each library --reps runs (after its warm-up) per
// round, the order reversed every other round (A B, B A, A B, ...). Whatever drifts during a
// case (the SM clock recovering from the power cap of the previous, larger case) then favours
// neither library (measured: docs/perf-notes.md TC-9); one round is the order of the list.
void time_in_rounds(std::vector<TimedLibrary>& libraries, int rounds, const GemmCase& gemm_case,
                    const OperandSets& operands, cudaStream_t stream, const TimingPlan& plan) {
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < libraries.size(); ++i) {
      TimedLibrary& library = libraries[round % 2 ? libraries.size() - 1 - i : i];
      if (library.before) library.before();
      std::vector<double> times = time_runs_on_stream(
          stream, plan, [&](int64_t call_index) { library.call(call_index % operands.count); },
          library.call_index, &library.runs_info);
      library.call_index += plan.warmup_runs + int64_t(times.size());
      library.times_ms.insert(library.times_ms.end(), times.begin(), times.end());
      if (library.after) library.after();
    }
  }
  const GemmShape& s = gemm_case.shape;
  for (TimedLibrary& library : libraries) {
    library.run->timing = summarize_times(library.times_ms);
    library.run->timing.host_us = median_of(library.runs_info.host_us);
    warn_gate_given_up(library.runs_info.gates_given_up);
    library.run->gflops =
        2.0 * double(s.m) * double(s.n) * double(s.k) / (library.run->timing.median_ms * 1e6);
  }
}

// Adds the handle's FT statistics to `total` and zeroes them on the handle.
void collect_ft_stats(aegisHandle_t handle, aegisFtStats_t& total) {
  aegisFtStats_t part{};
  AEGIS_BENCH_CHECK_AEGIS(handle, aegisGetFtStatsSync(handle, &part));
  AEGIS_BENCH_CHECK_AEGIS(handle, aegisResetFtStats(handle));
  total.calls += part.calls;
  total.checks += part.checks;
  total.detected += part.detected;
  total.corrected += part.corrected;
  total.recomputed += part.recomputed;
  total.unrecovered += part.unrecovered;
  total.nonfinite += part.nonfinite;
  // The records are the last AEGIS_FT_MAX_RECORDS faults, oldest first.
  const int64_t kept = std::min<int64_t>(total.record_count, AEGIS_FT_MAX_RECORDS);
  const int64_t added = std::min<int64_t>(part.record_count, AEGIS_FT_MAX_RECORDS);
  std::vector<aegisFaultRecord_t> records(total.records, total.records + kept);
  records.insert(records.end(), part.records, part.records + added);
  const size_t first = records.size() - std::min<size_t>(records.size(), AEGIS_FT_MAX_RECORDS);
  std::copy(records.begin() + first, records.end(), total.records);
  total.record_count += part.record_count;
}

std::string version_text(int version) {  // MAJOR * 10000 + MINOR * 100 + PATCH
  return format_text("%d.%d.%d", version / 10000, version / 100 % 100, version % 100);
}

// Median of the values; NaN when there are none.
double median_of(std::vector<double> values) {
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

// The lowest ratio offered and the case it came from (empty before the first).
struct LowestRatio {
  double ratio = kNaN;
  std::string at;
  void offer(double r, const std::string& gemm_case) {
    if (at.empty() || r < ratio) {
      ratio = r;
      at = gemm_case;
    }
  }
};

struct Summary {
  double median_square_ratio = kNaN;  // squares 2048..16384 (SGEMM's bar)
  int square_count = 0;
  double median_large_square_ratio = kNaN;  // squares 4096..16384 (the tensor-core bar)
  int large_square_count = 0;
  LowestRatio lowest_square;  // of the squares 2048..16384
  LowestRatio lowest_nonsquare;
  int failures = 0;
  double median_ft_overhead = kNaN;  // FT rows whose case also has an FT-off row
  int ft_overhead_count = 0;
  double median_square_ft_overhead = kNaN;  // the same over squares 2048..16384 (issue 3's bar)
  int square_ft_overhead_count = 0;
  int64_t ft_detected = 0;  // detections in these clean runs: anything but 0 is a problem
};

Summary summarize(const std::vector<GemmResult>& results) {
  Summary summary;
  std::vector<double> square_ratios, large_square_ratios, overheads, square_overheads;
  for (const GemmResult& r : results) {
    summary.failures += (r.aegis.ran && !r.aegis.verified) +
                        (r.owns_cublas && r.cublas.ran && !r.cublas.verified);
    if (r.has_ft_stats) summary.ft_detected += r.ft_stats.detected;
    const GemmShape& s = r.gemm_case.shape;
    const bool square_of_bar = s.is_square() && s.m >= 2048 && s.m <= 16384;
    if (!std::isnan(r.ft_overhead)) {
      overheads.push_back(r.ft_overhead);
      if (square_of_bar) square_overheads.push_back(r.ft_overhead);
    }
    if (std::isnan(r.ratio)) continue;
    if (square_of_bar) {
      square_ratios.push_back(r.ratio);
      if (s.m >= 4096) large_square_ratios.push_back(r.ratio);
      summary.lowest_square.offer(r.ratio, r.gemm_case.text());
    } else if (!s.is_square()) {
      summary.lowest_nonsquare.offer(r.ratio, r.gemm_case.text());
    }
  }
  summary.square_count = int(square_ratios.size());
  summary.median_square_ratio = median_of(square_ratios);
  summary.large_square_count = int(large_square_ratios.size());
  summary.median_large_square_ratio = median_of(large_square_ratios);
  summary.ft_overhead_count = int(overheads.size());
  summary.median_ft_overhead = median_of(overheads);
  summary.square_ft_overhead_count = int(square_overheads.size());
  summary.median_square_ft_overhead = median_of(square_overheads);
  return summary;
}

std::vector<GemmResult> rows_with_ft(const std::vector<GemmResult>& results,
                                     const std::string& ft) {
  std::vector<GemmResult> rows;
  for (const GemmResult& r : results)
    if (r.ft == ft) rows.push_back(r);
  return rows;
}

std::string gflops_cell(const LibraryRun& run) {
  if (!run.ran) return "-";
  return run.verified ? format_text("%.0f", run.gflops) : "FAILED";
}

std::string overhead_text(double overhead) {
  return std::isnan(overhead) ? std::string("-") : format_text("%+.1f%%", 100.0 * overhead);
}

// The tensor-core rows (16-bit operands) show their types, SGEMM's rows do not.
std::vector<std::string> table_row(const GemmResult& r, const GemmOptions& options) {
  const GemmShape& s = r.gemm_case.shape;
  const bool with_ft = !options.ft.empty(), tensor = options.dtype != AEGIS_R_32F;
  const double ceiling_gflops = options.ceiling_gflops;
  bool failed = (r.aegis.ran && !r.aegis.verified) || (r.cublas.ran && !r.cublas.verified);
  std::vector<std::string> row = {std::to_string(s.m), std::to_string(s.n), std::to_string(s.k),
                                  r.gemm_case.op.text()};
  if (tensor)
    row.insert(row.end(), {element_type_name(options.dtype), element_type_name(options.ctype)});
  if (with_ft) row.push_back(r.ft);
  row.insert(row.end(), {gflops_cell(r.aegis), gflops_cell(r.cublas),
                         std::isnan(r.ratio) ? "-" : format_text("%.3f", r.ratio)});
  if (with_ft) row.push_back(overhead_text(r.ft_overhead));
  std::string kernel = r.aegis.kernel.empty() ? "-"
                       : tensor ? r.aegis.kernel
                                : r.aegis.kernel + " split=" + std::to_string(r.aegis.split_k);
  row.insert(row.end(),
             {r.aegis.verified ? format_text("%.1f", 100.0 * r.aegis.gflops / ceiling_gflops) : "-",
              failed ? "FAILED" : "yes", kernel});
  return row;
}

const char* ft_mode_name(aegisFtMode_t mode) {
  return mode == AEGIS_FT_CORRECT ? "correct" : mode == AEGIS_FT_DETECT ? "detect" : "off";
}

void write_library_json(JsonWriter& json, const LibraryRun& run, bool is_aegis) {
  json.begin_object()
      .field("median_ms", run.verified ? run.timing.median_ms : kNaN)
      .field("min_ms", run.verified ? run.timing.min_ms : kNaN)
      .field("max_ms", run.verified ? run.timing.max_ms : kNaN)
      .field("runs", run.timing.runs)
      .field("host_us", run.verified ? run.timing.host_us : kNaN)
      .field("gflops", run.gflops)
      .field("verified", run.verified)
      .field("max_err", run.max_error);
  if (is_aegis) json.field("kernel", run.kernel).field("split_k", run.split_k);
  json.end_object();
}

void write_ft_stats_json(JsonWriter& json, const GemmResult& r) {
  if (!r.has_ft_stats) {
    json.null();
    return;
  }
  const aegisFtStats_t& stats = r.ft_stats;
  json.begin_object()
      .field("calls", stats.calls)
      .field("checks", stats.checks)
      .field("detected", stats.detected)
      .field("corrected", stats.corrected)
      .field("recomputed", stats.recomputed)
      .field("unrecovered", stats.unrecovered)
      .field("nonfinite", stats.nonfinite)
      .end_object();
}

void write_summary_fields(JsonWriter& json, const Summary& summary) {
  json.field("median_ratio_squares_2048_16384", summary.median_square_ratio)
      .field("squares_counted", summary.square_count)
      .field("median_ratio_squares_4096_16384", summary.median_large_square_ratio)
      .field("squares_4096_16384_counted", summary.large_square_count)
      .field("min_ratio_squares_2048_16384", summary.lowest_square.ratio)
      .field("min_ratio_square_case", summary.lowest_square.at)
      .field("min_ratio_nonsquare", summary.lowest_nonsquare.ratio)
      .field("min_ratio_nonsquare_case", summary.lowest_nonsquare.at);
}

void write_json(const std::string& path, const Invocation& invocation, const DeviceInfo& device,
                aegisHandle_t aegis_handle, int cublas_version, const GemmOptions& options,
                const std::vector<GemmResult>& results, const Summary& summary) {
  const bool with_ft = !options.ft.empty(), tensor = options.dtype != AEGIS_R_32F;
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
      .field("precision", !tensor ? "fp32" : options.dtype == AEGIS_R_16F ? "fp16" : "bf16")
      .field("dtype", element_type_name(options.dtype))
      .field("ctype", element_type_name(options.ctype))
      .field("compute", "f32")
      .field("aegis_routine", tensor ? "aegisGemmEx" : "aegisSgemm")
      .field("cublas_routine", tensor ? "cublasGemmEx (CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)"
                                      : "cublasSgemm_v2 (CUBLAS_DEFAULT_MATH)");
  if (tensor) {
    json.key("gemm_ex_config");
    if (options.gemm_ex_config.empty())
      json.null();
    else
      json.value(options.gemm_ex_config);
  } else {
    json.key("sgemm_config");
    if (options.sgemm_config.empty())
      json.null();
    else
      json.value(options.sgemm_config + ":" + std::to_string(options.sgemm_max_split));
  }
  json.field("suite", options.suite)
      .field("reps", options.timing.timed_runs)
      .field("warmup", options.timing.warmup_runs)
      .field("rounds", int64_t(options.rounds))
      .field("timing", options.timing.queued ? "queued" : "launch")
      .field("min_time_ms", options.timing.min_time_ms)
      .field("seed", int64_t(options.seed))
      .field("ceiling", options.ceiling_gflops)
      .field("alpha", 1.0)
      .field("beta", 0.0)
      .field("max_err_unit",
             tensor ? "gamma_k |op(A)| |op(B)| + u_c / (1 - u_c) |C| + eta_c (u = 2^-24 in "
                      "gamma_k, u_c and eta_c of C's type; times |x| for the projection); "
                      "pass <= 2"
                    : "gamma_k |op(A)| |op(B)| (times |x| for the projection); pass <= 2");
  if (with_ft) {
    json.key("ft").begin_array();
    for (const FtSetting& setting : options.ft) json.value(setting.name);
    json.end_array();
    json.field("ft_mode", ft_mode_name(options.ft_mode))
        .field("ft_verify_interval", options.ft_interval)
        .field("ft_overhead_unit", "FT median time / FT-off median time of the case - 1");
  }
  json.end_object();
  json.key("results").begin_array();
  for (const GemmResult& r : results) {
    json.begin_object()
        .field("m", r.gemm_case.shape.m)
        .field("n", r.gemm_case.shape.n)
        .field("k", r.gemm_case.shape.k)
        .field("op", r.gemm_case.op.text())
        .field("dtype", element_type_name(options.dtype))
        .field("ctype", element_type_name(options.ctype));
    if (with_ft)
      json.field("ft", r.ft).field("ft_mode",
                                   r.has_ft_stats ? ft_mode_name(options.ft_mode) : "off");
    json.key("aegis");
    write_library_json(json, r.aegis, true);
    json.key("cublas");
    if (r.cublas.ran)
      write_library_json(json, r.cublas, false);
    else
      json.null();
    json.field("ratio", r.ratio);
    if (with_ft) {
      json.field("ft_overhead_vs_off", r.ft_overhead).key("ft_stats");
      write_ft_stats_json(json, r);
    }
    json.end_object();
  }
  json.end_array();
  json.key("summary").begin_object();
  if (!with_ft) {
    write_summary_fields(json, summary);
  } else {
    json.field("ft_detected_in_clean_runs", summary.ft_detected);
    json.key("by_ft").begin_array();
    for (const FtSetting& setting : options.ft) {
      Summary of_setting = summarize(rows_with_ft(results, setting.name));
      json.begin_object().field("ft", setting.name);
      write_summary_fields(json, of_setting);
      json.field("median_ft_overhead_vs_off", of_setting.median_ft_overhead)
          .field("ft_overheads_counted", of_setting.ft_overhead_count)
          .field("median_square_ft_overhead_vs_off", of_setting.median_square_ft_overhead)
          .field("square_ft_overheads_counted", of_setting.square_ft_overhead_count)
          .field("ft_detected", of_setting.ft_detected)
          .end_object();
    }
    json.end_array();
  }
  json.field("verification_failures", summary.failures).end_object();
  json.end_object();
  if (!json.save(path)) {
    std::fprintf(stderr, "aegis-bench: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

// Tensor-core runs (16-bit operands) add the dtype and ctype columns after op.
void write_csv(const std::string& path, const std::vector<GemmResult>& results,
               const GemmOptions& options) {
  const bool with_ft = !options.ft.empty(), tensor = options.dtype != AEGIS_R_32F;
  const aegisFtMode_t ft_mode = options.ft_mode;
  std::vector<std::string> header = {"m", "n", "k", "op"};
  if (tensor) header.insert(header.end(), {"dtype", "ctype"});
  if (with_ft) header.insert(header.end(), {"ft", "ft_mode"});
  header.insert(header.end(),
                {"aegis_median_ms", "aegis_min_ms", "aegis_max_ms", "aegis_gflops",
                 "aegis_verified", "aegis_max_err", "aegis_kernel", "aegis_split_k",
                 "cublas_median_ms", "cublas_min_ms", "cublas_max_ms", "cublas_gflops",
                 "cublas_verified", "cublas_max_err", "ratio"});
  if (with_ft) header.insert(header.end(), {"ft_overhead_vs_off", "ft_detected"});
  CsvWriter csv(header);
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
    if (tensor)
      row.insert(row.end(), {element_type_name(options.dtype), element_type_name(options.ctype)});
    if (with_ft) row.insert(row.end(), {r.ft, r.has_ft_stats ? ft_mode_name(ft_mode) : "off"});
    for (const std::string& cell : times(r.aegis)) row.push_back(cell);
    row.insert(row.end(), {CsvWriter::number(r.aegis.gflops), r.aegis.verified ? "true" : "false",
                           CsvWriter::number(r.aegis.max_error), r.aegis.kernel,
                           std::to_string(r.aegis.split_k)});
    for (const std::string& cell : times(r.cublas)) row.push_back(cell);
    row.insert(row.end(), {CsvWriter::number(r.cublas.gflops),
                           r.cublas.ran ? (r.cublas.verified ? "true" : "false") : "",
                           CsvWriter::number(r.cublas.max_error), CsvWriter::number(r.ratio)});
    if (with_ft)
      row.insert(row.end(), {CsvWriter::number(r.ft_overhead),
                             r.has_ft_stats ? std::to_string(r.ft_stats.detected) : ""});
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

// Puts the handle under one FT setting (FT off for "off").
void apply_ft_setting(const Libraries& libs, const FtSetting& setting, aegisFtMode_t mode,
                      int64_t interval) {
  AEGIS_BENCH_CHECK_AEGIS(libs.aegis,
                          aegisSetFtMode(libs.aegis, setting.on ? mode : AEGIS_FT_OFF));
  if (setting.on) AEGIS_BENCH_CHECK_AEGIS(libs.aegis, aegisSetFtLevel(libs.aegis, setting.level));
  AEGIS_BENCH_CHECK_AEGIS(libs.aegis,
                          aegisSetFtVerifyInterval(libs.aegis, setting.on ? interval : 0));
}

// The rows of one case and the lines to print about it once its progress line is gone.
struct CaseOutcome {
  std::vector<GemmResult> rows;
  std::vector<std::string> notes;
};

// Everything one case needs lives in one arena, freed on return (a 16384^3 set is 3 GiB).
CaseOutcome run_case(const GemmCase& gemm_case, size_t case_index, const GemmOptions& options,
                     const DeviceInfo& device, const Libraries& libs) {
  const GemmShape& s = gemm_case.shape;
  const bool with_ft = !options.ft.empty();
  const int64_t ab_bytes = int64_t(element_bytes(options.dtype));
  const int64_t c_bytes = int64_t(element_bytes(options.ctype));
  int64_t bytes_per_set = ab_bytes * (s.m * s.k + s.k * s.n) + c_bytes * s.m * s.n;
  int64_t sets = rotation_set_count(bytes_per_set, device.l2_bytes);
  DeviceArena arena(operand_bytes(s, sets, options.dtype, options.ctype) +
                    GemmCheck::device_bytes(s.m, s.n, s.k));
  uint64_t case_stream = uint64_t(case_index) << 40;
  OperandSets operands = make_operand_sets(arena, gemm_case, sets, options.dtype, options.ctype,
                                           options.seed, case_stream, libs.stream);
  GemmCheck checker(arena, operands.operands(gemm_case, 0), options.seed, case_stream | 3,
                    libs.stream);

  auto gemm = [&](int64_t set) { return call_aegis(libs.aegis, operands.call(gemm_case, set)); };
  CaseOutcome outcome;
  // Without --ft aegis runs once, as the handle comes (FT off).
  const std::vector<FtSetting> settings = with_ft ? options.ft : std::vector<FtSetting>(1);
  std::vector<const FtSetting*> row_settings;
  for (const FtSetting& setting : settings) {
    GemmResult row;
    row.gemm_case = gemm_case;
    if (with_ft) {
      row.ft = setting.name;
      apply_ft_setting(libs, setting, options.ft_mode, options.ft_interval);
    }
    if (setting.on) {
      // A level can still refuse one shape (the non-fused checksums need workspace); that
      // skips this row only. The statistics then restart so that they count this row alone.
      aegisStatus_t status = gemm(0);
      if (status == AEGIS_STATUS_NOT_SUPPORTED || status == AEGIS_STATUS_ALLOC_FAILED) {
        outcome.notes.push_back(format_text("aegis-bench gemm: FT '%s' skipped for %s: %s",
                                            setting.name.c_str(), gemm_case.text().c_str(),
                                            aegis_failure_detail(libs.aegis, status)));
        continue;
      }
      AEGIS_BENCH_CHECK_AEGIS(libs.aegis, status);
      AEGIS_BENCH_CHECK_AEGIS(libs.aegis, aegisResetFtStats(libs.aegis));
      row.has_ft_stats = true;
    }
    outcome.rows.push_back(row);
    row_settings.push_back(&setting);
  }

  // Check every library first, then time the verified ones in rounds. The rows are final
  // here, so pointers into them stay valid.
  std::vector<TimedLibrary> timed;
  for (size_t i = 0; i < outcome.rows.size(); ++i) {
    GemmResult& row = outcome.rows[i];
    const FtSetting& setting = *row_settings[i];
    TimedLibrary library;
    library.run = &row.aegis;
    library.call = [&gemm, &libs, &options, &row](int64_t set) {
      AEGIS_BENCH_CHECK_AEGIS(libs.aegis, gemm(set));
      AEGIS_BENCH_CHECK_AEGIS(libs.aegis, last_aegis_kernel(libs.aegis, options.dtype,
                                                            &row.aegis.kernel, &row.aegis.split_k));
    };
    if (with_ft) {
      library.before = [&libs, &options, &setting] {
        apply_ft_setting(libs, setting, options.ft_mode, options.ft_interval);
      };
      apply_ft_setting(libs, setting, options.ft_mode, options.ft_interval);
    }
    if (setting.on) library.after = [&libs, &row] { collect_ft_stats(libs.aegis, row.ft_stats); };
    check_library(gemm_case, operands, checker, libs.stream, library.call, row.aegis);
    if (library.after) library.after();
    // An override the kernel cannot honour on this call falls back silently: say so.
    if (!options.gemm_ex_config.empty() && row.aegis.kernel != options.gemm_ex_config)
      outcome.notes.push_back(format_text(
          "aegis-bench gemm: --gemm-ex-config %s cannot run %s; dispatch ran %s",
          options.gemm_ex_config.c_str(), gemm_case.text().c_str(),
          row.aegis.kernel.empty() ? "nothing" : row.aegis.kernel.c_str()));
    if (row.aegis.verified) timed.push_back(std::move(library));
  }

  LibraryRun cublas;
  if (options.with_cublas) {
    TimedLibrary library;
    library.run = &cublas;
    library.call = [&](int64_t set) {
      AEGIS_BENCH_CHECK_CUBLAS(call_cublas(libs.cublas, operands.call(gemm_case, set)));
    };
    check_library(gemm_case, operands, checker, libs.stream, library.call, cublas);
    if (cublas.verified) timed.push_back(std::move(library));
  }
  // Each aegis row puts the handle in its FT setting (cuBLAS does not read it); back to FT off.
  time_in_rounds(timed, options.rounds, gemm_case, operands, libs.stream, options.timing);
  if (with_ft) apply_ft_setting(libs, kFtSettings[0], options.ft_mode, 0);

  for (const GemmResult& row : outcome.rows)
    if (row.has_ft_stats && row.ft_stats.detected > 0)
      outcome.notes.push_back(format_text(
          "aegis-bench gemm: WARNING: FT '%s' detected %lld fault(s) in the clean runs of %s "
          "(%lld calls): false positives or a faulty GPU",
          row.ft.c_str(), (long long)row.ft_stats.detected, gemm_case.text().c_str(),
          (long long)row.ft_stats.calls));
  const GemmResult* off_row = nullptr;
  for (const GemmResult& row : outcome.rows)
    if (with_ft && !row.has_ft_stats && row.aegis.verified) off_row = &row;
  for (size_t i = 0; i < outcome.rows.size(); ++i) {
    GemmResult& row = outcome.rows[i];
    row.cublas = cublas;
    row.owns_cublas = i == 0;  // one cuBLAS measurement per case, whatever the row count
    if (row.aegis.verified && row.cublas.verified) row.ratio = row.aegis.gflops / row.cublas.gflops;
    if (off_row && row.has_ft_stats && row.aegis.verified)
      row.ft_overhead = row.aegis.timing.median_ms / off_row->aegis.timing.median_ms - 1.0;
  }
  return outcome;
}

}  // namespace

int run_gemm(const Invocation& invocation) {
  GemmOptions options = parse_gemm_options(invocation);
  DeviceInfo device = require_device();
  Libraries libs = open_libraries();
  const bool with_ft = !options.ft.empty(), tensor = options.dtype != AEGIS_R_32F;
  // cublasGemmEx with CUBLAS_COMPUTE_32F writes C of the input type or f32, nothing else.
  const bool cublas_takes_types = options.ctype == options.dtype || options.ctype == AEGIS_R_32F;
  if (tensor && options.with_cublas && !cublas_takes_types) {
    std::fprintf(stderr,
                 "aegis-bench gemm: cublasGemmEx has no %s inputs with %s C (CUBLAS_COMPUTE_32F); "
                 "timing aegis alone\n",
                 element_type_name(options.dtype), element_type_name(options.ctype));
    options.with_cublas = false;
  }
  if (!options.tuning_table.empty())
    AEGIS_BENCH_CHECK_AEGIS(libs.aegis,
                            aegisSetTuningTable(libs.aegis, options.tuning_table.c_str()));
  if (!options.gemm_ex_config.empty())
    AEGIS_BENCH_CHECK_AEGIS(libs.aegis,
                            aegisSetGemmExOverride(libs.aegis, options.gemm_ex_config.c_str()));
  if (!options.sgemm_config.empty()) {
    AEGIS_BENCH_CHECK_AEGIS(libs.aegis,
                            aegisSetSgemmOverride(libs.aegis, options.sgemm_config.c_str(),
                                                  options.sgemm_max_split));
    std::printf("aegis SGEMM kernel forced: %s, split-K limit %s\n", options.sgemm_config.c_str(),
                options.sgemm_max_split > 0 ? std::to_string(options.sgemm_max_split).c_str()
                                            : "of the tuning row");
  }
  std::vector<GemmCase> cases;
  for (const GemmShape& shape : options.shapes)
    for (const GemmOp& op : options.ops) cases.push_back({shape, op});

  std::printf(
      "aegis-bench gemm: %s (%d SMs, L2 %.0f MiB, cc %s), aegis %s, cuBLAS %s, "
      "%d timed runs after %d warm-up per library and round, %d round%s%s\n",
      device.name.c_str(), device.sm_count, double(device.l2_bytes) / (1 << 20),
      device.compute_capability().c_str(), version_text(aegisGetVersion()).c_str(),
      version_text(libs.cublas_version).c_str(), options.timing.timed_runs,
      options.timing.warmup_runs, options.rounds, options.rounds > 1 ? "s" : "",
      options.rounds > 1 ? " in alternating order" : "");
  if (tensor)
    std::printf("types: A, B %s, C %s, FP32 accumulation (aegisGemmEx against cublasGemmEx); "
                "aegis kernel %s\n",
                element_type_name(options.dtype), element_type_name(options.ctype),
                options.gemm_ex_config.empty() ? "chosen by dispatch"
                                               : ("forced: " + options.gemm_ex_config).c_str());
  if (with_ft) {
    std::string names;
    for (const FtSetting& setting : options.ft) names += (names.empty() ? "" : ", ") + setting.name;
    std::printf("fault tolerance: %s (mode %s, verify interval %lld); overhead = FT time / off "
                "time of the case - 1\n",
                names.c_str(), ft_mode_name(options.ft_mode),
                static_cast<long long>(options.ft_interval));
  }
  std::printf("\n");
  std::vector<TableColumn> columns = {{"m", 6, false}, {"n", 6, false}, {"k", 6, false},
                                      {"op", 2, true}};
  if (tensor) columns.insert(columns.end(), {{"dtype", 5, true}, {"ctype", 5, true}});
  if (with_ft) columns.push_back({"ft", 8, true});
  columns.insert(columns.end(),
                 {{"aegis GF/s", 10, false}, {"cuBLAS GF/s", 11, false}, {"ratio", 6, false}});
  if (with_ft) columns.push_back({"overhead", 8, false});
  columns.insert(columns.end(),
                 {{"%ceil", 5, false}, {"verified", 8, true}, {"kernel", 6, true}});
  TablePrinter table(columns);
  table.print_header();
  ProgressLine progress;
  std::vector<GemmResult> results;
  for (size_t index = 0; index < cases.size(); ++index) {
    progress.show(
        format_text("[%zu/%zu] %s ...", index + 1, cases.size(), cases[index].text().c_str()));
    CaseOutcome outcome = run_case(cases[index], index, options, device, libs);
    progress.clear();
    for (const std::string& note : outcome.notes) std::fprintf(stderr, "%s\n", note.c_str());
    for (const GemmResult& result : outcome.rows) {
      std::string library = with_ft ? "aegis (ft " + result.ft + ")" : "aegis";
      for (const auto& [name, run] : {std::pair{library, &result.aegis},
                                      std::pair{std::string("cuBLAS"), &result.cublas}})
        if (run->ran && !run->verified && (run == &result.aegis || result.owns_cublas))
          std::fprintf(stderr,
                       "aegis-bench: %s result of %s failed verification: max normalized "
                       "error %.3g (limit %g)\n",
                       name.c_str(), cases[index].text().c_str(), run->max_error,
                       GemmCheck::kErrorLimit);
      table.print_row(table_row(result, options));
      results.push_back(result);
    }
  }

  Summary summary = summarize(results);
  auto ratio_text = [](double ratio) {
    return std::isnan(ratio) ? std::string("n/a") : format_text("%.3f", ratio);
  };
  auto print_lowest = [&](const std::string& prefix, const char* over, const LowestRatio& lowest) {
    std::printf("%sminimum aegis/cuBLAS ratio over %s: %s%s%s\n", prefix.c_str(), over,
                ratio_text(lowest.ratio).c_str(), lowest.at.empty() ? "" : " at ",
                lowest.at.c_str());
  };
  auto print_ratios = [&](const Summary& of, const std::string& prefix) {
    std::printf("%smedian aegis/cuBLAS ratio over squares 2048-16384: %s (%d results)\n",
                prefix.c_str(), ratio_text(of.median_square_ratio).c_str(), of.square_count);
    std::printf("%smedian aegis/cuBLAS ratio over squares 4096-16384: %s (%d results)\n",
                prefix.c_str(), ratio_text(of.median_large_square_ratio).c_str(),
                of.large_square_count);
    print_lowest(prefix, "squares 2048-16384", of.lowest_square);
    print_lowest(prefix, "non-square shapes", of.lowest_nonsquare);
  };
  std::printf("\n");
  if (!with_ft) {
    print_ratios(summary, "");
  } else {
    for (const FtSetting& setting : options.ft) {
      Summary of_setting = summarize(rows_with_ft(results, setting.name));
      std::string prefix = "[ft " + setting.name + "] ";
      print_ratios(of_setting, prefix);
      if (of_setting.square_ft_overhead_count > 0)
        std::printf("%smedian overhead against ft off over squares 2048-16384: %s (%d results)\n",
                    prefix.c_str(), overhead_text(of_setting.median_square_ft_overhead).c_str(),
                    of_setting.square_ft_overhead_count);
      if (of_setting.ft_overhead_count > 0)
        std::printf("%smedian overhead against ft off: %s (%d results)\n", prefix.c_str(),
                    overhead_text(of_setting.median_ft_overhead).c_str(),
                    of_setting.ft_overhead_count);
    }
    if (summary.ft_detected > 0)
      std::printf("WARNING: %lld fault(s) detected in clean runs (see the lines above)\n",
                  (long long)summary.ft_detected);
  }
  if (summary.failures > 0) std::printf("verification FAILED for %d results\n", summary.failures);

  if (!options.json_path.empty())
    write_json(options.json_path, invocation, device, libs.aegis, libs.cublas_version, options,
               results, summary);
  if (!options.csv_path.empty()) write_csv(options.csv_path, results, options);
  close_libraries(libs);
  return summary.failures > 0 ? 1 : 0;
}

}  // namespace aegis::bench
