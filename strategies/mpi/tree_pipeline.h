#pragma once
// The pipelined reduce-then-broadcast over one binary tree, as one node sees
// it: shared by tree-mpi (one tree over the whole buffer) and double-tree-mpi
// (two trees, half the buffer each, served by one event loop). See
// tree_mpi.cc for the algorithm and its cost. Every wait is bounded by
// --timeout and names the peers (bounded_wait.h). T is the element type,
// float or std::uint16_t (mpi_pipeline.h).

#include <bit>
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "strategies/core/bounded_wait.h"
#include "strategies/core/partition.h"
#include "strategies/core/reduce_kernel.h"
#include "strategies/core/strategy.h"
#include "strategies/mpi/mpi_pipeline.h"

namespace gradsync {

// One node's links in a binary tree.
struct TreeLinks {
  int parent = -1;            // -1 at the root
  std::vector<int> children;  // at most two, added in this order (the sum's order)
};

// The depth (root to deepest leaf) of a heap-ordered or in-order binary tree
// over `size` ranks: floor(log2 size).
inline int binary_tree_depth(int size) { return std::bit_width(static_cast<unsigned>(size)) - 1; }

// For the cost model: how many of a tree's edges leave each node when a job
// of p ranks fills nodes of `per_node` ranks in rank order (entry k: node
// k). Each such edge carries its tree's part of the buffer both ways at once
// (partial sums up, the result down) through the node's one network link;
// edges inside a node stay on its own links. `links(r)`: rank r's place in
// the tree.
std::vector<int> edges_leaving_nodes(int p, int per_node,
                                     const std::function<TreeLinks(int)>& links);

// A tree's message tags.
struct TreeTags {
  int up;    // partial sums, child to parent
  int down;  // final segments, parent to child
};

// One node's two streams over one tree. Each moves as soon as what it needs
// has arrived, never waiting for the other: segment i goes up (at the root:
// down) once every child's partial sum of it is in; segment j comes down
// into place once this node's send of j upwards is done (the same memory),
// and goes on to the children once it is in. The sends up are synchronous
// (MPI_Issend), at most kReceiveWindow in flight: the parent's posted
// receives are the window, so that no child floods a link its parent's
// other streams need.
template <typename T>
class TreePipeline {
 public:
  // `buffer` is reduced in place in segments of `segment` elements with
  // `sum`; `scratch` holds the children's partial sums (kept by the caller
  // between calls).
  TreePipeline(const TreeLinks& node, std::span<T> buffer, std::size_t segment, TreeTags tags,
               MPI_Comm comm, ElementSum sum, Scratch& scratch, Traffic& traffic);

  // Every segment summed and passed on, and (below the root) come down and
  // forwarded; the forwarded sends may still be in flight.
  bool done() const;
  // Appends the requests that its streams wait on next, and the rank each
  // one is owed by.
  void heads(std::vector<MPI_Request>& requests, std::vector<int>& peers);
  // Takes back what heads() gave, after a wait (completed requests are null
  // now), and moves both streams as far as they can go.
  void advance(std::span<const MPI_Request> heads);
  // Waits for the segments forwarded to the children.
  void finish(const Wait& wait) { forwarded_.wait(wait); }

 private:
  bool root() const { return node_.parent < 0; }
  T* slot(std::size_t child, std::size_t j);
  void post_child_receive(std::size_t child, std::size_t j);
  bool children_in(std::size_t i) const;
  void pass_on(std::size_t i);
  void forward_down(std::size_t j);

  TreeLinks node_;
  T* data_;
  std::vector<Range> segments_;
  TreeTags tags_;
  MPI_Comm comm_;
  ElementSum sum_;
  T* slots_ = nullptr;  // in the caller's scratch
  Traffic& traffic_;
  std::size_t slot_size_ = 0;
  std::vector<std::vector<MPI_Request>> from_child_;  // per child, per segment
  std::vector<MPI_Request> up_, down_;                // per segment
  std::size_t summed_ = 0;                            // segments summed and passed on
  std::size_t replaced_ = 0;  // segments whose send up is done and receive from above posted
  std::size_t received_ = 0;  // segments come down and forwarded
  std::vector<MPI_Request*> head_slots_;  // where heads() took its requests from
  PendingSends forwarded_;
};

// Runs the pipelines of one node together (double-tree-mpi's two trees
// share its links) in one event loop: every wait is for whichever awaited
// message of any stream comes first. Then waits for their forwarded sends.
template <typename T>
void run_tree_pipelines(std::span<TreePipeline<T>> pipelines, const Wait& wait);

}  // namespace gradsync
