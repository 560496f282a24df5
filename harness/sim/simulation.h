#pragma once
// One simulated training run: a model at a batch per worker, its compute
// (a device profile's FLOP/s, a forced single-worker rate, or a measured
// compute time), a strategy with its options on a placement, the fusion
// threshold and overlap, the input stage, and the time scale of an emulated run. simulate()
// builds the model's graph from the zoo, costs every bucket on the described
// cluster (strategy_cost.h) and plays one step (step_model.h). With
// `fusion_auto` it first plays the step at each threshold the search of
// train's --fusion-mb auto would measure, and keeps the fastest. Only the
// threshold is searched: a cluster file's framework `cycle` (a mechanism)
// is a property of the framework modelled, not of gradsync's synchronizer,
// and stays as the file states it.

#include <optional>
#include <set>
#include <string>

#include "harness/engine/fusion_search.h"
#include "harness/engine/optimizer.h"
#include "harness/engine/synchronizer.h"
#include "harness/engine/worker_memory.h"
#include "harness/sim/cluster_model.h"
#include "harness/sim/input_stage.h"
#include "harness/sim/step_model.h"
#include "harness/sim/strategy_cost.h"
#include "strategies/core/strategy_options.h"

namespace gradsync::sim {

// A forward + backward time measured on a real run (the `none` run of the
// same workload at one worker), and what followed it in the step.
struct MeasuredCompute {
  double compute_s = 0;    // forward + backward per step
  double optimizer_s = 0;  // the rest of the step: SGD and bookkeeping
  std::string source;
};

struct SimulationCase {
  std::string model;
  int batch = 32;
  int sequence_length = 0;         // token models: positions per sample (0: the model's own)
  std::string device_profile;      // profile name, for the record
  double flops_per_second = 0;     // the profile's, before the time scale
  double emulate_img_per_sec = 0;  // > 0: overrides the profile as train's flag does
  double time_scale = 1;           // emulated compute K times slower
  std::optional<MeasuredCompute> measured_compute;  // overrides the FLOP-based profile
  const StrategyInfo* strategy = nullptr;  // its table entry, which says how it is costed
  StrategyOptions options;
  WorkerPlacement placement;
  double fusion_mb = 64;
  // `simulate project --fusion-mb auto`: search the threshold first (fusion_search.h,
  // measure = this case's simulated step) and simulate the one chosen;
  // fusion_mb is then unused.
  bool fusion_auto = false;
  bool overlap = true;
  // train --sync-order, and the steps of an iteration (after whose last one
  // the run settles: what forward order plays over).
  SyncOrder order = SyncOrder::arrival;
  int steps_per_iteration = 10;
  // The input stage (input_stage.h); host_cores 0: the cluster file's.
  InputStage input;
  // Mechanisms of the cluster file switched off (cluster_model.h's names):
  // `simulate ... --without`, and `simulate project --explain` one at a time.
  std::set<std::string> without;
  // The optimizer, whose state the memory projection holds (SGD's velocity,
  // or AdamW's two moments); its time is in the device profile's compute.
  UpdateRule optimizer = UpdateRule::sgd;
};

struct SimulationResult {
  StepPrediction step;
  std::string costed_as;
  // Bytes one step puts through the busiest direction of the links the job
  // spans, every bucket's summed (BucketCoster::link_bytes); none when the
  // strategy's own model does not count them.
  std::optional<double> link_bytes_per_step;
  std::string compute_source;
  // The mechanisms that acted on this case, each with its parameter
  // ("cycle 5 ms (published)"); empty when none did.
  std::vector<std::string> mechanisms;
  // The input stage's batch time and wait; its wait is in step.step_s.
  InputPrediction input;
  // With fusion_auto: the candidates' predicted step times and the choice;
  // no candidates where nothing moves (one worker, the baseline).
  std::optional<FusionSearchResult> fusion_search;
  double fusion_mb = 0;  // the threshold simulated: the case's, or the one chosen
  WorkerMemory memory;   // per worker (worker_memory)
  // img/sec of one worker at the simulated (measured) scale; x time_scale for
  // the setup an emulated run represents.
  double img_sec_per_worker = 0;
};

SimulationResult simulate(const ClusterModel& cluster, const SimulationCase& run);

// What one worker holds of the model's training state, as train's roles
// allocate it (harness/engine/worker_memory.h): every parameter and
// gradient in fp32; the optimizer's state for every parameter, or under a sharded
// strategy for its shard of each bucket (the largest shard: a bucket's
// elements over the workers, rounded up); and, sharded at 2 or more
// workers, the buffer the largest bucket's parameters are gathered into.
// Fully sharded (stage 3): the parameters too are the shards of its units,
// and what is gathered at once is the two largest units (the one in use
// and the one prefetched), as a framework that gathers in place holds them;
// train's role, which copies each unit out of its buffer, holds more. The
// optimizer's state is state_floats(rule) floats per element it holds.
WorkerMemory worker_memory(const Graph& graph, Sharding sharding, int workers, double fusion_mb,
                           UpdateRule rule);

}  // namespace gradsync::sim
