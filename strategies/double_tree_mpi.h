#pragma once
// `double-tree-mpi`: see double_tree_mpi.cc for the algorithm and its cost.
// Its segment size is tree-mpi's (--tree-segment, TreeMpiOptions).

#include <array>
#include <memory>

#include "strategies/strategy.h"
#include "strategies/tree_pipeline.h"

namespace gradsync {

struct StrategyOptions;

// Rank `rank`'s links in the two complementary trees over `size` ranks.
// Tree 0: the in-order binary tree whose leaves are the even ranks; tree 1:
// tree 0 mirrored (r -> size-1-r) for even sizes, shifted by one rank
// (r -> r+1 mod size) for odd ones, so its leaves are the odd ranks (and rank
// 0 for odd sizes). No rank is interior in both trees.
std::array<TreeLinks, 2> double_tree(int rank, int size);

std::unique_ptr<Strategy> make_double_tree_mpi(const World& world, const StrategyOptions& options);

}  // namespace gradsync
