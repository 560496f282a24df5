#pragma once
// `gradsync sweep`: runs `gradsync train` over worker counts x strategies x
// models through a launcher (mpirun on this host or with a hostfile, srun in a
// Slurm allocation), shows progress, keeps every record and log in one
// results directory, and ends with the efficiency table of `gradsync report`.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "strategies/registry.h"

namespace gradsync {

struct SweepOptions {
  std::string workers = "1,2,4";
  std::string strategies = default_strategy_list(/*with_baseline=*/true);
  std::string models = "small-cnn:cpu,resnet50:emulated";  // model:compute, comma-separated
  std::string out;                                         // results directory
  std::string launcher = "mpirun";                         // mpirun or srun
  std::string hostfile;                                    // mpirun only
  std::string train_args;  // extra arguments for every `gradsync train`, e.g. "--batch-size 16"
  std::string cluster;     // "H x S @ RATE[/DELAY]": an emulated cluster for this sweep (mpirun)
};

CLI::App* add_sweep_command(CLI::App& app, SweepOptions& options);

// One run of the sweep: the command line (launcher, then `gradsync train
// ...`) and where its output goes.
struct SweepRun {
  std::string model, compute, strategy;
  int workers = 1;
  std::vector<std::string> launcher;
  std::vector<std::string> command;
  std::string log;
};

// Every run, in order (model by model, worker count, then strategy), with
// `self` the path of the gradsync binary. Throws std::invalid_argument on
// malformed lists.
std::vector<SweepRun> plan_sweep(const SweepOptions& options, const std::string& self);

// Runs the plan; returns the exit status (non-zero when any run failed).
int run_sweep(const SweepOptions& options, const std::string& self);

}  // namespace gradsync
