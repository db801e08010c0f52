#include "inject_options.h"

#include <algorithm>
#include <cstdlib>

namespace aegis::inject {

const char* mode_name(aegisFtMode_t mode) {
  return mode == AEGIS_FT_CORRECT ? "correct" : mode == AEGIS_FT_DETECT ? "detect" : "off";
}

const char* target_name(aegisFaultTarget_t target) {
  switch (target) {
    case AEGIS_FAULT_TARGET_COLUMN_CHECKSUM: return "column-checksum";
    case AEGIS_FAULT_TARGET_ROW_CHECKSUM: return "row-checksum";
    default: return "accumulator";
  }
}

void print_inject_usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: aegis-inject [options]\n"
      "\n"
      "A fault-injection campaign against aegis's fault-tolerant SGEMM (C = A B, alpha = 1,\n"
      "beta = 0, tight leading dimensions). For every case (shape and transpose pair) it\n"
      "computes the clean result once, then runs one FT SGEMM per injection with one fault\n"
      "armed through aegisInjectFaults: a random element of C, a random K step (or the\n"
      "epilogue), a random bit flipped (or a value added). Each outcome is read from the\n"
      "handle's statistics and the result compared with the clean one. Then clean FT calls on\n"
      "adversarial data count false positives.\n"
      "\n"
      "  --shapes LIST           MxNxK[,...] (default 1024x1024x1024,777x513x1031,4096x256x2048)\n"
      "  --trans LIST            NN,NT,TN,TT (default NN,TN)\n"
      "  --injections N          faults per case (default 2000)\n"
      "  --seed S                seed of the faults and the operands (default 1)\n"
      "  --kind KIND             bitflip | add | both (default bitflip)\n"
      "  --bits LIST             bit positions to flip, e.g. 0-31 or 23-30,31 (default 0-31)\n"
      "  --add-exponents LO:HI   an added value is +-10^e, e uniform in [LO, HI] (default -4:4)\n"
      "  --targets LIST          accumulator, column-checksum, row-checksum (default\n"
      "                          accumulator): what a fault hits\n"
      "  --epilogue-fraction P   share of accumulator faults in the epilogue (default 0.1)\n"
      "  --mode MODE             correct | detect (default correct)\n"
      "  --level LEVEL           block | warp | thread | nonfused (default block)\n"
      "  --verify-interval K     aegisSetFtVerifyInterval (default 0: check at the end)\n"
      "  --k-tile K              K per k_step (default: from the kernel aegis reports, else 8)\n"
      "  --clean-runs N          clean FT calls on adversarial data, all cases together\n"
      "                          (default 200); any detection is a false positive\n"
      "  --patterns LIST         data of the clean runs (default all): uniform, normal,\n"
      "                          positive, wide, scaled, cancel, integers, tiny\n"
      "  --json FILE             write the campaign as JSON\n"
      "  --help                  this text\n"
      "\n"
      "Outcomes: corrected, recomputed, unrecovered (CORRECT mode), reported (DETECT mode), and\n"
      "escaped: harmless (C within rounding of the clean result: |dC| <= 2 gamma_k |A||B| per\n"
      "element), below the checksum bound (off by more, but by less than any check can see),\n"
      "or beyond it (|dC| > 2 gamma_{2k+4T+8} |A||B| summed over the element's tile lines, T\n"
      "the tile side: a miss). Errors of escapes are shown relative to max |C_clean| of the\n"
      "column.\n"
      "\n"
      "exit status: 0 the campaign found nothing wrong; 1 a miss, a bad or unlocated repair,\n"
      "an unrecovered tile, a false positive, or bad usage; 2 no GPU\n");
}

namespace {

std::vector<int> parse_bits(bench::OptionReader& reader, const std::string& text) {
  std::vector<int> bits;
  for (const std::string& piece : bench::split(text, ',')) {
    std::vector<std::string> ends = bench::split(piece, '-');
    int range[2] = {0, 0};
    bool valid = ends.size() == 1 || ends.size() == 2;
    for (size_t i = 0; valid && i < ends.size(); ++i) {
      char* end = nullptr;
      long value = std::strtol(ends[i].c_str(), &end, 10);
      valid = !ends[i].empty() && *end == '\0' && value >= 0 && value <= 31;
      range[i] = int(value);
    }
    if (ends.size() == 1) range[1] = range[0];
    if (!valid || range[0] > range[1])
      reader.reject("bad bit list piece '" + piece + "', expected B or B1-B2 within 0..31");
    for (int bit = range[0]; bit <= range[1]; ++bit)
      if (std::find(bits.begin(), bits.end(), bit) == bits.end()) bits.push_back(bit);
  }
  std::sort(bits.begin(), bits.end());
  return bits;
}

double parse_number(bench::OptionReader& reader, const std::string& text, const char* what) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') reader.reject(std::string("bad ") + what + " '" + text + "'");
  return value;
}

}  // namespace

InjectOptions parse_inject_options(const bench::Invocation& invocation) {
  InjectOptions options;
  bench::OptionReader reader(invocation);
  while (reader.next()) {
    if (reader.is("--shapes")) {
      options.shapes = bench::parse_gemm_shapes(reader, reader.text());
    } else if (reader.is("--trans")) {
      options.ops = bench::parse_gemm_ops(reader, reader.text());
    } else if (reader.is("--injections")) {
      options.injections = reader.integer(0);
    } else if (reader.is("--seed")) {
      options.seed = uint64_t(reader.integer(0));
    } else if (reader.is("--kind")) {
      std::string kind = reader.text();
      if (kind != "bitflip" && kind != "add" && kind != "both")
        reader.reject("unknown fault kind '" + kind + "', expected bitflip, add or both");
      options.bitflips = kind != "add";
      options.adds = kind != "bitflip";
    } else if (reader.is("--bits")) {
      options.bits = parse_bits(reader, reader.text());
    } else if (reader.is("--add-exponents")) {
      std::vector<std::string> ends = bench::split(reader.text(), ':');
      if (ends.size() != 2) reader.reject("option '--add-exponents' needs LO:HI");
      options.add_exponent_min = parse_number(reader, ends[0], "exponent");
      options.add_exponent_max = parse_number(reader, ends[1], "exponent");
      if (options.add_exponent_min > options.add_exponent_max ||
          options.add_exponent_max > 38 || options.add_exponent_min < -45)
        reader.reject("option '--add-exponents' needs LO <= HI within -45..38 (FP32 range)");
    } else if (reader.is("--targets")) {
      options.targets.clear();
      for (const std::string& name : bench::split(reader.text(), ',')) {
        aegisFaultTarget_t target = AEGIS_FAULT_TARGET_ACCUMULATOR;
        if (name == "column-checksum")
          target = AEGIS_FAULT_TARGET_COLUMN_CHECKSUM;
        else if (name == "row-checksum")
          target = AEGIS_FAULT_TARGET_ROW_CHECKSUM;
        else if (name != "accumulator")
          reader.reject("unknown target '" + name +
                        "', expected accumulator, column-checksum or row-checksum");
        options.targets.push_back(target);
      }
    } else if (reader.is("--epilogue-fraction")) {
      options.epilogue_fraction = reader.number(0);
      if (options.epilogue_fraction > 1)
        reader.reject("option '--epilogue-fraction' needs a number in [0, 1]");
    } else if (reader.is("--mode")) {
      std::string mode = reader.text();
      if (mode != "correct" && mode != "detect")
        reader.reject("unknown mode '" + mode + "', expected correct or detect");
      options.mode = mode == "correct" ? AEGIS_FT_CORRECT : AEGIS_FT_DETECT;
    } else if (reader.is("--level")) {
      options.level_name = reader.text();
      if (options.level_name == "block")
        options.level = AEGIS_FT_LEVEL_BLOCK;
      else if (options.level_name == "nonfused")
        options.level = AEGIS_FT_LEVEL_NONFUSED;
      else if (options.level_name == "warp")
        options.level = AEGIS_FT_LEVEL_WARP;
      else if (options.level_name == "thread")
        options.level = AEGIS_FT_LEVEL_THREAD;
      else
        reader.reject("unknown level '" + options.level_name +
                      "', expected block, nonfused, warp or thread");
    } else if (reader.is("--verify-interval")) {
      options.verify_interval = reader.integer(0);
    } else if (reader.is("--k-tile")) {
      options.k_tile = reader.integer(1);
    } else if (reader.is("--clean-runs")) {
      options.clean_runs = reader.integer(0);
    } else if (reader.is("--patterns")) {
      options.patterns.clear();
      for (const std::string& name : bench::split(reader.text(), ',')) {
        auto known = std::find_if(all_patterns().begin(), all_patterns().end(),
                                  [&](const PatternInfo& info) { return name == info.name; });
        if (known == all_patterns().end()) reader.reject("unknown pattern '" + name + "'");
        options.patterns.push_back(known->pattern);
      }
    } else if (reader.is("--json")) {
      options.json_path = reader.text();
    } else {
      reader.reject_unknown();
    }
  }
  if (options.bits.empty())
    for (int bit = 0; bit < 32; ++bit) options.bits.push_back(bit);
  if (options.patterns.empty())
    for (const PatternInfo& info : all_patterns()) options.patterns.push_back(info.pattern);
  // The bounds of every element of C are built on the host (a few m x n arrays).
  for (const bench::GemmShape& shape : options.shapes)
    if (shape.m * shape.n > (int64_t(1) << 26))
      reader.reject("shape " + shape.text() +
                    " has more than 2^26 elements of C; a campaign wants small shapes");
  return options;
}

}  // namespace aegis::inject
