#pragma once
// `gradsync collectives --engine model`: the benchmark's sizes costed by the
// cost model (harness/sim/strategy_cost.h) for --workers ranks on the
// --cluster file, with no process started: the same table and the same
// records as a measured or SMPI run (simulated: true, engine.name "model",
// engine.costed_as naming the closed form and its constants), so that
// reports and figures draw the model beside SMPI at every worker count.

#include <span>
#include <string>

#include "harness/cli/collectives_plan.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

// Prints the table, appends the records (--json); returns the exit status.
// Throws std::invalid_argument (one line) on what the model cannot cost.
int run_collectives_on_model(const CollectivesOptions& options,
                             const StrategyOptions& strategy_options,
                             std::span<const std::string> command_line);

}  // namespace gradsync
