// gradsync: one binary, one subcommand per job, run the same way on every
// rank of an MPI job (or as a single process).
//
// Only the subcommands that measure (collectives, train) start MPI; the rest
// (strategies, models, report, compare, sweep, calibrate, simulate) are plain processes, so that a sweep can
// launch mpirun jobs of its own. Under a launcher, those run on the first rank
// only (its rank read from the launcher's environment).
//
// Failures end as one line on stderr and a non-zero exit, in three ways:
// - usage errors (bad flags, unknown strategy or model, malformed size) are
//   found alike on every rank before anything is built: the first rank prints
//   "gradsync: error: ...", every rank exits with status 2, nobody aborts;
// - an AgreedError (e.g. wrong allreduce results, which the ranks agreed on)
//   is printed once the same way, with its own status;
// - anything else failed on one rank (a peer timed out, a file could not be
//   written): that rank prints its line, prefixed with its rank, and ends the
//   whole job with MPI_Abort so that no rank is left waiting for it.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "harness/cli/calibrate_command.h"
#include "harness/cli/collectives_command.h"
#include "harness/cli/compare_command.h"
#include "harness/engine/errors.h"
#include "harness/cli/models_command.h"
#include "harness/cli/report_command.h"
#include "harness/cli/simulate_command.h"
#include "harness/cli/strategies_command.h"
#include "harness/cli/sweep_command.h"
#include "harness/cli/train_command.h"
#include "strategies/registry.h"
#include "strategies/world.h"

namespace {

constexpr int kUsageStatus = 2;

void print_error(const std::string& message) {
  fmt::print(stderr, "gradsync: error: {}\n", message);
  std::fflush(stderr);
}

// CLI11's messages may span lines; the user gets one.
std::string one_line(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

// This process's rank as its launcher (mpirun, srun) announced it; 0 alone.
int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* value = std::getenv(name)) return std::atoi(value);
  return 0;
}

// This binary's own path, for the runs a sweep launches.
std::string self_path() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "gradsync" : path.string();
}

// collectives and train: every rank runs, under MPI.
int run_measurement(CLI::App* collectives, gradsync::CollectivesOptions& collectives_options,
                    const gradsync::TrainFlags& train_flags,
                    const gradsync::StrategyOptions& strategy_options,
                    const std::vector<std::string>& command_line, int* argc, char*** argv) {
  gradsync::MpiSession mpi(argc, argv);
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  std::optional<gradsync::CollectivesPlan> plan;
  std::optional<gradsync::TrainPlan> train_plan;
  try {
    if (*collectives)
      plan = gradsync::plan_collectives(collectives_options, strategy_options, world_size);
    else {
      train_plan = gradsync::plan_train(train_flags, strategy_options);
      gradsync::check_strategy_options(train_plan->strategy, strategy_options, world_size);
    }
  } catch (const std::exception& e) {
    if (world_rank == 0) print_error(e.what());
    return kUsageStatus;
  }
  try {
    if (plan)
      gradsync::run_collectives(*plan, collectives_options, strategy_options, command_line);
    else
      gradsync::run_train(*train_plan, strategy_options, command_line);
  } catch (const gradsync::AgreedError& e) {
    if (world_rank == 0) print_error(e.what());
    return e.exit_status();
  } catch (const std::exception& e) {
    print_error(fmt::format("rank {}: {}", world_rank, e.what()));
    if (world_size > 1) MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> command_line(argv, argv + argc);
  const bool first_rank = launcher_rank() == 0;

  CLI::App app{"gradsync: how gradient synchronization costs and scales", "gradsync"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();
  gradsync::CollectivesOptions collectives_options;
  gradsync::StrategyOptions strategy_options;
  gradsync::ReportOptions report_options;
  gradsync::CompareOptions compare_options;
  gradsync::TrainFlags train_flags;
  gradsync::SweepOptions sweep_options;
  gradsync::StrategiesOptions strategies_options;
  gradsync::CalibrateOptions calibrate_options;
  gradsync::SimulateOptions simulate_options;
  auto* collectives = gradsync::add_collectives_command(app, collectives_options, strategy_options);
  auto* train = gradsync::add_train_command(app, train_flags, strategy_options);
  auto* sweep = gradsync::add_sweep_command(app, sweep_options);
  auto* report = gradsync::add_report_command(app, report_options);
  auto* compare = gradsync::add_compare_command(app, compare_options);
  auto* strategies = gradsync::add_strategies_command(app, strategies_options);
  auto* calibrate = gradsync::add_calibrate_command(app, calibrate_options);
  auto* simulate = gradsync::add_simulate_command(app, simulate_options);
  auto* models = app.add_subcommand(
      "models", "List every model with its size and cost, and the emulated device profiles");

  try {
    app.parse(argc, argv);
    if (*sweep) (void)gradsync::plan_sweep(sweep_options, "gradsync");
  } catch (const CLI::Success& e) {  // --help
    return first_rank ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (first_rank) print_error(one_line(e.what()) + " (see gradsync --help)");
    return kUsageStatus;
  } catch (const std::exception& e) {
    if (first_rank) print_error(e.what());
    return kUsageStatus;
  }

  if (*collectives || *train)
    return run_measurement(collectives, collectives_options, train_flags, strategy_options,
                           command_line, &argc, &argv);

  if (!first_rank) return 0;
  // compare is a CI gate: 0 passed, 1 regressed, 2 could not judge (bad input).
  if (*compare) {
    try {
      return gradsync::run_compare(compare_options, std::cout);
    } catch (const std::exception& e) {
      print_error(e.what());
      return kUsageStatus;
    }
  }
  try {
    if (*strategies) std::cout << gradsync::run_strategies(strategies_options);
    if (*models) std::cout << gradsync::models_listing();
    if (*report) gradsync::run_report(report_options, std::cout);
    if (*calibrate) gradsync::run_calibrate(calibrate_options, std::cout);
    if (*simulate) gradsync::run_simulate(simulate_options, command_line, std::cout);
    if (*sweep) return gradsync::run_sweep(sweep_options, self_path());
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
  return 0;
}
