// gradsync: one binary, one subcommand per job, run the same way on every
// rank of an MPI job (or as a single process).
//
// Failures end as one line on stderr and a non-zero exit, in three ways:
// - usage errors (bad flags, unknown strategy, malformed size) are found alike
//   on every rank before any strategy is built: world rank 0 prints
//   "gradsync: error: ...", every rank exits with status 2, nobody aborts;
// - an AgreedError (e.g. wrong allreduce results, which the ranks agreed on)
//   is printed once the same way, with its own status;
// - anything else failed on one rank (a peer timed out, a file could not be
//   written): that rank prints its line, prefixed with its rank, and ends the
//   whole job with MPI_Abort so that no rank is left waiting for it.
// `strategies` and `report` read only local things: world rank 0 does them
// alone, so their errors need no abort either.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "collectives_command.h"
#include "errors.h"
#include "report.h"
#include "strategies_command.h"
#include "world.h"

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

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> command_line(argv, argv + argc);
  gradsync::MpiSession mpi(&argc, &argv);
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);

  CLI::App app{"gradsync: how gradient synchronization costs and scales", "gradsync"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();
  gradsync::CollectivesOptions collectives_options;
  gradsync::StrategyOptions strategy_options;
  gradsync::ReportOptions report_options;
  auto* collectives = gradsync::add_collectives_command(app, collectives_options, strategy_options);
  auto* strategies =
      app.add_subcommand("strategies", "List every strategy and whether it is usable here");
  auto* report = gradsync::add_report_command(app, report_options);

  std::optional<gradsync::CollectivesPlan> plan;
  try {
    app.parse(argc, argv);
    if (*collectives)
      plan = gradsync::plan_collectives(collectives_options, strategy_options, world_size);
  } catch (const CLI::Success& e) {  // --help
    return world_rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (world_rank == 0) print_error(one_line(e.what()) + " (see gradsync --help)");
    return kUsageStatus;
  } catch (const std::exception& e) {
    if (world_rank == 0) print_error(e.what());
    return kUsageStatus;
  }

  try {
    if (plan) {
      gradsync::run_collectives(*plan, collectives_options, strategy_options, command_line);
      return 0;
    }
  } catch (const gradsync::AgreedError& e) {
    if (world_rank == 0) print_error(e.what());
    return e.exit_status();
  } catch (const std::exception& e) {
    print_error(fmt::format("rank {}: {}", world_rank, e.what()));
    if (world_size > 1) MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }

  if (world_rank != 0) return 0;
  try {
    if (*strategies) std::cout << gradsync::strategies_listing();
    if (*report) gradsync::run_report(report_options, std::cout);
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
  return 0;
}
