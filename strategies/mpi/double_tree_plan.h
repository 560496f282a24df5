#pragma once
// The two complementary binary trees of double-tree-mpi (NCCL's double binary
// tree; Sanders, Speck and Traeff 2009), chosen per worker count so that the
// busiest rank carries as few tree links as possible. See double_tree_plan.cc.

#include <array>
#include <vector>

#include "strategies/mpi/tree_pipeline.h"

namespace gradsync {

struct DoubleTreePlan {
  // links[r][t]: rank r's links in tree t (t = 0, 1).
  std::vector<std::array<TreeLinks, 2>> links;
  // Root to deepest leaf, the deeper of the two trees.
  int depth = 0;
  // Links (parent + children) of the busiest rank, both trees together: each
  // link carries half the buffer each way, so that rank moves
  // busiest_links x n/2 per direction.
  int busiest_links = 0;
};

// The plan for `size` ranks (size >= 1).
DoubleTreePlan double_tree_plan(int size);

// Rank `rank`'s links in the two trees over `size` ranks (double_tree_plan's).
std::array<TreeLinks, 2> double_tree(int rank, int size);

}  // namespace gradsync
