#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "console.h"
#include "json_writer.h"

namespace aegis::inject {
namespace {

using bench::format_text;
using bench::JsonWriter;
using bench::TableColumn;
using bench::TablePrinter;

std::string error_text(double value) {
  if (std::isinf(value)) return "inf";
  return value == 0 ? std::string("0") : format_text("%.2e", value);
}

// Columns shared by every breakdown: what happened to the faults of one row.
std::vector<TableColumn> tally_columns(const std::string& first_title, int first_width) {
  return {{first_title, first_width, true}, {"faults", 6, false},    {"detected", 8, false},
          {"corrected", 9, false},          {"recomputed", 10, false}, {"unrecov", 7, false},
          {"escaped", 7, false},            {"harmless", 8, false},  {"missed", 6, false},
          {"bad fix", 7, false},            {"max esc rel", 11, false}, {"max esc/rnd", 11, false}};
}

std::vector<std::string> tally_cells(const std::string& first, const Tally& t) {
  return {first,
          std::to_string(t.injections),
          std::to_string(t.detected),
          std::to_string(t.corrected),
          std::to_string(t.recomputed),
          std::to_string(t.unrecovered),
          std::to_string(t.escaped),
          std::to_string(t.escaped_harmless),
          std::to_string(t.escaped_beyond_bound),
          std::to_string(t.bad_repairs + t.mislocated),
          error_text(t.max_escaped_relative),
          error_text(t.max_escaped_element_units)};
}

void print_table(const std::string& title, const std::string& first_title, int first_width,
                 const std::vector<std::vector<std::string>>& rows) {
  std::printf("\n%s\n", title.c_str());
  TablePrinter table(tally_columns(first_title, first_width));
  table.print_header();
  for (const auto& row : rows) table.print_row(row);
}

void write_tally(JsonWriter& json, const Tally& t) {
  json.field("injections", t.injections)
      .field("detected", t.detected)
      .field("corrected", t.corrected)
      .field("recomputed", t.recomputed)
      .field("unrecovered", t.unrecovered)
      .field("reported", t.reported)
      .field("escaped", t.escaped)
      .field("escaped_harmless", t.escaped_harmless)
      .field("escaped_below_bound", t.escaped - t.escaped_harmless - t.escaped_beyond_bound)
      .field("escaped_beyond_bound", t.escaped_beyond_bound)
      .field("bad_repairs", t.bad_repairs)
      .field("mislocated", t.mislocated)
      .field("max_escaped_relative", t.max_escaped_relative)
      .field("max_escaped_element_units", t.max_escaped_element_units)
      .field("max_escaped_line_units", t.max_escaped_line_units)
      .field("max_repaired_line_units", t.max_repaired_line_units);
}

void write_difference(JsonWriter& json, const Difference& d) {
  json.begin_object()
      .field("differing", int64_t(d.differing))
      .field("max_element_units", double(d.max_element_units))
      .field("max_line_units", double(d.max_line_units))
      .field("max_relative", double(d.max_relative))
      .end_object();
}

}  // namespace

void print_report(const InjectOptions& options, const CampaignReport& report) {
  std::vector<std::vector<std::string>> rows;
  for (const CaseReport& c : report.cases) rows.push_back(tally_cells(c.gemm_case.text(), c.tally));
  print_table("by case", "case", 20, rows);
  for (const CaseReport& c : report.cases) {
    const Difference& d = c.ft_vs_off;
    std::printf("  %-20s %s, K step = %lld (%lld steps); clean FT vs FT off: %s\n",
                c.gemm_case.text().c_str(), c.kernel.c_str(), (long long)c.k_tile,
                (long long)c.k_steps,
                d.differing == 0
                    ? "same bits"
                    : format_text("%llu elements differ, max %.2g x rounding", d.differing,
                                  double(d.max_element_units))
                          .c_str());
  }

  if (options.bitflips) {
    rows.clear();
    for (int bit : options.bits) {
      const char* field = bit == 31 ? " sign" : bit >= 23 ? " exp" : " mant";
      rows.push_back(tally_cells(std::to_string(bit) + field, report.by_bit[size_t(bit)]));
    }
    print_table("bit flips by bit position (31 sign, 30-23 exponent, 22-0 mantissa)", "bit", 8,
                rows);
  }
  if (options.adds) {
    rows.clear();
    for (const auto& [decade, tally] : report.by_add_decade)
      rows.push_back(tally_cells(format_text("1e%+d", decade), tally));
    print_table("added values by magnitude (|value| in [10^d, 10^(d+1)))", "|value|", 8, rows);
  }
  rows = {tally_cells("K loop", report.k_loop), tally_cells("epilogue", report.epilogue)};
  if (options.targets.size() > 1)
    for (aegisFaultTarget_t target : options.targets)
      rows.push_back(tally_cells(target_name(target), report.by_target[size_t(target)]));
  rows.push_back(tally_cells("all", report.total));
  print_table("by place", "where", 15, rows);
  std::printf(
      "\nmissed: escaped beyond the checksum bound; bad fix: repaired but still beyond it, or\n"
      "corrected at another element; max esc rel: |dC| / max |C_clean| of the column;\n"
      "max esc/rnd: |dC| / (gamma_k |A||B|), the rounding one element may carry (harmless\n"
      "<= 2)\n");

  std::printf("\nfalse positives over clean FT calls (mode %s, level %s)\n",
              mode_name(options.mode), options.level_name.c_str());
  TablePrinter table({{"data", 9, true}, {"runs", 5, false}, {"false pos", 9, false},
                      {"nonfinite", 9, false}, {"description", 11, true}});
  table.print_header();
  int64_t clean_calls = 0, reference_detections = 0;
  for (const CaseReport& c : report.cases) reference_detections += c.reference_detections > 0;
  for (const PatternCount& p : report.clean) clean_calls += p.runs;
  const int64_t references = int64_t(report.cases.size());
  clean_calls += references;
  table.print_row({"reference", std::to_string(references), std::to_string(reference_detections),
                   "-", "the clean call of each case (uniform)"});
  for (const PatternCount& p : report.clean)
    table.print_row({pattern_info(p.pattern).name, std::to_string(p.runs),
                     std::to_string(p.false_positives), std::to_string(p.nonfinite),
                     pattern_info(p.pattern).description});

  const Tally& t = report.total;
  std::printf("\n%lld faults: %lld detected (%.1f%%), %lld escaped (%lld harmless, %lld below "
              "the checksum bound, %lld missed); %lld false positives in %lld clean calls\n",
              (long long)t.injections, (long long)t.detected,
              t.injections ? 100.0 * double(t.detected) / double(t.injections) : 0.0,
              (long long)t.escaped, (long long)t.escaped_harmless,
              (long long)(t.escaped - t.escaped_harmless - t.escaped_beyond_bound),
              (long long)t.escaped_beyond_bound, (long long)report.false_positives(),
              (long long)clean_calls);
  if (report.failures() > 0)
    std::printf("FAILED: %lld problem(s): misses, bad repairs, unrecovered tiles, false positives "
                "or a clean FT result off the FT-off one (see the JSON's \"failures\")\n",
                (long long)report.failures());
}

bool write_json_report(const std::string& path, const bench::Invocation& invocation,
                       const bench::DeviceInfo& device, const InjectOptions& options,
                       const CampaignReport& report) {
  JsonWriter json;
  json.begin_object()
      .field("tool", "aegis-inject")
      .field("command", invocation.command_line)
      .field("date", bench::utc_timestamp());
  json.key("device")
      .begin_object()
      .field("name", device.name)
      .field("sm_count", device.sm_count)
      .field("l2_bytes", device.l2_bytes)
      .field("cc", device.compute_capability())
      .end_object();
  int version = aegisGetVersion();
  json.field("aegis_version",
             format_text("%d.%d.%d", version / 10000, version / 100 % 100, version % 100));

  json.key("settings")
      .begin_object()
      .field("mode", mode_name(options.mode))
      .field("level", options.level_name)
      .field("verify_interval", options.verify_interval)
      .field("injections_per_case", options.injections)
      .field("seed", int64_t(options.seed))
      .field("bitflips", options.bitflips)
      .field("adds", options.adds);
  json.key("bits").begin_array();
  for (int bit : options.bits) json.value(bit);
  json.end_array();
  json.field("add_exponent_min", options.add_exponent_min)
      .field("add_exponent_max", options.add_exponent_max)
      .field("epilogue_fraction", options.epilogue_fraction);
  json.key("targets").begin_array();
  for (aegisFaultTarget_t target : options.targets) json.value(target_name(target));
  json.end_array();
  json.field("clean_runs", options.clean_runs)
      .field("alpha", 1.0)
      .field("beta", 0.0)
      .field("element_unit", "gamma_k (|op(A)| |op(B)|)_ij; harmless <= 2")
      .field("line_unit",
             "gamma_(2k+4T+8) max(tile column sum, tile row sum) of |op(A)| |op(B)|; "
             "a detection is required above 2, a repair must end within 2")
      .field("relative_unit", "|dC_ij| / max_i |C_clean(i, j)|")
      .end_object();

  json.key("cases").begin_array();
  for (const CaseReport& c : report.cases) {
    json.begin_object()
        .field("m", c.gemm_case.shape.m)
        .field("n", c.gemm_case.shape.n)
        .field("k", c.gemm_case.shape.k)
        .field("op", c.gemm_case.op.text())
        .field("kernel", c.kernel)
        .field("tile_m", c.tile_m)
        .field("tile_n", c.tile_n)
        .field("k_tile", c.k_tile)
        .field("k_steps", c.k_steps)
        .field("reference_detections", c.reference_detections);
    json.key("clean_ft_vs_off");
    write_difference(json, c.ft_vs_off);
    write_tally(json, c.tally);
    json.end_object();
  }
  json.end_array();

  json.key("by_bit").begin_array();
  for (int bit : options.bits) {
    if (!options.bitflips) break;
    json.begin_object().field("bit", bit);
    write_tally(json, report.by_bit[size_t(bit)]);
    json.end_object();
  }
  json.end_array();
  json.key("by_add_decade").begin_array();
  for (const auto& [decade, tally] : report.by_add_decade) {
    json.begin_object().field("decade", decade);
    write_tally(json, tally);
    json.end_object();
  }
  json.end_array();
  json.key("by_place").begin_object();
  json.key("k_loop").begin_object();
  write_tally(json, report.k_loop);
  json.end_object().key("epilogue").begin_object();
  write_tally(json, report.epilogue);
  json.end_object().end_object();
  json.key("by_target").begin_object();
  for (aegisFaultTarget_t target : options.targets) {
    json.key(target_name(target)).begin_object();
    write_tally(json, report.by_target[size_t(target)]);
    json.end_object();
  }
  json.end_object();
  json.key("total").begin_object();
  write_tally(json, report.total);
  json.end_object();

  json.key("false_positives").begin_object().field("total", report.false_positives());
  json.key("by_pattern").begin_array();
  for (const PatternCount& p : report.clean)
    json.begin_object()
        .field("pattern", pattern_info(p.pattern).name)
        .field("description", pattern_info(p.pattern).description)
        .field("runs", p.runs)
        .field("false_positives", p.false_positives)
        .field("nonfinite", p.nonfinite)
        .end_object();
  json.end_array().end_object();

  json.field("failure_count", report.failures())
      .field("failures_not_listed", report.listed_left_out);
  json.key("failures").begin_array();
  for (const ListedFailure& f : report.listed) {
    json.begin_object()
        .field("case", f.case_text)
        .field("outcome", outcome_name(f.outcome.outcome))
        .field("bad_repair", f.outcome.bad_repair)
        .field("mislocated", f.outcome.mislocated)
        .field("row", f.fault.row)
        .field("col", f.fault.col)
        .field("k_step", f.fault.k_step)
        .field("target", target_name(f.fault.target))
        .field("kind", f.fault.kind == AEGIS_FAULT_BITFLIP ? "bitflip" : "add");
    if (f.fault.kind == AEGIS_FAULT_BITFLIP)
      json.field("bit", f.fault.bit);
    else
      json.field("value", double(f.fault.value));
    json.key("difference");
    write_difference(json, f.outcome.difference);
    json.key("stats")
        .begin_object()
        .field("detected", f.stats.detected)
        .field("corrected", f.stats.corrected)
        .field("recomputed", f.stats.recomputed)
        .field("unrecovered", f.stats.unrecovered);
    json.key("records").begin_array();
    for (int64_t r = 0; r < std::min<int64_t>(f.stats.record_count, AEGIS_FT_MAX_RECORDS); ++r) {
      const aegisFaultRecord_t& record = f.stats.records[r];
      json.begin_object()
          .field("row", record.row)
          .field("col", record.col)
          .field("k_step", record.k_step)
          .field("residual", double(record.residual))
          .field("action", int(record.action))
          .end_object();
    }
    json.end_array().end_object().end_object();
  }
  json.end_array();
  json.end_object();
  return json.save(path);
}

}  // namespace aegis::inject
