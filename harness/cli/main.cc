// gradsync: one binary, one subcommand per job, run the same way on every
// rank of an MPI job (or as a single process).
//
// Only the subcommands that measure (collectives, train) start MPI; the rest
// (strategies, models, report, compare, sweep, calibrate, simulate) are plain processes, so that a
// sweep can launch mpirun jobs of its own. Under a launcher, those run on the first rank only (its
// rank read from the launcher's environment).
//
// Failures end as one line on stderr and a non-zero exit, in three ways:
// - usage errors (bad flags, unknown strategy or model, malformed size, an
//   output file that cannot be written or whose folder another gradsync is
//   writing (results_lock.h), ranks given different options) are
//   agreed on by every rank before anything is built: the first rank prints
//   "gradsync: error: ..." (naming the rank when not every rank failed
//   alike), every rank exits with status 2, nobody aborts;
// - an AgreedError (e.g. wrong allreduce results, which the ranks agreed on)
//   is printed once the same way, with its own status;
// - anything else failed on one rank (a peer timed out, a file could not be
//   written): that rank prints its line, prefixed with its rank, and ends the
//   whole job with MPI_Abort so that no rank is left waiting for it.
// An internal error (an exception the code did not raise for users,
// std::terminate, a fatal signal) is such a line too, naming the subcommand
// and what it was doing (internal_error.h), never a backtrace.
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

#include "harness/cli/commands.h"
#include "harness/cli/ending_signals.h"
#include "harness/cli/flag_scope.h"
#include "harness/cli/internal_error.h"
#include "harness/cli/model_collectives.h"
#include "harness/cli/output_check.h"
#include "harness/cli/results_lock.h"
#include "harness/cli/run_config.h"
#include "harness/cli/smpi_launch.h"
#include "harness/engine/agreement.h"
#include "harness/engine/errors.h"
#include "strategies/core/engine.h"
#include "strategies/core/launcher_env.h"
#include "strategies/core/stall_board.h"
#include "strategies/core/world.h"
#include "strategies/registry.h"

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

// This binary's own path, for the runs a sweep launches.
std::string self_path() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "gradsync" : path.string();
}

// The rank that writes the run's files: world rank 0 for collectives; for
// train the first worker (dedicated server ranks write nothing).
int writing_rank(const gradsync::TrainPlan* train, const gradsync::StrategyOptions& options,
                 int world_size) {
  if (!train) return 0;
  for (int rank = 0; rank < world_size; ++rank)
    if (!gradsync::rank_only_serves(*train->strategy, options, rank)) return rank;
  return 0;
}

// collectives and train: every rank runs, under MPI. Before any work the
// ranks agree, each through one allgather, that every rank's flags were
// valid, that every rank runs the same configuration (run_config.h), and
// that the writing rank can write its files; otherwise every rank exits with
// the usage status and world rank 0 prints the one line saying why.
int run_measurement(std::string setup_error, gradsync::Commands& c,
                    const std::vector<std::string>& command_line, int* argc, char*** argv) {
  const gradsync::StrategyOptions& strategy_options = c.strategy_options;
  // MPI_Init is bounded by the harness's own timeout (a rank that never
  // starts would hold the others in its closing fence).
  gradsync::MpiSession mpi(argc, argv, gradsync::harness_timeout(strategy_options.timeout_s),
                           gradsync::launcher_rank());
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (world_size > 1) gradsync::name_rank(world_rank);
  std::optional<gradsync::CollectivesPlan> plan;
  std::optional<gradsync::TrainPlan> train_plan;
  gradsync::ResultsLock results_lock;  // the writing rank's, for the whole run
  if (setup_error.empty()) try {
      if (*c.collectives)
        plan = gradsync::plan_collectives(c.collectives_options, strategy_options, world_size);
      else {
        train_plan = gradsync::plan_train(c.train_flags, strategy_options);
        gradsync::check_strategy_options(*train_plan->strategy, strategy_options, world_size);
        gradsync::check_train_workers(*train_plan, strategy_options, world_size);
      }
    } catch (...) {
      setup_error = gradsync::current_failure_text();
    }
  try {
    std::optional<gradsync::AgreedConfig> config;
    // With --timeout, ranks whose waits stall tell each other whom they wait
    // for, so that one line names the rank that stopped (stall_board.h).
    std::optional<gradsync::StallBoard> stall_board;
    {
      gradsync::World world(MPI_COMM_WORLD,  // never a hang
                            gradsync::harness_timeout(strategy_options.timeout_s));
      gradsync::agree_on_failure(world, setup_error, kUsageStatus);
      config = gradsync::agreed_config(
          gradsync::effective_options(*c.collectives ? *c.collectives : *c.train));
      gradsync::agree_on_config(world, config->options, kUsageStatus);
      std::string output_error;
      if (world_rank ==
          writing_rank(train_plan ? &*train_plan : nullptr, strategy_options, world_size)) {
        try {
          if (plan) gradsync::check_output_file("--json", c.collectives_options.json_path);
          if (train_plan) {
            gradsync::check_output_file("--out", train_plan->results_path);
            gradsync::check_output_file("--timeline", train_plan->timeline_path);
          }
          results_lock = gradsync::lock_output_folder(
              plan ? c.collectives_options.json_path : train_plan->results_path,
              plan ? "gradsync collectives" : "gradsync train", c.wait_for_writer);
        } catch (...) {
          output_error = gradsync::current_failure_text();
        }
      }
      // With --wait the other ranks wait as long as the writing rank does.
      if (c.wait_for_writer) world.set_timeout(0);
      gradsync::agree_on_failure(world, output_error, kUsageStatus);
      world.set_timeout(gradsync::harness_timeout(strategy_options.timeout_s));
      if (strategy_options.timeout_s > 0) stall_board.emplace(world);
    }
    gradsync::enter_phase(gradsync::Phase::measuring);
    if (plan)
      gradsync::run_collectives(*plan, c.collectives_options, strategy_options, command_line,
                                *config);
    else
      gradsync::run_train(*train_plan, strategy_options, command_line, *config);
  } catch (const gradsync::AgreedError& e) {
    if (world_rank == 0) print_error(e.what());
    return e.exit_status();
  } catch (...) {
    print_error(fmt::format("rank {}: {}", world_rank, gradsync::current_failure_text()));
    if (world_size > 1) MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
  return 0;
}

// Parses the command line and checks what every rank can check alike
// (check_commands); a parse error is one line, a flag of another subcommand
// said to be so (flag_scope.h). --help passes as CLI::Success.
void parse_and_check(CLI::App& app, const gradsync::Commands& c, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    for (const CLI::App* chosen : app.get_subcommands())
      gradsync::name_subcommand(chosen->get_name());
    gradsync::check_commands(app, c);
  } catch (const CLI::ExtrasError& e) {
    const std::string misplaced = gradsync::misplaced_flag_line(app, e);
    throw std::invalid_argument(misplaced.empty() ? one_line(e.what()) + " (see gradsync --help)"
                                                  : misplaced);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) throw;  // --help
    throw std::invalid_argument(one_line(e.what()) + " (see gradsync --help)");
  }
}

// Under a simulated engine (SMPI) a rank that waits forever is a deadlock,
// which SimGrid itself reports, ending the run; the watchdogs behind
// --timeout read the host's clock from threads of their own, which the
// simulation cannot hold, so they are off there. Natively, collectives on
// the model or under SMPI start no MPI here: their status, or nothing when
// the run goes on under MPI.
std::optional<int> off_mpi_status(gradsync::Commands& c, std::string& measurement_error,
                                  const std::vector<std::string>& command_line) {
  if (gradsync::engine_info().simulated) {
    c.strategy_options.timeout_s = 0;
    // The synchronizer hands buckets to a communication thread that calls
    // MPI, and the loader and the emulated compute keep the host's time:
    // none of them is a simulated process (docs/guide/smpi.md).
    if (*c.train && measurement_error.empty())
      measurement_error =
          "train does not run under SMPI (its communication thread calls MPI "
          "outside the simulated ranks); simulate a training step with "
          "gradsync simulate, or measure collectives here";
    return std::nullopt;
  }
  if (!*c.collectives || !measurement_error.empty() || c.collectives_options.engine == "native")
    return std::nullopt;
  try {
    if (c.collectives_options.engine == "model") {
      const gradsync::ResultsLock lock = gradsync::lock_output_folder(
          c.collectives_options.json_path, "gradsync collectives", c.wait_for_writer);
      return gradsync::run_collectives_on_model(c.collectives_options, c.strategy_options,
                                                command_line);
    }
    // Under SMPI the simulated job's writing rank takes the lock.
    return gradsync::run_collectives_under_smpi(c.collectives_options, c.strategy_options,
                                                command_line, self_path());
  } catch (...) {
    print_error(gradsync::current_failure_text());
    return kUsageStatus;
  }
}

// The subcommands that are one plain process. compare is a CI gate: 0
// passed, 1 regressed, 2 could not judge (bad input).
int run_plain(const gradsync::Commands& c, const std::vector<std::string>& command_line) {
  try {
    return gradsync::run_plain_command(c, command_line, self_path());
  } catch (...) {
    print_error(gradsync::current_failure_text());
    return *c.compare ? kUsageStatus : 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  gradsync::install_internal_error_handlers();  // before MPI_Init (internal_error.h)
  const std::vector<std::string> command_line(argv, argv + argc);
  const bool first_rank = gradsync::launcher_rank() == 0;
  CLI::App app{"gradsync: how gradient synchronization costs and scales", "gradsync"};
  gradsync::Commands commands;
  gradsync::add_commands(app, commands);

  // A measurement's flags may be wrong on some ranks only: its parse error
  // goes to the ranks' agreement (run_measurement), so that every rank ends
  // and the first prints it, instead of one rank leaving the others waiting.
  std::string measurement_error;
  try {
    parse_and_check(app, commands, argc, argv);
  } catch (const CLI::Success& e) {  // --help
    return first_rank ? app.exit(e) : 0;
  } catch (...) {
    const std::string why = gradsync::current_failure_text();
    if (!*commands.collectives && !*commands.train) {
      if (first_rank) print_error(why);
      return kUsageStatus;
    }
    measurement_error = why;
  }
  gradsync::enter_phase(gradsync::Phase::setting_up);
  gradsync::say_ending_signals(app);  // ending_signals.h
  if (const auto status = off_mpi_status(commands, measurement_error, command_line)) return *status;
  if (*commands.collectives || *commands.train)
    return run_measurement(measurement_error, commands, command_line, &argc, &argv);
  return first_rank ? run_plain(commands, command_line) : 0;
}
