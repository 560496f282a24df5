#pragma once
// `gradsync sweep`: runs `gradsync train` over worker counts x strategies x
// models (x input stages, --input) through a launcher (mpirun on this host or with a hostfile, srun
// in a Slurm allocation), shows progress, keeps every record and log in one results directory, and
// ends with the efficiency table of `gradsync report`. Run again into the same directory, it skips
// what is already recorded (sweep_ledger.h).

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "harness/cli/sweep_plan.h"
#include "strategies/registry.h"

namespace gradsync {

struct SweepOptions {
  std::string workers = "1,2,4";
  std::string strategies = default_strategy_list(/*with_baseline=*/true);
  std::string models = "small-cnn:cpu,resnet50:emulated";  // model:compute, comma-separated
  std::string inputs = "synthetic";  // --input: input stages (input_text.h), comma-separated
  std::string results_dir;           // --out: the results directory
  bool wait = false;  // --wait: for the directory's other writer (results_lock.h)
  std::string launcher = "mpirun";                         // mpirun or srun
  std::string hostfile;                                    // mpirun only
  std::string train_args;  // extra arguments for every `gradsync train`, e.g. "--batch-size 16"
  std::string cluster;     // "H x S @ RATE[/DELAY]": an emulated cluster for this sweep (mpirun)
  double time_scale = 1;   // `train --time-scale` of every run (emulated models only)
  int ps_server_nodes = 0;  // srun: ps-zmq runs get this many dedicated server ranks, a node each
  bool rerun = false;       // run configurations train.jsonl already holds again
  // `train --fusion-mb` values, comma-separated ("4,16,64,auto"): every
  // strategy but the baseline runs at each; empty: train's default, no flag.
  std::string fusion_mb;
};

CLI::App* add_sweep_command(CLI::App& app, SweepOptions& options);

// Runs the plan; returns the exit status (non-zero when any run failed).
int run_sweep(const SweepOptions& options, const std::string& self);

}  // namespace gradsync
