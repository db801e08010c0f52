// `aegis-bench gemm`: aegis SGEMM against cuBLAS SGEMM.
#ifndef AEGIS_BENCH_GEMM_BENCH_H
#define AEGIS_BENCH_GEMM_BENCH_H

#include <cstdio>

#include "command_line.h"

namespace aegis::bench {

void print_gemm_usage(std::FILE* out);
int run_gemm(const Invocation& invocation);  // returns the process exit status

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_GEMM_BENCH_H
