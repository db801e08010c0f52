// aegis-tune: measures kernel candidates on this GPU and writes the tuning table that
// dispatch reads (src/dispatch/tuning/<table>.inc).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "console.h"
#include "blas2_tuner.h"
#include "gemm_ex_tuner.h"
#include "sgemm_tuner.h"

namespace {

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: aegis-tune sgemm [--out FILE.inc] [--json FILE] [--reps N] [--seed S] [--ft]\n"
               "  Times every compiled SGEMM configuration with each split-K limit on\n"
               "  representative shapes of each shape class and writes the winning rows.\n"
               "  Commit the table as src/dispatch/tuning/sgemm_<gpu>.inc. With --ft, times\n"
               "  the fault-tolerant instances (FT CORRECT, no split-K) for the FT rows,\n"
               "  committed as src/dispatch/tuning/sgemm_ft_<gpu>.inc.\n"
               "usage: aegis-tune blas2 [--out FILE.inc] [--json FILE] [--reps N] [--seed S]\n"
               "                        [--precisions sdcz] [--routines gemv_n,gemv_t,symv,hemv]\n"
               "                        [--keep FILE.inc [--margin PCT]]\n"
               "  Times every level-2 configuration with each Y split per routine and size\n"
               "  band, in both reduction modes. Commit as src/dispatch/tuning/blas2_<gpu>.inc.\n"
               "  --routines tunes those families only; --keep writes an existing table (e.g.\n"
               "  the committed one) to --out with the tuned routines' rows replaced in place\n"
               "  and this command added to its history line; with --margin, that table's row\n"
               "  for a tuned routine, band and mode stays unless a candidate is faster by\n"
               "  more than PCT percent (geometric mean).\n"
               "usage: aegis-tune gemm-ex [--out FILE.inc] [--json FILE] [--reps N] [--seed S]\n"
               "  Times every tensor-core GEMM kernel (not the mma.sync fallback) against\n"
               "  cublasGemmEx on representative shapes of each class, FP16 in and out with\n"
               "  FP32 accumulation, NN and TN; each kernel's result is checked in FP64 before\n"
               "  it is timed. Commit the table as src/dispatch/tuning/gemm_ex_<gpu>.inc.\n");
}

// Parses the options after the routine name into opt (and --precisions into *precisions
// where the routine takes it). Returns -1 to go on, or the exit status to stop with.
int parse_options(int argc, char** argv, aegis::tune::TuneOptions& opt,
                  std::string* precisions, bool accepts_ft) {
  for (int i = 0; i < argc; ++i) opt.command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      usage(stdout);
      return 0;
    } else if (arg == "--out" && has_value) {
      opt.out_path = argv[++i];
    } else if (arg == "--json" && has_value) {
      opt.json_path = argv[++i];
    } else if (arg == "--ft" && accepts_ft) {
      opt.ft = true;
    } else if (arg == "--precisions" && has_value && precisions) {
      *precisions = argv[++i];
    } else if (arg == "--reps" && has_value) {
      opt.reps = std::atoi(argv[++i]);
      if (opt.reps < 1) {
        std::fprintf(stderr, "aegis-tune: --reps must be >= 1\n");
        return 1;
      }
    } else if (arg == "--seed" && has_value) {
      opt.seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "aegis-tune: unknown or incomplete option '%s'\n", arg.c_str());
      usage(stderr);
      return 1;
    }
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  aegis::bench::set_tool_name("aegis-tune");
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 1 : 0;
  }
  if (!std::strcmp(argv[1], "blas2")) {
    aegis::tune::Blas2TuneOptions opt;
    // blas2's own options first (--routines, --keep, --margin), the common ones after.
    std::vector<char*> rest;
    for (int i = 0; i < argc; ++i) {
      const bool has_value = i + 1 < argc;
      if (i >= 2 && !std::strcmp(argv[i], "--routines") && has_value) {
        opt.routines = argv[++i];
      } else if (i >= 2 && !std::strcmp(argv[i], "--keep") && has_value) {
        opt.keep_path = argv[++i];
      } else if (i >= 2 && !std::strcmp(argv[i], "--margin") && has_value) {
        char* end = nullptr;
        opt.margin_percent = std::strtod(argv[++i], &end);
        if (*end != '\0' || opt.margin_percent < 0) {
          std::fprintf(stderr, "aegis-tune: --margin takes a percentage >= 0, not '%s'\n", argv[i]);
          return 1;
        }
      } else {
        rest.push_back(argv[i]);
      }
    }
    const int status = parse_options(int(rest.size()), rest.data(), opt, &opt.precisions, false);
    for (int i = 0; i < argc; ++i) opt.command = (i ? opt.command + " " : "") + argv[i];
    return status >= 0 ? status : aegis::tune::run_blas2_tuner(opt);
  }
  if (!std::strcmp(argv[1], "gemm-ex")) {
    aegis::tune::TuneOptions opt;
    const int status = parse_options(argc, argv, opt, nullptr, false);
    return status >= 0 ? status : aegis::tune::run_gemm_ex_tuner(opt);
  }
  if (!std::strcmp(argv[1], "sgemm")) {
    aegis::tune::TuneOptions opt;
    const int status = parse_options(argc, argv, opt, nullptr, true);
    return status >= 0 ? status : aegis::tune::run_sgemm_tuner(opt);
  }
  std::fprintf(stderr, "aegis-tune: unknown routine '%s'\n", argv[1]);
  usage(stderr);
  return 1;
}
