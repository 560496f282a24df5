#pragma once
// `ring-mpi`: see ring_mpi.cc for the algorithm and its cost.

#include <cstddef>
#include <memory>
#include <span>

#include "strategies/core/cost.h"
#include "strategies/core/cost_forms.h"  // ring_terms
#include "strategies/core/option_flag.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_ring_mpi(const World& world, const StrategyOptions& options);
// The same ring, sharded (ZeRO stage 2): its two halves as reduce_scatter
// and all_gather.
std::unique_ptr<Strategy> make_zero2_ring_mpi(const World& world, const StrategyOptions& options);
// The same calls, sharding the parameters too (ZeRO stage 3, FSDP's FULL_SHARD).
std::unique_ptr<Strategy> make_zero3_ring_mpi(const World& world, const StrategyOptions& options);
AllreduceCounts zero2_ring_mpi_counts(double bytes, const StrategyOptions& options,
                                      const WorkerPlacement& placement);
std::span<const OptionFlag> ring_mpi_flags();

// ring-mpi's cost: the ring over every worker, in --ring-segment segments.
AllreduceCounts ring_mpi_counts(double bytes, const StrategyOptions& options,
                                const WorkerPlacement& placement);

}  // namespace gradsync
