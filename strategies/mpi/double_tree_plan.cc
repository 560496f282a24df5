// Choosing double-tree-mpi's two trees.
//
// Each tree carries half the buffer, so a rank with k links in the two trees
// together moves k x n/2 bytes each way: the busiest rank's k sets the
// bandwidth. Two trees over p ranks have 4(p-1) link ends between them, so
// the busiest rank has at least ceil(4(p-1)/p) links: 2 at p = 2, 3 at
// p = 3 and 4, 4 above (2n per direction, the ring's 2(p-1)/p n at large p).
//
// The classic construction (NCCL's trees.cc) is the in-order binary tree
// (rank r is position r+1; a position's lowest set bit is its height; the
// leaves are the even ranks) with its mirror (even p) or its shift by one
// rank (odd p) as the second tree, whose interior nodes are then the even
// ranks: every rank is interior in one tree and a leaf in the other. It
// reaches the bound for every p except 4, where the in-order tree's root has
// a single child (3 -> 1 -> {0, 2}) and two ranks end with 4 links. The
// midpoint tree (the root is the middle rank, each side built the same way:
// 2 -> {1 -> 0, 3}) paired with its image under r -> r XOR 1
// (3 -> {0 -> 1, 2}) gives every rank 3 links there, as many as the ring.
//
// Rather than special-case p, both base trees are tried with both second
// trees and the pair whose busiest rank has the fewest links is kept (the
// first such, in-order first): the choice is counted from the trees
// themselves, O(p log p) once per worker count. tests/unit/double_tree_test.cc
// checks that it meets the bound and that no rank is interior in both trees,
// for every p up to 300.

#include "strategies/mpi/double_tree_plan.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace gradsync {
namespace {

using Tree = std::vector<TreeLinks>;

// The in-order binary tree over positions 1..n (position x is rank x-1).
// Position x with lowest set bit b has children x - b/2 and the first of
// x + b/2, x + b/4, ..., x + 1 that is at most n; its parent is whichever of
// x - b and x + b has lowest bit 2b, or x - b when x + b is past n (0: x is
// the root, the largest power of two up to n).
Tree in_order_tree(int size) {
  Tree tree(size);
  const unsigned n = static_cast<unsigned>(size);
  for (unsigned x = 1; x <= n; ++x) {
    const unsigned b = x & (~x + 1);
    unsigned parent = (x ^ b) | (b << 1);
    if (parent > n) parent = x ^ b;
    tree[x - 1].parent = static_cast<int>(parent) - 1;
  }
  // Children in position order: the left (x - b/2) before the right.
  for (int r = 0; r < size; ++r)
    if (tree[r].parent >= 0) tree[tree[r].parent].children.push_back(r);
  return tree;
}

// The midpoint tree: the middle rank of [lo, hi) is the root, the ranks
// below and above it its left and right subtrees, built the same way.
void add_midpoint_subtree(Tree& tree, int lo, int hi, int parent) {
  if (lo >= hi) return;
  const int root = lo + (hi - lo) / 2;
  tree[root].parent = parent;
  if (parent >= 0) tree[parent].children.push_back(root);
  add_midpoint_subtree(tree, lo, root, root);
  add_midpoint_subtree(tree, root + 1, hi, root);
}

Tree midpoint_tree(int size) {
  Tree tree(size);
  add_midpoint_subtree(tree, 0, size, -1);
  return tree;
}

// `tree` with every rank renamed: rank rename(u) plays rank u.
Tree renamed(const Tree& tree, const std::function<int(int)>& rename) {
  Tree out(tree.size());
  for (std::size_t u = 0; u < tree.size(); ++u) {
    TreeLinks& node = out[rename(static_cast<int>(u))];
    node.parent = tree[u].parent < 0 ? -1 : rename(tree[u].parent);
    for (int child : tree[u].children) node.children.push_back(rename(child));
  }
  return out;
}

int links(const TreeLinks& node) {
  return static_cast<int>(node.children.size()) + (node.parent >= 0 ? 1 : 0);
}

int depth_of(const Tree& tree) {
  int depth = 0;
  for (std::size_t r = 0; r < tree.size(); ++r) {
    int hops = 0;
    for (int u = static_cast<int>(r); tree[u].parent >= 0; u = tree[u].parent) ++hops;
    depth = std::max(depth, hops);
  }
  return depth;
}

}  // namespace

DoubleTreePlan double_tree_plan(int size) {
  if (size < 1) throw std::invalid_argument("double_tree_plan: needs at least one rank");
  const auto mirror = [size](int u) { return size - 1 - u; };
  const auto shift = [size](int u) { return (u + 1) % size; };
  const auto swap_pairs = [](int u) { return u ^ 1; };  // within range for even sizes only
  std::vector<std::function<int(int)>> second;
  if (size % 2 == 0)
    second = {mirror, swap_pairs};
  else
    second = {shift, mirror};

  DoubleTreePlan best;
  for (const Tree& first : {in_order_tree(size), midpoint_tree(size)})
    for (const auto& rename : second) {
      const Tree other = renamed(first, rename);
      int busiest = 0;
      for (int r = 0; r < size; ++r) busiest = std::max(busiest, links(first[r]) + links(other[r]));
      if (!best.links.empty() && busiest >= best.busiest_links) continue;
      best.links.assign(size, {});
      for (int r = 0; r < size; ++r) best.links[r] = {first[r], other[r]};
      best.depth = std::max(depth_of(first), depth_of(other));
      best.busiest_links = busiest;
    }
  return best;
}

std::array<TreeLinks, 2> double_tree(int rank, int size) {
  if (rank < 0 || rank >= size) throw std::invalid_argument("double_tree: rank out of range");
  return double_tree_plan(size).links[rank];
}

}  // namespace gradsync
