#pragma once
// The plan of `gradsync sweep`: every run it starts, in order, each with its
// command line, its configuration (and the digest its record will carry,
// sweep_ledger.h) and where its output goes. The axes (worker counts,
// strategies, input stages, fusion thresholds) are each checked on their
// own, then crossed model by model.

#include <string>
#include <vector>

#include "harness/cli/external_reference.h"
#include "harness/cli/slurm_allocation.h"

namespace gradsync {

struct SweepOptions;  // sweep_command.h

// One run of the sweep: the command line (launcher, then `gradsync train
// ...`), what makes it one configuration, and where its output goes.
struct SweepRun {
  std::string model, compute, strategy;
  std::string input = "synthetic";  // the run's --input, as input_text spells it
  std::string fusion_mb;            // its --fusion-mb value; empty: not given (train's default)
  int workers = 1;
  int ranks = 1;              // workers, plus dedicated server ranks
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

// The compute mode of a --models entry ("resnet50:emulated"; cpu when it
// names none), as given: checking it is the plan's.
std::string model_spec_compute(const std::string& spec);

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

}  // namespace gradsync
