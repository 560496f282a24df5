#pragma once
// `gradsync train`: the training benchmark in the manner of Horovod's
// synthetic benchmark, for any strategy. Prints Horovod's lines plus step-time
// percentiles and the exposed-communication share, and appends one record
// (kind "train") to --out; with --timeline, worker 0 writes a Chrome trace of
// every worker's steps.

#include <CLI/CLI.hpp>
#include <span>
#include <string>

#include "strategies/strategy_options.h"
#include "harness/engine/train.h"

namespace gradsync {

struct TrainCommandOptions {
  TrainSettings settings;
  std::string strategy = "ring-mpi";
  std::string compute = "cpu";
  std::string precision;  // cuda compute only: fp32 (filled in when not given), tf32, mixed
  std::string device = "v100";
  std::string overlap = "on";
  std::string out;  // results file (JSON Lines); empty: none
  std::string timeline;    // Chrome trace file; empty: no tracing
  int timeline_steps = 0;  // 0: trace every step, warm-up included; N: the first N after warm-up
};

CLI::App* add_train_command(CLI::App& app, TrainCommandOptions& options,
                            StrategyOptions& strategy_options);

// Checks the arguments and resolves names (model, device profile); throws
// std::invalid_argument, alike on every rank, before anything is built.
void prepare_train(TrainCommandOptions& options, const StrategyOptions& strategy_options);

void run_train(const TrainCommandOptions& options, const StrategyOptions& strategy_options,
               std::span<const std::string> command_line);

}  // namespace gradsync
