// The rules every number a user gives must keep (harness/engine/input_rules.h):
// finite, whole where it counts something, inside its range, each refusal
// naming the field and the value; one JSON document per file, each key once.

#include "harness/engine/input_rules.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace gradsync {
namespace {

constexpr NumberRule kCount{"workers_per_node", true, 1, 1024, ""};
constexpr NumberRule kRate{"bandwidth_bits_per_s", false, 1e3, 1e13, "bit/s"};
constexpr NumberRule kShare{"achieved_fraction", false, 0, 1, "", true};

std::string error_of(auto call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(InputRules, KeptRulesSayNothing) {
  EXPECT_EQ(broken_rule(1, kCount), "");
  EXPECT_EQ(broken_rule(1024, kCount), "");
  EXPECT_EQ(broken_rule(1e3, kRate), "");
  EXPECT_EQ(broken_rule(1e13, kRate), "");
  EXPECT_EQ(broken_rule(1, kShare), "");
}

TEST(InputRules, WholeFiniteAndRange) {
  EXPECT_EQ(broken_rule(2.5, kCount), "must be a whole number (got 2.5)");
  EXPECT_EQ(broken_rule(0, kCount), "must be at least 1 (got 0)");
  EXPECT_EQ(broken_rule(-2, kCount), "must be at least 1 (got -2)");
  EXPECT_EQ(broken_rule(1025, kCount), "must be at most 1024 (got 1025)");
  EXPECT_EQ(broken_rule(1e-300, kRate), "must be at least 1000 bit/s (got 1e-300)");
  EXPECT_EQ(broken_rule(1e300, kRate), "must be at most 1e+13 bit/s (got 1e+300)");
  EXPECT_EQ(broken_rule(std::nan(""), kRate), "must be a finite number (got nan)");
  EXPECT_EQ(broken_rule(std::numeric_limits<double>::infinity(), kRate),
            "must be a finite number (got inf)");
  EXPECT_EQ(broken_rule(0, kShare), "must be more than 0 (got 0)");
  EXPECT_EQ(broken_rule(1.5, kShare), "must be at most 1 (got 1.5)");
  constexpr NumberRule kRateOrNone{"--emulate-img-per-sec", false, 1e-3, 1e7, "img/s", false, true};
  EXPECT_EQ(broken_rule(0, kRateOrNone), "");
  EXPECT_EQ(broken_rule(1e-300, kRateOrNone), "must be 0 or at least 0.001 img/s (got 1e-300)");
}

TEST(InputRules, CheckedNamesWhereAndField) {
  EXPECT_EQ(checked(4, kCount, "cluster.json"), 4);
  EXPECT_EQ(error_of([] { checked(2.5, kCount, "cluster.json"); }),
            "cluster.json: workers_per_node: must be a whole number (got 2.5)");
  EXPECT_EQ(error_of([] { checked(0, kCount, ""); }),
            "workers_per_node: must be at least 1 (got 0)");
}

TEST(InputRules, JsonNumbersByPath) {
  EXPECT_EQ(json_number(nlohmann::json(25e9), kRate, "c.json", "inter.bandwidth_bits_per_s.value"),
            25e9);
  EXPECT_EQ(error_of([] {
              json_number(nlohmann::json("NaN"), kRate, "c.json",
                          "inter.bandwidth_bits_per_s.value");
            }),
            "c.json: inter.bandwidth_bits_per_s.value: must be a number (got the string \"NaN\")");
  EXPECT_EQ(error_of([] { json_number(nlohmann::json(nullptr), kCount, "c.json", "nodes"); }),
            "c.json: nodes: must be a whole number (got null)");
  EXPECT_EQ(error_of([] { json_number(nlohmann::json(2.5), kCount, "c.json", "hosts[1].slots"); }),
            "c.json: hosts[1].slots: must be a whole number (got 2.5)");
}

TEST(InputRules, OneJsonDocumentEachKeyOnce) {
  EXPECT_EQ(parse_json_document(" {\"a\": {\"b\": 1}, \"c\": {\"b\": 2}}\n", "x.json")["c"]["b"],
            2);
  EXPECT_EQ(error_of([] {
              parse_json_document("{\"a\": 1} {\"b\": 2}", "x.json");
            }).rfind("x.json: not valid JSON (", 0),
            0u);
  EXPECT_EQ(error_of([] {
              parse_json_document("{\"a\": 1} x", "x.json");
            }).rfind("x.json: not valid JSON (", 0),
            0u);
  EXPECT_EQ(error_of([] { parse_json_document("{\"a\": {\"b\": 1, \"b\": 2}}", "x.json"); }),
            "x.json: the key \"b\" is given twice in one object");
  EXPECT_EQ(error_of([] {
              parse_json_document("{\"n\": 1e400}", "x.json");
            }).rfind("x.json: not valid JSON (number overflow", 0),
            0u);
  // The parser names no position for an overflow: the key being read does.
  EXPECT_EQ(error_of([] { parse_json_document("{\"a\": {\"ok\": 1, \"n\": -1e400}}", "x.json"); }),
            "x.json: not valid JSON (number overflow parsing '-1e400', reading a.n)");
  EXPECT_EQ(
      error_of([] { parse_json_document("", "x.json"); }).rfind("x.json: not valid JSON (", 0), 0u);
  EXPECT_EQ(error_of([] { read_input_file("/nonexistent/x.json"); }),
            "/nonexistent/x.json: cannot be read");
}

}  // namespace
}  // namespace gradsync
