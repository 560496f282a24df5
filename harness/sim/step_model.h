#pragma once
// One training step as events, the way harness/engine/train.cc runs it:
// forward; backward node by node from the last, each node's gradients ready
// when its backward ends; the synchronizer's buckets, formed by the fusion
// rule itself (harness/engine/fusion_plan.h, the same code the synchronizer
// uses), each handed to the one communication thread when its last gradient
// is ready (overlap on) or all after backward (overlap off), the last, partial
// bucket when backward ends; the thread reduces buckets one at a time in that
// order; the step ends when backward and the last bucket are done, plus the
// optimizer. With a framework cycle (cycle_s > 0, the `cycle` mechanism of
// cluster_model.h), a thread that is idle when a bucket becomes ready looks
// for it only once per cycle, counted from when it last went idle; a busy
// thread takes the next bucket as soon as it is free. At one worker (or under `none`) every bucket costs nothing and
// the step is the compute profile exactly.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/graph.h"

namespace gradsync::sim {

// Per-node compute time of one step (batch included), graph node order.
struct ComputeProfile {
  std::vector<double> forward_s, backward_s;
  double optimizer_s = 0;  // after the last wait: the SGD step and bookkeeping
  std::string source;      // where the times came from, in words
  double compute_s() const;
};

// Each node's forward lasts flops x batch / flops_per_second and its backward
// twice that (what emulated compute does, models/emulated_model.cc).
ComputeProfile profile_from_flops(const Graph& graph, int batch, double flops_per_second,
                                  std::string source);
// The same shares of a measured forward + backward time (seconds per step).
ComputeProfile profile_from_measured(const Graph& graph, double compute_s, double optimizer_s,
                                     std::string source);

struct BucketEvent {
  double bytes = 0;
  double ready_s = 0, start_s = 0, end_s = 0;  // from the start of the step
};

struct StepPrediction {
  double forward_s = 0, backward_s = 0, optimizer_s = 0;
  double allreduce_s = 0;       // sum of the buckets' reductions (all-gathers included)
  double gather_s = 0;          // sharded: the all-gathers after the update, all exposed
  double exposed_comm_s = 0;    // waited after backward
  double step_s = 0;
  double gradient_bytes = 0;
  std::vector<BucketEvent> buckets;
};

// Forward order (train --sync-order forward, harness/engine/synchronizer.h):
// gradients that fill a bucket by themselves are cut into pieces of the
// threshold; a free communication thread takes, among the closed buckets, the one whose
// first parameter the forward uses first, after one agreement round among
// the workers while any bucket of the step is still open; the next step's
// forward waits, before each node, for the buckets of that node's
// parameters; the run settles (waits for everything, as arrival order does)
// after each iteration's last step. Played over one whole iteration from a
// settled start; the prediction is its mean step. The framework cycle does
// not apply (the cycle models another framework's loop, not this order).
struct ForwardOrderRun {
  int steps_per_iteration = 10;
  double agreement_s = 0;  // one agreement round: a small allreduce among the workers
};

// Sharded data parallelism's step (ZeRO stage 2, harness/engine/sharded_replica.h):
// each bucket's reduce-scatter (its cost less its all-gather's part) runs in
// backward where its allreduce would; then each worker updates its shard
// (the optimizer's time over `workers`), and all-gathers every bucket, one
// after another, before the next forward: exposed, as train runs it.
// With `parameters` (ZeRO stage 3, harness/engine/fully_sharded_replica.h)
// the step is play_fully_sharded's instead.
struct ShardedRun {
  std::function<double(double bytes)> gather_seconds;  // of bucket_seconds(bytes)
  int workers = 1;
  bool parameters = false;
};

// The units of a fully sharded worker (harness/engine/fully_sharded_replica.h),
// as lists of parameter indices: the fusion rule over the gradient block from
// its end (the first layers' gradients).
std::vector<std::vector<std::size_t>> fully_sharded_units(const Graph& graph, double fusion_mb);

// The fully sharded step (fully_sharded_step.cc): units cut by the fusion
// rule over the gradient block from its end; each layer waits for its
// units' all-gathers, queued at the gate or earlier by the prefetch of the
// order each pass follows; each unit's reduce-scatter (bucket_seconds less
// gather_seconds) once backward has handed it over; one thread runs the calls
// in the order queued; the shards' update after the last.
StepPrediction play_fully_sharded(const Graph& graph, const ComputeProfile& compute,
                                  double fusion_mb,
                                  const std::function<double(double bytes)>& bucket_seconds,
                                  const ShardedRun& sharded);

StepPrediction simulate_step(const Graph& graph, const ComputeProfile& compute, double fusion_mb,
                             bool overlap,
                             const std::function<double(double bytes)>& bucket_seconds,
                             double cycle_s = 0,
                             const std::optional<ForwardOrderRun>& forward = std::nullopt,
                             const std::optional<ShardedRun>& sharded = std::nullopt);

}  // namespace gradsync::sim
