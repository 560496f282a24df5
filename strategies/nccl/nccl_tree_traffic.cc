// nccl-tree's per-rank traffic, computed the way NCCL moves the bytes.
//
// NCCL's Tree allreduce (NCCL 2.28.9: src/graph/trees.cc, src/graph/connect.cc;
// "Massively Scale Your Deep Learning Training with NCCL 2.4", NVIDIA
// developer blog, 2019) splits the buffer in two halves, one per tree of a
// double binary tree across the nodes (half the channels run each tree);
// inside a node the ranks form a chain, and the node's inter-node links hang
// off it. Each half is reduced up its tree and broadcast back down: a rank
// sends its half once to its parent (reduce) and once to each child
// (broadcast), and receives as many. So per tree a rank sends and receives
// half x (its links in that tree), and in all
//
//   sent = received = n/2 x degree(tree 0) + n/2 x degree(tree 1),
//
// degree = chain neighbours in the node (0, 1 or 2) + the node's links in the
// tree across nodes (parent and children, 0 to 3) where the rank carries them.
// An inner node of one tree is a leaf of the other (that is what the double
// tree is for): 3 + 1 links, 2n each way, as a ring's 2(p-1)/p n is about 2n.
// Which rank of a node carries its inter-node links is NCCL's topology
// choice (its tree patterns, NCCL_TREE_PATTERN); this puts them on the
// node's first rank, which moves bytes between a node's ranks, never the
// node's total. The split into halves is by channel: exact when the
// channels divide the buffer evenly.

#include "strategies/nccl/nccl_tree_traffic.h"

#include <fmt/core.h>

#include <stdexcept>

namespace gradsync {

int NcclTreeLinks::degree() const {
  return (parent != kNcclTreeNone) + (child0 != kNcclTreeNone) + (child1 != kNcclTreeNone);
}

// ncclGetBtree, line by line: a tree rooted at 0 that alternates leaves and
// inner nodes (the odd nodes are leaves).
NcclTreeLinks nccl_btree(int nodes, int node) {
  int bit = 1;
  for (; bit < nodes; bit <<= 1)
    if (bit & node) break;
  NcclTreeLinks links;
  if (node == 0) {
    links.child1 = nodes > 1 ? bit >> 1 : kNcclTreeNone;
    return links;
  }
  int up = (node ^ bit) | (bit << 1);
  if (up >= nodes) up = node ^ bit;
  links.parent = up;
  int lowbit = bit >> 1;
  links.child0 = lowbit == 0 ? kNcclTreeNone : node - lowbit;
  int down1 = lowbit == 0 ? kNcclTreeNone : node + lowbit;
  while (down1 >= nodes) {
    down1 = lowbit == 0 ? kNcclTreeNone : node + lowbit;
    lowbit >>= 1;
  }
  links.child1 = down1;
  return links;
}

// ncclGetDtree: the first tree is the binary tree; the second mirrors it
// (an even node count) or shifts it by one (an odd count).
NcclTreeLinks nccl_dtree(int nodes, int node, bool second) {
  if (!second) return nccl_btree(nodes, node);
  const bool shift = nodes % 2 == 1;
  const auto back = [&](int n) {
    if (n == kNcclTreeNone) return kNcclTreeNone;
    return shift ? (n + 1) % nodes : nodes - 1 - n;
  };
  const NcclTreeLinks t = nccl_btree(nodes, shift ? (node - 1 + nodes) % nodes : nodes - 1 - node);
  return {back(t.parent), back(t.child0), back(t.child1)};
}

std::uint64_t nccl_tree_rank_bytes(std::uint64_t buffer_bytes, int node, int nodes, int local_rank,
                                   int ranks_on_node) {
  if (nodes < 1 || node < 0 || node >= nodes || ranks_on_node < 1 || local_rank < 0 ||
      local_rank >= ranks_on_node)
    throw std::invalid_argument(
        fmt::format("nccl_tree_rank_bytes: rank {} of {} on node {} of {} is out of range",
                    local_rank, ranks_on_node, node, nodes));
  // Chain neighbours inside the node: none alone, one at either end, else two.
  const int chain = ranks_on_node == 1                                   ? 0
                    : local_rank == 0 || local_rank == ranks_on_node - 1 ? 1
                                                                         : 2;
  const bool carries_node = local_rank == 0;
  const std::uint64_t half0 = buffer_bytes / 2, half1 = buffer_bytes - half0;
  const int degree0 = chain + (carries_node ? nccl_dtree(nodes, node, false).degree() : 0);
  const int degree1 = chain + (carries_node ? nccl_dtree(nodes, node, true).degree() : 0);
  return half0 * degree0 + half1 * degree1;
}

}  // namespace gradsync
