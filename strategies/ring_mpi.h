#pragma once
// `ring-mpi`: see ring_mpi.cc for the algorithm and its cost.

#include <memory>

#include "strategies/strategy.h"
#include "strategies/strategy_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_ring_mpi(const World& world, const StrategyOptions& options);

}  // namespace gradsync
