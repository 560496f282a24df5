#pragma once
// `gradsync sweep`: runs `gradsync train` over worker counts x strategies x
// models (x input stages, --input) through a launcher (mpirun on this host or with a hostfile, srun
// in a Slurm allocation), shows progress, keeps every record and log in one results directory, and
// ends with the efficiency table of `gradsync report`. Run again into the same directory, it skips
// what is already recorded (sweep_ledger.h).

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "harness/cli/external_reference.h"
#include "harness/cli/slurm_allocation.h"
#include "strategies/registry.h"

namespace gradsync {

struct SweepOptions {
  std::string workers = "1,2,4";
  std::string strategies = default_strategy_list(/*with_baseline=*/true);
  std::string models = "small-cnn:cpu,resnet50:emulated";  // model:compute, comma-separated
  std::string inputs = "synthetic";  // --input: input stages (input_text.h), comma-separated
  std::string out;                                         // results directory
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

// One run of the sweep: the command line (launcher, then `gradsync train
// ...`), what makes it one configuration, and where its output goes.
struct SweepRun {
  std::string model, compute, strategy;
  std::string input = "synthetic";  // the run's --input, as input_text spells it
  std::string fusion_mb;            // its --fusion-mb value; empty: not given (train's default)
  int workers = 1;
  int ranks = 1;  // workers, plus dedicated server ranks
  std::string config_digest;  // what its record's context.config_digest will be (sweep_ledger.h)
  // An external reference's run (external_reference.h): `command` is its
  // script's name under scripts/ and the script's arguments, no launcher (it
  // starts its own workers); its digest is the script's, asked at run time.
  const ExternalReference* external = nullptr;
  std::vector<std::string> launcher;
  std::vector<std::string> rank_hosts;  // srun: the node of each rank (SLURM_HOSTFILE)
  std::vector<std::string> command;
  std::string log;
};

// Every run, in order (model by model, input stage, worker count, strategy,
// then fusion threshold), with
// `self` the path of the gradsync binary; --strategy may name external
// references (ddp-gloo), which run on this host alone with their own compute
// mode; with --launcher srun, placed in
// `allocation` (without one, the srun launcher is left empty: a check of
// the lists alone). Throws std::invalid_argument on malformed lists, train
// arguments that do not parse, and runs that do not fit the allocation.
std::vector<SweepRun> plan_sweep(const SweepOptions& options, const std::string& self,
                                 const SlurmAllocation* allocation = nullptr);

// Runs the plan; returns the exit status (non-zero when any run failed).
int run_sweep(const SweepOptions& options, const std::string& self);

}  // namespace gradsync
