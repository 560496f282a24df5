#pragma once
// A run's strategy options as result records carry them: one flat object,
// one key per option flag of the strategy table (sizes in bytes, the timeout
// in seconds, enums by name), whatever strategy ran.

#include <nlohmann/json.hpp>

#include "strategies/strategy_options.h"

namespace gradsync {

nlohmann::json to_json(const StrategyOptions& options);

}  // namespace gradsync
