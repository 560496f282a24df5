#pragma once
// `gradsync collectives`: the allreduce benchmark over a list of strategies,
// run on every rank of the job. World rank 0 prints one nccl-tests-style
// table for all strategies and appends one result record per strategy.

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "harness/cli/collectives_plan.h"
#include "harness/engine/collectives.h"
#include "harness/results/collectives_record.h"
#include "harness/results/run_context.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

// Registers the subcommand and its flags (the strategy flags included).
CLI::App* add_collectives_command(CLI::App& app, CollectivesOptions& options,
                                  StrategyOptions& strategy_options);

// Collective over MPI_COMM_WORLD. Finishes every strategy, then throws
// AgreedError (status 1) on every rank when any checked element was wrong.
// Records carry `config`, which the ranks agreed on.
void run_collectives(const CollectivesPlan& plan, const CollectivesOptions& options,
                     const StrategyOptions& strategy_options,
                     std::span<const std::string> command_line, const AgreedConfig& config);

using StrategyFactory = std::function<std::unique_ptr<Strategy>(const World&)>;
// Every rank's Strategy::account() into the strategy's RunAccount.
using AccountMerge = std::function<RunAccount(std::span<const std::string> per_rank)>;

// Builds one strategy over `world` and benchmarks it: workers run the sizes,
// dedicated server ranks serve; collective over `world`, and every rank
// returns the same outcome (rows from worker 0, traffic from every rank, the
// account merged by `merge`, when given, from every rank's part).
StrategyOutcome run_strategy(const std::string& name, const StrategyFactory& build,
                             const World& world, std::span<const std::uint64_t> sizes,
                             const BenchSettings& settings, const AccountMerge& merge = {});

}  // namespace gradsync
