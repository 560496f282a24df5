#pragma once
// `ring-mpi`: see ring_mpi.cc for the algorithm and its cost.

#include <memory>

#include "strategy.h"
#include "strategy_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_ring_mpi(const World& world, const StrategyOptions& options);

}  // namespace gradsync
