#pragma once
// The role of a worker in fully sharded data parallelism, ZeRO stage 3
// (DeepSpeed) or FSDP's FULL_SHARD (Sharding::parameters): a worker keeps
// only its shard of every parameter, and holds a layer's whole parameters
// only while the layer needs them.
//
// The parameters are cut into units, as FSDP wraps a model: consecutive
// gradients of the model's gradient block, from the first layers' on, until
// a unit holds the fusion threshold (--fusion-mb; 0: each parameter its
// own), so that a unit is one flat buffer of the block, and its shard is the
// strategy's shard of that buffer. A step:
//
// - forward: before each layer (Model::LayerGates), the units it uses are
//   all-gathered, unless gathered already, and every other gathered unit is
//   freed (its values released);
// - backward: the same before each layer, and a unit's gradients are
//   reduce-scattered once backward has handed them all over, the sum of its
//   shard landing in place;
// - the wait: every reduce-scatter ends, each worker updates its shards (the
//   optimizer's state for the shards alone), and every gathered unit is freed,
//   its values now stale.
//
// One communication thread runs the collectives in the order they are
// queued, the same on every worker. Prefetch as FSDP's: the units each pass
// needed, in order, are recorded, and from the next step on, asking for
// the n-th unit of a pass queues the all-gather of the (n+1)-th. Traffic per
// step: two all-gathers and a reduce-scatter of every unit, 1.5 times an
// allreduce's (the tied head's second use of the token embedding adds
// one more gather of its unit each way).
//
// Memory: the parameters' shards, the whole gradient block (the model's: it
// is not released), the shards' optimizer state, and the most gathered at once
// (units' values and all-gather buffers), measured as the run goes.

#include <memory>

#include "harness/engine/worker_role.h"

namespace gradsync {

// Throws as refuse_unsharded_settings (sharded_replica.h) does.
std::unique_ptr<WorkerRole> make_fully_sharded_replica(Strategy& strategy, Model& model,
                                                       const TrainSettings& settings);

}  // namespace gradsync
