#include "harness/cli/number_flag.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "harness/results/size_parse.h"

namespace gradsync {

CLI::Validator number_rule(const NumberRule& rule) {
  return CLI::Validator(
      [rule](std::string& text) {
        std::size_t used = 0;
        double value = 0;
        try {
          value = std::stod(text, &used);
        } catch (const std::logic_error&) {  // not a number, or out of a double's range
          used = 0;
        }
        if (text.empty() || used != text.size())
          return fmt::format("'{}' is not a {}", text, rule.whole ? "whole number" : "number");
        return broken_rule(value, rule);
      },
      fmt::format("{}{:g}..{:g}{}", rule.whole ? "whole " : "", rule.min, rule.max,
                  rule.unit.empty() ? "" : " " + std::string(rule.unit)));
}

double flag_bit_rate(std::string_view flag, const std::string& text) {
  try {
    return parse_bit_rate(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", flag, e.what()));
  }
}

}  // namespace gradsync
