// The tuner's reader of level-2 tuning-table rows (tools/tune/blas2_table_rows.h): every row
// of the committed H200 table reads back as the row dispatch compiled from it, lines that are
// not rows are refused, and a re-tune merges into a kept table in place.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "blas2_table_rows.h"
#include "dispatch/blas2_dispatch.h"

namespace aegis_test {
namespace {

using aegis::dispatch::Blas2RowModes;
using aegis::dispatch::Blas2Sums;
using aegis::tune::Blas2TableRow;
using aegis::tune::merge_blas2_table;
using aegis::tune::parse_blas2_table_row;

TEST(Blas2TableRows, CommittedTableReadsBackAsCompiled) {
  std::ifstream file(AEGIS_BLAS2_H200_TABLE);
  ASSERT_TRUE(file) << AEGIS_BLAS2_H200_TABLE;
  std::vector<Blas2TableRow> rows;
  std::string line;
  while (std::getline(file, line)) {
    Blas2TableRow row;
    const bool parsed = parse_blas2_table_row(line, &row);
    EXPECT_EQ(parsed, !line.empty() && line[0] == '{') << line;
    if (parsed) rows.push_back(row);
  }
  const auto& table = aegis::dispatch::blas2_table("h200");
  ASSERT_EQ(int(rows.size()), table.row_count);
  for (int i = 0; i < table.row_count; ++i) {
    const auto& compiled = table.rows[i];
    const Blas2TableRow& r = rows[size_t(i)];
    SCOPED_TRACE("row " + std::to_string(i) + " " + r.key + " " + std::to_string(r.max_size));
    EXPECT_EQ(r.key, compiled.routine);
    EXPECT_EQ(r.max_size, compiled.max_size);
    EXPECT_EQ(r.config, compiled.config);
    EXPECT_EQ(r.y, compiled.y_split);
    EXPECT_EQ(r.deterministic, compiled.modes != Blas2RowModes::AtomicsOnly);
    EXPECT_EQ(r.atomics, compiled.modes != Blas2RowModes::DeterministicOnly);
    EXPECT_EQ(r.cluster, compiled.sums == Blas2Sums::Cluster);
  }
}

TEST(Blas2TableRows, EveryFieldForm) {
  Blas2TableRow r;
  ASSERT_TRUE(parse_blas2_table_row(R"({"ssymv", 3072, "ssymv_nb64_q8", 4},)", &r));
  EXPECT_EQ(r.key, "ssymv");
  EXPECT_EQ(r.max_size, 3072);
  EXPECT_EQ(r.config, "ssymv_nb64_q8");
  EXPECT_EQ(r.y, 4);
  EXPECT_TRUE(r.deterministic && r.atomics && !r.cluster);

  ASSERT_TRUE(parse_blas2_table_row(
      R"({"dgemv_t", 1920, "dgemv_t_nb16_q4", 6, Blas2RowModes::AtomicsOnly, Blas2Sums::Cluster},)",
      &r));
  EXPECT_TRUE(!r.deterministic && r.atomics && r.cluster);
  EXPECT_EQ(r.y, 6);

  ASSERT_TRUE(parse_blas2_table_row(
      R"({"zgemv_t", 0, "zgemv_t_nb8_q8", 16, Blas2RowModes::DeterministicOnly},)", &r));
  EXPECT_TRUE(r.deterministic && !r.atomics && !r.cluster);
  EXPECT_EQ(r.max_size, 0);

  ASSERT_TRUE(parse_blas2_table_row(
      R"({"sgemv_n", 1408, "sgemv_n_nb64_q16", 16, Blas2RowModes::Both, Blas2Sums::Cluster},)", &r));
  EXPECT_TRUE(r.deterministic && r.atomics && r.cluster);

  ASSERT_TRUE(parse_blas2_table_row(R"({"cgemv_n", 0, "cgemv_n_nb64_q4", 8, Blas2Sums::Workspace},)", &r));
  EXPECT_TRUE(r.deterministic && r.atomics && !r.cluster);
}

TEST(Blas2TableRows, RefusesWhatIsNotARow) {
  Blas2TableRow r;
  r.key = "untouched";
  for (const char* line : {
           "",
           "// Written by: aegis-tune blas2",
           R"({"ssymv", 3072, "ssymv_nb64_q8", 4})",                    // no comma after the brace
           R"({"ssymv", 3072, "ssymv_nb64_q8"},)",                      // no split
           R"({"ssymv", size, "ssymv_nb64_q8", 4},)",                   // not a number
           R"({"ssymv", 3072, ssymv_nb64_q8, 4},)",                     // config not quoted
           R"({"sgemv_t", 1408, "sgemv_t_nb8_q4", 4, Blas2RowModes::Sometimes},)",
           R"({"sgemv_t", 1408, "sgemv_t_nb8_q4", 4, Blas2Sums::Atomic},)",
           R"({"sgemv_t", 1408, "sgemv_t_nb8_q4", 4, Cluster},)",
           R"( {"ssymv", 3072, "ssymv_nb64_q8", 4},)",                  // not at the line's start
       }) {
    EXPECT_FALSE(parse_blas2_table_row(line, &r)) << line;
  }
  EXPECT_EQ(r.key, "untouched");  // a refused line leaves the row as it was
}

TEST(Blas2TableRows, ReTunedRowsMergeInPlace) {
  // The tuned keys' new rows stand where each key's first old row stood, the rest of its old
  // rows go (also when they were not together), a key the table lacks follows at the end,
  // every other line stays as it was, and the history line gains the command.
  const std::string table =
      "// Level-2 tuning table of GPU: {...}.\n"
      "// Written by: aegis-tune blas2 --out a.inc\n"
      "{\"ssymv\", 3072, \"ssymv_nb64_q8\", 4},\n"
      "{\"sgemv_n\", 1408, \"sgemv_n_nb64_q16\", 16},\n"
      "{\"sgemv_n\", 0, \"sgemv_n_nb128_q4\", 8},\n"
      "// a note kept in place\n"
      "{\"dgemv_t\", 0, \"dgemv_t_nb8_q4\", 2},\n"
      "{\"sgemv_n\", 2048, \"sgemv_n_nb64_q16\", 4},\n";
  const std::string new_sgemv_n =
      "{\"sgemv_n\", 1408, \"sgemv_n_nb128_q8\", 2},\n{\"sgemv_n\", 0, \"sgemv_n_nb256_q4\", 0},\n";
  const std::string new_zgemv_t = "{\"zgemv_t\", 0, \"zgemv_t_nb8_q8\", 16},\n";
  const std::string merged =
      merge_blas2_table(table, {{"sgemv_n", new_sgemv_n}, {"zgemv_t", new_zgemv_t}}, "tune B");
  EXPECT_EQ(merged,
            "// Level-2 tuning table of GPU: {...}.\n"
            "// Written by: aegis-tune blas2 --out a.inc; then: tune B\n"
            "{\"ssymv\", 3072, \"ssymv_nb64_q8\", 4},\n" +
                new_sgemv_n +
                "// a note kept in place\n"
                "{\"dgemv_t\", 0, \"dgemv_t_nb8_q4\", 2},\n" +
                new_zgemv_t);
  // Nothing tuned: the table comes back with only the history line extended.
  EXPECT_EQ(merge_blas2_table("// t\n// Written by: A\n{\"ssymv\", 0, \"ssymv_nb64_q8\", 4},\n", {}, "B"),
            "// t\n// Written by: A; then: B\n{\"ssymv\", 0, \"ssymv_nb64_q8\", 4},\n");
  // No history line: one is added after the leading comments.
  EXPECT_EQ(merge_blas2_table("// t\n{\"ssymv\", 0, \"ssymv_nb64_q8\", 4},\n", {}, "B"),
            "// t\n// Written by: B\n{\"ssymv\", 0, \"ssymv_nb64_q8\", 4},\n");
}

}  // namespace
}  // namespace aegis_test
