#pragma once
// `double-tree-mpi`: see double_tree_mpi.cc for the algorithm and its cost.
// Its segment size is tree-mpi's (--tree-segment, TreeMpiOptions).

#include <memory>

#include "strategies/core/strategy.h"

namespace gradsync {

struct StrategyOptions;

std::unique_ptr<Strategy> make_double_tree_mpi(const World& world, const StrategyOptions& options);

}  // namespace gradsync
