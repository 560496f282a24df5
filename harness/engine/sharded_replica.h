#pragma once
// The role of a worker in sharded data parallelism, ZeRO stage 2 (DeepSpeed)
// or FSDP's SHARD_GRAD_OP (Sharding::optimizer_state): every worker holds
// every parameter, but the step's gradients are reduce-scattered in fusion
// buckets while backward runs, each worker updates only its shard of each
// bucket (the optimizer's state for that shard alone), and the
// buckets' parameters are then all-gathered, one bucket at a time through one
// buffer, so that every worker starts the next step with every parameter.
// Traffic per step: a reduce-scatter and an all-gather, what one allreduce
// moves.
//
// Timing: the reduce-scatter overlaps backward as an allreduce would; the
// shard's update and the all-gather come after it, before the next forward,
// as DeepSpeed runs them, and count as the step's communication wait (the
// update is 1/p of a replica's; emulated compute runs none).

#include <memory>

#include "harness/engine/optimizer.h"
#include "harness/engine/worker_role.h"

namespace gradsync {

// A sharded worker's optimizer: the linear scaling over the workers, and the
// division of the reduce-scattered sums by their number as it reads them.
OptimizerOptions sharded_optimizer(const Strategy& strategy, const TrainSettings& settings);

// Throws std::invalid_argument, naming the strategy, for what no sharded
// role takes: a model on a GPU (or one without layer gates), forward order,
// a fusion threshold searched at run time.
void refuse_unsharded_settings(const Strategy& strategy, const Model& model,
                               const TrainSettings& settings);

// Throws as refuse_unsharded_settings does.
std::unique_ptr<WorkerRole> make_sharded_replica(Strategy& strategy, Model& model,
                                                 const TrainSettings& settings);

}  // namespace gradsync
