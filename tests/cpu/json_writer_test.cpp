// The reports' JSON writer (tools/bench/json_writer.h): the exact layout (fields and array
// elements of the first two levels on lines of their own, deeper ones on their element's
// line), escaping, non-finite numbers as null, empty containers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "json_writer.h"

namespace aegis_test {
namespace {

using aegis::bench::JsonWriter;

TEST(JsonWriter, OneLinePerResult) {
  JsonWriter j;
  j.begin_object();
  j.field("tool", "aegis-bench");
  j.key("device").begin_object().field("sm_count", 132).end_object();
  j.key("results").begin_array();
  for (int n : {1024, 2048}) {
    j.begin_object().field("n", n).field("ok", true);
    j.key("aegis").begin_object().field("median_ms", 0.5).key("sizes").begin_array();
    j.value(1).value(2).end_array().end_object();
    j.key("cublas").null();
    j.end_object();
  }
  j.end_array();
  j.key("empty").begin_array().end_array();
  j.end_object();
  EXPECT_EQ(j.text(),
            "{\n"
            "  \"tool\": \"aegis-bench\",\n"
            "  \"device\": {\n"
            "    \"sm_count\": 132\n"
            "  },\n"
            "  \"results\": [\n"
            "    {\"n\": 1024, \"ok\": true, \"aegis\": {\"median_ms\": 0.5, \"sizes\": [1, 2]}, "
            "\"cublas\": null},\n"
            "    {\"n\": 2048, \"ok\": true, \"aegis\": {\"median_ms\": 0.5, \"sizes\": [1, 2]}, "
            "\"cublas\": null}\n"
            "  ],\n"
            "  \"empty\": []\n"
            "}");
}

TEST(JsonWriter, EscapesAndNonFiniteNumbers) {
  JsonWriter j;
  j.begin_array();
  j.value("a\"b\\c\nd\te\x01");
  j.value(std::numeric_limits<double>::quiet_NaN());
  j.value(std::numeric_limits<double>::infinity());
  j.value(int64_t(-7));
  j.value(false);
  j.end_array();
  EXPECT_EQ(j.text(),
            "[\n"
            "  \"a\\\"b\\\\c\\nd\\te\\u0001\",\n"
            "  null,\n"
            "  null,\n"
            "  -7,\n"
            "  false\n"
            "]");
}

}  // namespace
}  // namespace aegis_test
