// aegis-bench: measures aegis against cuBLAS. One subcommand per routine family; each
// parses its own options, so adding one means one entry in kSubcommands.
#include <cstdio>
#include <cstring>

#include "command_line.h"
#include "blas2_bench.h"
#include "gemm_bench.h"

namespace aegis::bench {
namespace {

struct Subcommand {
  const char* name;
  const char* summary;
  void (*print_usage)(std::FILE* out);
  int (*run)(const Invocation& invocation);
};

const Subcommand kSubcommands[] = {
    {"gemm", "SGEMM: aegis against cuBLAS over a suite of shapes", print_gemm_usage, run_gemm},
    {"gemv", "GEMV s/d/c/z (N, T, C): GB/s against cuBLAS", print_blas2_usage, run_blas2},
    {"symv", "SYMV s/d/c/z: GB/s over the triangle against cuBLAS", print_blas2_usage, run_blas2},
    {"hemv", "HEMV c/z: GB/s over the triangle against cuBLAS", print_blas2_usage, run_blas2},
    {"blas2", "gemv, symv and hemv in one run (one JSON)", print_blas2_usage, run_blas2},
};

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "usage: aegis-bench <subcommand> [options]\n"
               "\n"
               "Runs aegis and cuBLAS in one process on identical buffers: warm-up, operands\n"
               "rotated past twice the L2, CUDA events, median of many runs, every result\n"
               "verified before its time counts.\n"
               "\n"
               "subcommands:\n");
  for (const Subcommand& subcommand : kSubcommands)
    std::fprintf(out, "  %-8s %s\n", subcommand.name, subcommand.summary);
  std::fprintf(out,
               "\n'aegis-bench <subcommand> --help' lists the subcommand's options.\n"
               "exit status: 0 all results verified, 1 a failure or bad usage, 2 no GPU\n");
}

}  // namespace
}  // namespace aegis::bench

int main(int argc, char** argv) {
  using namespace aegis::bench;
  if (argc < 2) {
    print_usage(stderr);
    return 1;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    print_usage(stdout);
    return 0;
  }
  for (const Subcommand& subcommand : kSubcommands) {
    if (std::strcmp(argv[1], subcommand.name) != 0) continue;
    Invocation invocation;
    invocation.subcommand = subcommand.name;
    invocation.args.assign(argv + 2, argv + argc);
    invocation.command_line = join_command_line(argc, argv);
    for (const std::string& arg : invocation.args) {
      if (arg == "--help" || arg == "-h") {  // before any GPU work, so help needs no GPU
        subcommand.print_usage(stdout);
        return 0;
      }
    }
    return subcommand.run(invocation);
  }
  std::fprintf(stderr, "aegis-bench: unknown subcommand '%s' (see 'aegis-bench --help')\n",
               argv[1]);
  return 1;
}
