#pragma once
// `double-tree-mpi`: see double_tree_mpi.cc for the algorithm and its cost.
// Its segment size is tree-mpi's (--tree-segment, TreeMpiOptions).

#include <memory>

#include "strategies/core/cost.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_double_tree_mpi(const World& world, const StrategyOptions& options);

// The double binary tree's counts (see double_tree_mpi.cc): the plan's two
// trees over p ranks, each carrying half the buffer in segments, the ranks
// filling nodes of `per_node` in rank order.
CostTerms double_tree_terms(double bytes, int p, double segment_bytes, int per_node = 1);
// double-tree-mpi's cost: the two trees over every worker, in tree-mpi's segments.
AllreduceCounts double_tree_mpi_counts(double bytes, const StrategyOptions& options,
                                       const WorkerPlacement& placement);

}  // namespace gradsync
