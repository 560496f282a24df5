#include "harness/engine/input_rules.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace gradsync {
namespace {

std::string with_unit(double value, std::string_view unit) {
  return unit.empty() ? fmt::format("{:g}", value) : fmt::format("{:g} {}", value, unit);
}

// The message of a nlohmann exception without its "[json.exception...] " tag.
std::string untagged(const std::string& what) {
  const auto tag = what.find("] ");
  return tag == std::string::npos ? what : what.substr(tag + 2);
}

// "WHERE: TEXT", or TEXT alone when there is no where.
std::string at(std::string_view where, const std::string& text) {
  return where.empty() ? text : fmt::format("{}: {}", where, text);
}

}  // namespace

const NumberRule& rule_named(std::span<const NumberRule> rules, std::string_view name) {
  for (const auto& rule : rules)
    if (rule.name == name) return rule;
  throw std::logic_error(fmt::format("no rule for \"{}\"", name));
}

std::string broken_rule(double value, const NumberRule& rule) {
  if (!std::isfinite(value)) return fmt::format("must be a finite number (got {})", value);
  if (rule.whole && value != std::floor(value))
    return fmt::format("must be a whole number (got {})", value);
  if (rule.zero_allowed && value == 0) return {};
  if (rule.above_min ? !(value > rule.min) : !(value >= rule.min))
    return fmt::format("must be {}{} {} (got {})", rule.zero_allowed ? "0 or " : "",
                       rule.above_min ? "more than" : "at least", with_unit(rule.min, rule.unit),
                       value);
  if (value > rule.max)
    return fmt::format("must be at most {} (got {})", with_unit(rule.max, rule.unit), value);
  return {};
}

double checked(double value, const NumberRule& rule, std::string_view where) {
  if (std::string why = broken_rule(value, rule); !why.empty())
    throw std::invalid_argument(at(where, fmt::format("{}: {}", rule.name, why)));
  return value;
}

double json_number(const nlohmann::json& value, const NumberRule& rule, std::string_view where,
                   std::string_view path) {
  NumberRule named = rule;
  named.name = path;
  if (!value.is_number()) {
    const std::string got =
        value.is_string() ? fmt::format("the string {}", value.dump()) : value.type_name();
    throw std::invalid_argument(
        at(where, fmt::format("{}: must be {} (got {})", path,
                              rule.whole ? "a whole number" : "a number", got)));
  }
  return checked(value.get<double>(), named, where);
}

nlohmann::json parse_json_document(std::string_view text, std::string_view name) {
  // The keys seen in each object being read, innermost last: a key given
  // twice would otherwise be read as its last value, silently.
  // And the key being read in each, so that a value the parser refuses (a
  // number beyond a double, which nlohmann reports without a position) is
  // named by where it is.
  std::vector<std::set<std::string>> open;
  std::vector<std::string> reading;
  std::string twice;
  const nlohmann::json::parser_callback_t keys = [&](int, nlohmann::json::parse_event_t event,
                                                     nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) open.emplace_back(), reading.emplace_back();
    if (event == Event::object_end && !open.empty()) open.pop_back(), reading.pop_back();
    if (event == Event::key && !open.empty()) {
      reading.back() = parsed.get<std::string>();
      if (twice.empty() && !open.back().insert(reading.back()).second) twice = reading.back();
    }
    return true;
  };
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.begin(), text.end(), keys);
  } catch (const nlohmann::json::exception& e) {
    std::string at;
    for (const std::string& key : reading) at += (at.empty() ? "" : ".") + key;
    throw std::invalid_argument(fmt::format("{}: not valid JSON ({}{})", name, untagged(e.what()),
                                            at.empty() ? "" : ", reading " + at));
  }
  if (!twice.empty())
    throw std::invalid_argument(
        fmt::format("{}: the key \"{}\" is given twice in one object", name, twice));
  return doc;
}

std::string read_input_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream content;
  if (in) content << in.rdbuf();
  if (!in || in.bad()) throw std::invalid_argument(path + ": cannot be read");
  return content.str();
}

}  // namespace gradsync
