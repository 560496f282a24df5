#pragma once
// Every subcommand of gradsync as main sees it: the options the parse fills,
// each subcommand's App, the checks after the parse that every rank makes
// alike (numbers finite, a sweep's plan, simulate's mode, and no flag given
// that does not act, flag_scope.h), and the run of those that are one plain
// process (everything but collectives and train, which main runs under MPI).

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "harness/cli/calibrate_command.h"
#include "harness/cli/collectives_command.h"
#include "harness/cli/compare_command.h"
#include "harness/cli/report_command.h"
#include "harness/cli/simulate_command.h"
#include "harness/cli/strategies_command.h"
#include "harness/cli/sweep_command.h"
#include "harness/cli/train_command.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

struct Commands {
  CollectivesOptions collectives_options;
  StrategyOptions strategy_options;  // collectives' and train's
  TrainFlags train_flags;
  SweepOptions sweep_options;
  ReportOptions report_options;
  CompareOptions compare_options;
  StrategiesOptions strategies_options;
  CalibrateOptions calibrate_options;
  SimulateOptions simulate_options;
  bool models_as_json = false;
  bool wait_for_writer = false;  // --wait of collectives and train (results_lock.h)
  CLI::App* collectives = nullptr;
  CLI::App* train = nullptr;
  CLI::App* sweep = nullptr;
  CLI::App* report = nullptr;
  CLI::App* compare = nullptr;
  CLI::App* strategies = nullptr;
  CLI::App* calibrate = nullptr;
  CLI::App* simulate = nullptr;
  CLI::App* models = nullptr;
};

// Registers every subcommand on `app`, one of them required.
void add_commands(CLI::App& app, Commands& commands);

// After the parse: throws std::invalid_argument (one line) for a
// non-finite number, a sweep that cannot be planned, simulate without its
// mode, or a flag given that does not act on what was given with it.
void check_commands(const CLI::App& app, const Commands& commands);

// Runs the chosen plain subcommand (not collectives or train) on this
// process, printing to stdout; returns its exit status. Throws what it throws.
int run_plain_command(const Commands& commands, const std::vector<std::string>& command_line,
                      const std::string& self);

}  // namespace gradsync
