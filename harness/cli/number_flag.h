#pragma once
// A numeric command-line option checked against its NumberRule
// (harness/engine/input_rules.h), as the file formats check their numbers:
// whole where it counts something, finite, inside a range that makes
// physical sense. A value that breaks it is CLI11's one-line usage error
// "--workers-per-node: must be at most 1024 (got 100000)".

#include <CLI/CLI.hpp>

#include "harness/engine/input_rules.h"

namespace gradsync {

// The check for `option->check(...)`: its name is the rule's range in words.
CLI::Validator number_rule(const NumberRule& rule);

// A link rate given to `flag` (parse_bit_rate's spellings and range), or
// std::invalid_argument "--inter-bandwidth: rate '1e-300' must be at least 1000 bit/s ...".
double flag_bit_rate(std::string_view flag, const std::string& text);

}  // namespace gradsync
