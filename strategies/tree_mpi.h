#pragma once
// `tree-mpi`: see tree_mpi.cc for the algorithm and its cost.

#include <memory>

#include "strategies/strategy.h"
#include "strategies/strategy_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_tree_mpi(const World& world, const StrategyOptions& options);

}  // namespace gradsync
