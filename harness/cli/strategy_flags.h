#pragma once
// The strategies' options as command-line flags, registered on every
// subcommand that builds strategies (collectives, later train), so that each
// flag is spelled, checked and documented once.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "strategies/strategy_options.h"

namespace gradsync {

void add_strategy_flags(CLI::App& app, StrategyOptions& options);

// Every field, as result records carry it (sizes in bytes, timeout in seconds).
nlohmann::json to_json(const StrategyOptions& options);

}  // namespace gradsync
