#pragma once
// The training benchmark's core, free of printing and files: one worker's
// data-parallel training run (train.cc: start from worker 0's parameters,
// the fusion search, warm-up and timed steps, the end's checks), its
// settings, and what it measured. A step's parts are train_step.h's; what
// differs between workers (host or device replicas, servers that own the
// parameters) is worker_role.h's.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/fusion_search.h"
#include "harness/engine/input_pipeline.h"
#include "harness/engine/input_spec.h"
#include "harness/engine/link_counters.h"
#include "harness/engine/optimizer.h"
#include "harness/engine/synchronizer.h"
#include "harness/engine/timeline.h"
#include "harness/engine/worker_memory.h"
#include "models/model.h"
#include "strategies/core/strategy.h"

namespace gradsync {

struct TrainSettings {
  std::string model = "small-cnn";
  int batch_size = 32;        // per worker
  int warmup_batches = 10;    // untimed steps first (Horovod: --num-warmup-batches)
  int batches_per_iter = 10;  // steps per timed iteration (--num-batches-per-iter)
  int iters = 10;             // timed iterations (--num-iters)
  ModelOptions model_options;
  SyncOptions sync;  // fusion and overlap; train chooses `average` itself (see train.cc)
  // workers 0: scale the rate by the number of workers that synchronize
  // (1 for `none`); a test's single-worker reference sets it by hand.
  OptimizerOptions optimizer = {.workers = 0};
  std::uint64_t data_seed = 1;
  // One slow worker (`--straggler RANK:FACTOR`): that worker's compute takes
  // `factor` times as long (make_worker_model, straggler_model.h). rank < 0: none.
  struct Straggler {
    int rank = -1;
    double factor = 1;
  } straggler;
  // `--target-loss L`: the summary reports the time and samples to reach it
  // (time_to_target.h). Empty: not asked.
  std::optional<double> target_loss;
  // `--input`: where the batches come from (input_spec.h). Synthetic: made
  // for free before the step's clock starts; any other: loader threads
  // (input_pipeline.h), and the step waits for its batch on its clock.
  InputSpec input;
  // `--fusion-mb auto`: before warm-up, search the threshold (fusion_search.h)
  // with this many measured steps per candidate; the timed steps then run at
  // the one chosen. Empty: sync.fusion_mb as given.
  std::optional<int> fusion_search_steps;

  // Whether the model really computes (cpu or cuda): its batches' contents
  // matter and it has an optimizer of its own. Emulated compute only takes
  // its device's time, optimizer included.
  bool real_compute() const { return model_options.compute != ComputeMode::emulated; }
};

// What `--fusion-mb auto` did.
struct FusionSearchOutcome {
  FusionSearchResult search;  // the candidates and the choice; no candidates when skipped
  int steps = 0;              // steps it ran, untimed, before warm-up
  std::string skip_reason;    // why nothing was searched (no buckets go anywhere); empty: searched
};

// One step as this worker saw it, in seconds.
struct StepTiming {
  double step_s =
      0;  // taking the batch (active input) or forward, to the end of the optimizer step
  double input_wait_s = 0;  // exposed input: taking the batch blocked (active input only)
  // From the step's marks, where the compute runs (step_marks.h): on a GPU,
  // CUDA events on the model's stream, not the host's queueing.
  double compute_s = 0;     // forward + backward (packing into buckets included)
  double wait_s = 0;        // exposed communication: the wait's part after backward ended
  double allreduce_s = 0;   // inside the strategy (overlapped or not)
  double staging_s = 0;     // of allreduce_s: host<->device copies of a staged strategy
  float loss = 0;
  double end_s = 0;  // when the step ended, seconds since the workers' common start
};

struct TrainOutcome {
  std::vector<StepTiming> steps;  // every step, warm-up included
  // Each timed iteration's seconds: the slowest worker's (at_own_pace: this worker's).
  std::vector<double> iteration_s;
  std::size_t gradient_bytes = 0;
  std::size_t buckets_per_step = 0;
  // Across workers at the end; nullopt when not checked (a strategy that
  // does not synchronize, or servers that own the parameters).
  std::optional<bool> parameters_identical;
  std::string mismatch;            // what differed, when not identical
  std::optional<WireSample> wire;  // over the timed steps, when a WireMeter was given
  // The first stall warning, or step longer than --timeout, on any worker,
  // one line (harness/engine/disturbance.h); empty when the run was
  // undisturbed. The same on every worker.
  std::string disturbance;
  // The loss, or at the end a parameter, stopped being finite (e.g. a
  // learning rate that diverges): one line naming the step; the run ends at
  // the end of that iteration, the same on every worker. Empty when finite.
  std::string nonfinite_failure;
  // The servers owned the parameters (ps-zmq --ps-mode async|ssp): iteration_s are
  // this worker's own, and gradient_steps its push_gradient calls.
  bool at_own_pace = false;
  std::uint64_t gradient_steps = 0;
  // What this worker's loader measured over the timed steps; nullopt with
  // synthetic input.
  std::optional<LoaderStats> loader;
  std::optional<FusionSearchOutcome> fusion_search;  // with settings.fusion_search_steps
  // This worker's strategy traffic (Strategy::traffic) per step, over the
  // warm-up and timed steps (every step moves the same bytes).
  double bytes_sent_per_step = 0;
  double bytes_received_per_step = 0;
  // What this worker holds of the model's state (WorkerRole::memory).
  WorkerMemory memory;
};

// Trains on `strategy` (a worker's); collective over strategy.peers().
// `model` is built by the caller, so that tests can inspect it afterwards.
// `on_iteration(i, seconds)` is called on every worker after timed iteration
// i with the slowest worker's time for it (for live progress).
// The workers' common start is a barrier that follows the parameter
// broadcast: StepTiming::end_s counts from it, and so does a `timeline`,
// whose origin it is; and the steps its window covers are traced: the
// model's layers, the synchronizer's buckets and wait, plus "step N"
// (category "step", forward to the end of the optimizer) and "optimizer step"
// (cpu and cuda compute) on thread 0.
// A model on a GPU (cuda compute) trains in device memory; `strategy` must
// then take device buffers (make_strategy with MemoryKind::device), and the
// model's Parameter::value is brought up to date at the end.
// With a `wire` meter (runs on an emulated cluster), the workers meet at a
// barrier before the first timed step and the meter starts, and it stops
// after the last timed iteration's time is agreed (by then every worker has
// all of its bytes): outcome.wire is what it saw.
// The stall inspector is told the step ("step 7"; the synchronizer adds the
// bucket), and a step is too long past strategy.peers().timeout().
// With an active input stage, a loader starts after the common start (and
// the timeline's), traced as "load batch N" on each loader's thread
// (kFirstLoaderThread on) and "wait for input" on thread 0; a batch that
// does not come within strategy.peers().timeout() ends the step in a
// std::runtime_error, as a peer that does not answer would.
// With settings.fusion_search_steps, the search's steps come first, before
// warm-up: they train, are not timed, not in outcome.steps and not traced.
TrainOutcome train(Strategy& strategy, Model& model, const TrainSettings& settings,
                   const std::function<void(int, double)>& on_iteration = {},
                   Timeline* timeline = nullptr, WireMeter* wire = nullptr);

}  // namespace gradsync
