#pragma once
// `none`: no synchronization at all. The single-worker and compute-only
// baseline against which scaling efficiency is measured.

#include <memory>

#include "strategies/core/cost.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_no_sync(const World& world, const StrategyOptions& options);

// Its cost: nothing moves.
AllreduceCounts no_sync_counts(double bytes, const StrategyOptions& options,
                               const WorkerPlacement& placement);

}  // namespace gradsync
