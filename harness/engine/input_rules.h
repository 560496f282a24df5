#pragma once
// The rules every number a user gives must keep: in a cluster file, a
// published scaling table, a numeric command-line option. Each format holds
// one table of NumberRule (its field's name, whether it is whole, its range
// and unit) and checks every number it reads against it here, so that a bad
// number is refused in one line naming the file, the row or key and the
// rule, before the cost model computes with it:
//   "cluster.json: workers_per_node: must be a whole number (got 2.5)"
//   "published.csv:7:25: gpus_per_node: must be at least 1 (got 0)"
// The ranges are what makes physical sense (docs/guide/cost-model.md lists
// them per format): a number outside them is a typo, not a cluster.

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

namespace gradsync {

struct NumberRule {
  std::string_view name;  // the key, column or flag as the user writes it
  bool whole = false;     // a count: no fraction
  double min = 0;
  double max = 0;
  std::string_view unit;      // "bit/s", "s", "" ; said after min and max
  bool above_min = false;     // min itself is refused ("more than 0")
  bool zero_allowed = false;  // 0 passes too: "not given" ("0 or at least 0.001")
};

// The rule named `name` in a format's table; std::logic_error when the
// table has none (a reader asking for a field its table forgot).
const NumberRule& rule_named(std::span<const NumberRule> rules, std::string_view name);

// Empty when `value` keeps `rule`, else the broken rule with the value:
// "must be a finite number (got nan)", "must be a whole number (got 2.5)",
// "must be at least 1 (got 0)", "must be more than 0 s (got -1)",
// "must be at most 1e+13 bit/s (got 1e+300)".
std::string broken_rule(double value, const NumberRule& rule);

// `value`, or std::invalid_argument "WHERE: NAME: RULE" (WHERE: the file,
// "file:line", or empty for a flag).
double checked(double value, const NumberRule& rule, std::string_view where);

// A number of a JSON document at `path` (its JSON path, e.g.
// "inter.latency_s.value", named in messages in place of the rule's name):
// refused when it is not a JSON number (a string "NaN" included) or breaks
// the rule; std::invalid_argument "WHERE: PATH: ...".
double json_number(const nlohmann::json& value, const NumberRule& rule, std::string_view where,
                   std::string_view path);

// One JSON document from `text`: refused when it is not JSON, when text
// other than white space follows it, or when an object names a key twice.
// std::invalid_argument "NAME: not valid JSON (...)", "NAME: key \"x\" is
// given twice (at ...)".
nlohmann::json parse_json_document(std::string_view text, std::string_view name);

// The whole of a file, or std::invalid_argument "PATH: cannot be read".
std::string read_input_file(const std::string& path);

}  // namespace gradsync
