#pragma once
// The pipelined reduce-then-broadcast over one binary tree, as one node sees
// it: shared by tree-mpi (one tree over the whole buffer) and double-tree-mpi
// (two trees, half the buffer each, advanced together in one loop). See
// tree_mpi.cc for the algorithm and its cost. Every wait is bounded by
// --timeout and names the peer (bounded_wait.h). T is the element type,
// float or std::uint16_t (mpi_pipeline.h).

#include <bit>
#include <cstddef>
#include <span>
#include <vector>

#include "strategies/core/bounded_wait.h"
#include "strategies/mpi/mpi_pipeline.h"
#include "strategies/core/partition.h"
#include "strategies/core/reduce_kernel.h"
#include "strategies/core/strategy.h"

namespace gradsync {

// One node's links in a binary tree.
struct TreeLinks {
  int parent = -1;            // -1 at the root
  std::vector<int> children;  // at most two, added in this order (the sum's order)
};

// The depth (root to deepest leaf) of a heap-ordered or in-order binary tree
// over `size` ranks: floor(log2 size).
inline int binary_tree_depth(int size) { return std::bit_width(static_cast<unsigned>(size)) - 1; }

// A tree's message tags and waits.
struct TreeTags {
  int up;    // partial sums, child to parent
  int down;  // final segments, parent to child
};
struct TreeWaits {
  Wait going_up;     // "tree-mpi reduce"
  Wait coming_down;  // "tree-mpi broadcast"
};

template <typename T>
class TreePipeline {
 public:
  using Tags = TreeTags;
  using Waits = TreeWaits;

  // `depth`: the whole tree's (root to deepest leaf), the same on every node.
  // `buffer` is reduced in place in segments of `segment` elements with
  // `sum`; `scratch` holds the children's partial sums (kept by the caller
  // between calls).
  TreePipeline(const TreeLinks& node, int depth, std::span<T> buffer, std::size_t segment,
               Tags tags, Waits waits, ElementSum sum, Scratch& scratch, Traffic& traffic);

  std::size_t iterations() const { return iterations_; }
  // Iteration i: reduce segment i and pass it up (or, at the root, down);
  // post the receive of an earlier segment coming down; forward a later one.
  void step(std::size_t i);
  // Waits for the segments forwarded to the children.
  void finish() { forwarded_.wait(waits_.coming_down); }

 private:
  T* slot(std::size_t child, std::size_t j);
  void post_child_receive(std::size_t child, std::size_t j);
  void forward_down(std::size_t j);

  TreeLinks node_;
  T* data_;
  std::vector<Range> segments_;
  Tags tags_;
  Waits waits_;
  ElementSum sum_;
  T* slots_ = nullptr;  // in the caller's scratch
  Traffic& traffic_;
  std::size_t slot_size_ = 0;
  std::size_t lag_ = 0;
  std::size_t iterations_ = 0;
  std::vector<std::vector<MPI_Request>> from_child_;
  std::vector<MPI_Request> up_, down_;
  PendingSends forwarded_;
};

// Runs the pipelines at once: iteration i of each in turn, then i+1, so that
// trees sharing links keep every link busy; then waits for their sends.
template <typename T>
void run_tree_pipelines(std::span<TreePipeline<T>> pipelines);

}  // namespace gradsync
