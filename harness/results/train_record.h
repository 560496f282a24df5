#pragma once
// What a training run writes about itself: its result record (kind "train",
// see results/README.md) and the run description a Chrome trace carries.

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "harness/engine/gpu_choice.h"
#include "harness/engine/train_plan.h"
#include "harness/results/run_context.h"
#include "harness/results/train_summary.h"

namespace gradsync {

// The record of one run of `plan` over `ranks` ranks (workers and serving
// ranks); `strategy_options` is the strategy options' JSON form.
nlohmann::json train_record(const TrainPlan& plan, const nlohmann::json& strategy_options,
                            const TrainSummary& summary, int ranks, const RunContext& context,
                            const GpuChoice& gpu);

// What the trace says about the run, beside its events (its "otherData").
nlohmann::json timeline_info(const TrainPlan& plan, int workers,
                             std::span<const std::string> command_line);

}  // namespace gradsync
