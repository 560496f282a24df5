// The counts of the pipelined tree allreduces: tree-mpi's binary tree and
// NCCL's double binary tree.
//
// In a pipelined tree, reduce and broadcast run at once: a rank with c
// children and a parent receives c partial sums going up and the result
// coming down, and sends its own sum up and the result to each child, so
// each direction of its link carries (c + 1) x the buffer (c x at the root).
// Once the pipe is full the busiest link sets the pace: messages and bytes
// are that load in segments, plus the fill, the first segment's trip up to
// the root and back down to the deepest leaf (2 x depth segments). The
// busiest rank adds its c children's sums.

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "harness/sim/collective_cost.h"
#include "harness/sim/collective_cost_units.h"
#include "strategies/mpi/double_tree_plan.h"
#include "strategies/core/partition.h"

namespace gradsync::sim {
namespace {

}  // namespace

// tree-mpi (strategies/mpi/tree_mpi.cc): heap order, rank r's children 2r+1 and
// 2r+2, depth floor(log2 p) (its TreeNode). The per-direction load is
// (children + 1) x n at the busiest rank: n for p = 2 (one link), 2n for
// p = 3 (the root's two children) and p = 4 (rank 1: a child and a parent),
// 3n from p = 5 on (rank 1: two children and a parent). Each load is counted
// in segments, the last one maybe short, and the fill in first segments.
CostTerms binary_tree_terms(double bytes, int p, double segment_bytes) {
  require_positive_count(p, "binary_tree_terms", "p");
  const std::uint64_t n = buffer_floats(bytes, "binary_tree_terms");
  const std::uint64_t segment = segment_floats(segment_bytes, "binary_tree_terms");
  if (p == 1 || n == 0) return {};
  int most_links = 0, most_children = 0;
  for (std::int64_t r = 0; r < p; ++r) {
    const int children = (2 * r + 1 < p ? 1 : 0) + (2 * r + 2 < p ? 1 : 0);
    most_children = std::max(most_children, children);
    most_links = std::max(most_links, children + (r > 0 ? 1 : 0));
  }
  const int depth = std::bit_width(static_cast<unsigned>(p)) - 1;
  const double fill = 2.0 * depth;
  const double first_segment = static_cast<double>(std::min(segment, n));
  // The busiest node's links all carry at once: its children's and its
  // parent's flows arrive together (most_links of them).
  const double busiest_bytes = (most_links * static_cast<double>(n) + fill * first_segment) * kFloatBytes;
  return {.calls = 1,
          .messages = most_links * static_cast<double>(piece_count(n, segment)) + fill,
          .bytes = busiest_bytes,
          .reduced = most_children * static_cast<double>(n) * kFloatBytes,
          .contended = busiest_bytes * (most_links - 1)};
}

// double-tree-mpi's two trees (strategies/mpi/double_tree_plan.h: NCCL's
// double binary tree, Sanders, Speck and Traeff 2009, or at p = 4 a pair
// that loads every rank with 3 links): tree t carries half t of the buffer
// (even_part of 2), both at once, and each rank's links carry the sum of its
// two trees' loads. At large p every rank is interior in one tree and a leaf
// in the other: an interior rank with two children and a parent carries
// (2 + 1) x n/2 each way in its interior tree, and a leaf 1 x n/2 in the
// other: 2n per direction, against the single binary tree's 3n and the
// ring's 2(p-1)/p n. Small p carry less (p = 2: n; p = 3 and 4: 1.5n); the
// loads are counted rank by rank from the plan's trees. The busiest rank adds
// the halves of its children in both trees (n at large p). The fill is the
// deeper tree's (they run at once), in first segments of the larger half.
CostTerms double_tree_terms(double bytes, int p, double segment_bytes) {
  require_positive_count(p, "double_tree_terms", "p");
  const std::uint64_t n = buffer_floats(bytes, "double_tree_terms");
  const std::uint64_t segment = segment_floats(segment_bytes, "double_tree_terms");
  if (p == 1 || n == 0) return {};
  const std::uint64_t half[2] = {even_part(n, 2, 0).count, even_part(n, 2, 1).count};
  const DoubleTreePlan plan = double_tree_plan(p);
  double most_bytes = 0, most_messages = 0, most_added = 0;
  for (int r = 0; r < p; ++r) {
    double load = 0, messages = 0, added = 0;
    for (int t = 0; t < 2; ++t) {
      const TreeLinks& node = plan.links[r][t];
      const double children = static_cast<double>(node.children.size());
      const double links = children + (node.parent >= 0 ? 1 : 0);
      load += links * static_cast<double>(half[t]);
      messages += links * static_cast<double>(piece_count(half[t], segment));
      added += children * static_cast<double>(half[t]);
    }
    most_bytes = std::max(most_bytes, load);
    most_messages = std::max(most_messages, messages);
    most_added = std::max(most_added, added);
  }
  const double fill = 2.0 * plan.depth;
  const double first_segment = static_cast<double>(std::min(segment, half[0]));
  return {.calls = 1,
          .messages = most_messages + fill,
          .bytes = (most_bytes + fill * first_segment) * kFloatBytes,
          .reduced = most_added * kFloatBytes};
}

}  // namespace gradsync::sim
