#pragma once
// The flags of train, collectives, report and sweep that act only with some
// values of the others (flag_scope.h), as scopes to refuse after the parse;
// simulate's are with its modes (simulate_command.cc). A sweep's
// --train-args go to each run less the flags that do nothing on it (a
// strategy's options to that strategy's runs), and a flag there that acts on
// none of the sweep's runs is refused.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "harness/cli/collectives_command.h"
#include "harness/cli/flag_scope.h"
#include "harness/cli/report_command.h"
#include "harness/cli/sweep_command.h"
#include "harness/cli/train_command.h"

namespace gradsync {

std::vector<FlagScope> train_flag_scopes(const CLI::App& train, const TrainFlags& flags,
                                         const StrategyOptions& strategy_options);

std::vector<FlagScope> collectives_flag_scopes(const CLI::App& collectives,
                                               const CollectivesOptions& options,
                                               const StrategyOptions& strategy_options);

std::vector<FlagScope> report_flag_scopes(const ReportOptions& options);

std::vector<FlagScope> sweep_flag_scopes(const SweepOptions& options);

// Throws std::invalid_argument for a --train-args flag that acts on none of
// the sweep's runs: "--ps-servers (in --train-args) does not apply to sweep
// --strategy none,ring-mpi --models ...: it is for ps-zmq".
void refuse_idle_train_args(const SweepOptions& options);

// The words of `extra` (a sweep's --train-args) that act on the run whose
// command line is `command` then `extra` ({gradsync, "train", ...}): the
// flags that do nothing on it left out with their values.
std::vector<std::string> train_args_acting_on(const std::vector<std::string>& command,
                                              const std::vector<std::string>& extra);

}  // namespace gradsync
