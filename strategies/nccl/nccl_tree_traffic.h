#pragma once
// The bytes one rank sends (and, as many, receives) in NCCL's Tree
// allreduce: NCCL does not count its traffic, so nccl-tree's counts are
// computed with this formula, not measured (the records say
// "traffic_source": "computed"). Pure functions, in every build.

#include <cstdint>

namespace gradsync {

// A rank's place in NCCL's tree of nodes: NCCL_TREE_NONE where it has none.
inline constexpr int kNcclTreeNone = -1;
struct NcclTreeLinks {
  int parent = kNcclTreeNone;
  int child0 = kNcclTreeNone;
  int child1 = kNcclTreeNone;
  int degree() const;  // the links it has: parent and children
};

// NCCL's binary tree over `nodes` (ncclGetBtree) and its double binary tree
// (ncclGetDtree: `second` picks the mirrored or shifted second tree), from
// NCCL 2.28.9's src/graph/trees.cc.
NcclTreeLinks nccl_btree(int nodes, int node);
NcclTreeLinks nccl_dtree(int nodes, int node, bool second);

// Bytes this rank sends in one Tree allreduce of `buffer_bytes` (it
// receives as many): rank `local_rank` of `ranks_on_node` on node `node` of
// `nodes`. Throws std::invalid_argument on positions out of range.
std::uint64_t nccl_tree_rank_bytes(std::uint64_t buffer_bytes, int node, int nodes, int local_rank,
                                   int ranks_on_node);

}  // namespace gradsync
