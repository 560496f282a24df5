#pragma once
// A run's strategy options as result records carry them: one flat object,
// one key per option flag of the strategy table (sizes in bytes, the timeout
// in seconds, enums by name), whatever strategy ran.

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "strategies/core/strategy_options.h"

namespace gradsync {

nlohmann::json to_json(const StrategyOptions& options);

// The options a record's `strategy_options` holds, on top of the defaults
// (keys it lacks keep their default; unknown keys are ignored). Throws
// std::invalid_argument naming the key whose value has the wrong type or is
// not one of its choices.
StrategyOptions strategy_options_from_json(const nlohmann::json& json);

// changed_option_flags (registry.h) as the command line spells them:
// ("--flag", "value") pairs, values as a record holds them. With
// `strategy`, only its own flags and the ones every strategy shares.
std::vector<std::pair<std::string, std::string>> changed_option_values(
    const StrategyOptions& options, const StrategyOptions& base = {},
    std::string_view strategy = {});

}  // namespace gradsync
