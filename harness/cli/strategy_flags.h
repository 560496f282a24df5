#pragma once
// The strategies' options as command-line flags, registered on every
// subcommand that builds or costs strategies (collectives, train, simulate) from the list the
// strategy table gives (strategy_option_flags), so that each flag is spelled,
// checked and documented once, and a new strategy's flags need no edit here.

#include <CLI/CLI.hpp>

#include "harness/results/strategy_options_json.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

// Which of them a subcommand takes: every one (collectives, train), or only
// those the cost model reads (simulate: the others would change nothing).
enum class StrategyFlagSet { all, costed };

// The user options go under "Strategy options", the test-only faults under
// a group of their own, so that --help says they are not for measurements.
void add_strategy_flags(CLI::App& app, StrategyOptions& options,
                        StrategyFlagSet set = StrategyFlagSet::all);

}  // namespace gradsync
