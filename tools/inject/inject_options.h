// What an aegis-inject campaign does, as the command line says it.
#ifndef AEGIS_INJECT_INJECT_OPTIONS_H
#define AEGIS_INJECT_INJECT_OPTIONS_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "command_line.h"
#include "gemm_case.h"
#include "operand_patterns.h"

namespace aegis::inject {

struct InjectOptions {
  // Whole tiles, edge tiles on every side (777 = 6 * 128 + 9, 513 = 4 * 128 + 1) with an
  // odd K, and a wide-K panel with few column tiles.
  std::vector<bench::GemmShape> shapes = {{1024, 1024, 1024}, {777, 513, 1031}, {4096, 256, 2048}};
  std::vector<bench::GemmOp> ops = {{AEGIS_OP_N, AEGIS_OP_N}, {AEGIS_OP_T, AEGIS_OP_N}};
  int64_t injections = 2000;  // per case (shape and transpose pair)
  uint64_t seed = 1;
  std::vector<int> bits;  // bit positions a bit flip picks from (all 32 unless --bits)
  bool bitflips = true;
  bool adds = false;
  double add_exponent_min = -4, add_exponent_max = 4;  // |value| = 10^e, e uniform
  std::vector<aegisFaultTarget_t> targets = {AEGIS_FAULT_TARGET_ACCUMULATOR};
  double epilogue_fraction = 0.1;  // accumulator faults that hit the epilogue instead
  int64_t clean_runs = 200;        // all cases together
  std::vector<Pattern> patterns;   // of the clean runs (all unless --patterns)
  aegisFtMode_t mode = AEGIS_FT_CORRECT;
  std::string level_name = "block";
  aegisFtLevel_t level = AEGIS_FT_LEVEL_BLOCK;
  int64_t verify_interval = 0;
  int64_t k_tile = 0;  // K per k_step; 0: read from the kernel the library reports
  std::string json_path;
  int64_t max_listed = 50;  // failures listed one by one in the JSON
};

void print_inject_usage(std::FILE* out);
InjectOptions parse_inject_options(const bench::Invocation& invocation);

const char* mode_name(aegisFtMode_t mode);
const char* target_name(aegisFaultTarget_t target);

}  // namespace aegis::inject

#endif  // AEGIS_INJECT_INJECT_OPTIONS_H
