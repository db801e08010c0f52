// `aegis-bench gemv | symv | hemv | blas2`: aegis level-2 BLAS against cuBLAS in GB/s.
#ifndef AEGIS_BENCH_BLAS2_BENCH_H
#define AEGIS_BENCH_BLAS2_BENCH_H

#include <cstdio>

#include "command_line.h"

namespace aegis::bench {

void print_blas2_usage(std::FILE* out);
int run_blas2(const Invocation& invocation);  // subcommand gemv, symv, hemv or blas2 (all)

}  // namespace aegis::bench

#endif  // AEGIS_BENCH_BLAS2_BENCH_H
