#pragma once
// `gradsync train`: the training benchmark in the manner of Horovod's
// synthetic benchmark, for any strategy. Prints Horovod's lines plus step-time
// percentiles and the exposed-communication share, and appends one record
// (kind "train") to --out; with --timeline, worker 0 writes a Chrome trace of
// every worker's steps.
//
// The flags are parsed once, into a TrainPlan (harness/engine/train_plan.h):
// CLI11 turns each named value into its enum (an unknown one is its one-line
// error), and plan_train() resolves and checks the rest.

#include <CLI/CLI.hpp>
#include <optional>
#include <span>
#include <string>

#include "harness/cli/fusion_flag.h"
#include "harness/engine/train_plan.h"
#include "harness/results/run_context.h"
#include "models/model.h"
#include "strategies/core/strategy_options.h"
#include "strategies/registry.h"

namespace gradsync {

// The flags as CLI11 fills them: typed already, with what is still to resolve
// or check beside the plan.
struct TrainFlags {
  TrainPlan plan;
  std::string strategy = default_strategy_names().front();  // --strategy: the table's first
  std::optional<Precision> precision;  // cuda compute only; not given: fp32
  std::string device = "v100";         // device profile for emulated compute
  std::string straggler;               // "RANK:FACTOR"; empty: none
  std::string input = "synthetic";  // --input, parse_input's text; threads and prefetch in the plan
  std::string fusion_mb = default_fusion_mb_text();  // "auto" or MiB (fusion_flag.h)
  int fusion_search_steps = kFusionSearchSteps;      // measured steps per candidate (auto)
};

CLI::App* add_train_command(CLI::App& app, TrainFlags& flags, StrategyOptions& strategy_options);

// Checks the flags and resolves names (strategy, model, device profile,
// precision); throws std::invalid_argument, one line naming the flag, alike on
// every rank, before anything is built.
TrainPlan plan_train(const TrainFlags& flags, const StrategyOptions& strategy_options);

// Checks what needs the number of ranks: a --straggler must name a worker
// (not a rank that only serves). Throws std::invalid_argument, one line.
void check_train_workers(const TrainPlan& plan, const StrategyOptions& strategy_options,
                         int world_size);

// Runs the plan, collective over every rank: chooses the GPU where one is
// needed, builds the strategy; workers train and worker 0 prints, writes the
// trace and appends the record (with `config`, which the ranks agreed on);
// serving ranks serve. Parameters that differ across workers end every rank
// alike (an AgreedError).
void run_train(const TrainPlan& plan, const StrategyOptions& strategy_options,
               std::span<const std::string> command_line, const AgreedConfig& config);

}  // namespace gradsync
