#pragma once
// What a training run writes about itself: its result record (kind "train",
// see results/README.md) and the run description a Chrome trace carries.

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "harness/engine/cluster.h"
#include "harness/engine/gpu_choice.h"
#include "harness/engine/train_plan.h"
#include "harness/results/run_context.h"
#include "harness/results/train_summary.h"
#include "harness/results/wire_record.h"

namespace gradsync {

// A run on an emulated cluster: the cluster and what its links carried over
// the timed steps.
struct TrainOnCluster {
  const ClusterDescription& cluster;
  const WireTruth& wire;
};

// The record of one run of `plan` over `ranks` ranks (workers and serving
// ranks); `strategy_options` is the strategy options' JSON form. Every record
// carries the time scale and the represented img/sec (measured x time
// scale); a run on a cluster also its "cluster" and "wire" objects.
nlohmann::json train_record(const TrainPlan& plan, const nlohmann::json& strategy_options,
                            const TrainSummary& summary, int ranks, const RunContext& context,
                            const GpuChoice& gpu, const TrainOnCluster* on_cluster = nullptr);

// The record's "memory": what one worker holds (results/README.md).
nlohmann::json memory_json(const WorkerMemory& held);

// Token models only: the record's "sequence_length", the effective one (the
// model's own when `sequence_length` is 0).
void add_sequence_length(const std::string& model, int sequence_length, nlohmann::json& record);

// A fusion search (--fusion-mb auto) as records keep it in
// "sync.fusion_search": {"chosen_mb", "candidates": [{"mb", "step_s"}]}.
nlohmann::json to_json(const FusionSearchResult& search);

// What the trace says about the run, beside its events (its "otherData").
nlohmann::json timeline_info(const TrainPlan& plan, int workers,
                             std::span<const std::string> command_line);

}  // namespace gradsync
