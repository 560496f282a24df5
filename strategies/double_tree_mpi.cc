// double-tree-mpi: two complementary pipelined binary trees over MPI
// point-to-point, each reducing and broadcasting half the buffer (NCCL's
// tree; Sanders, Speck and Traeff, "Two-tree algorithms for full bandwidth
// broadcast, reduction and scan", 2009).
//
// A single tree (tree-mpi) leaves bandwidth unused: its leaves, half the
// ranks, send and receive one buffer each, while interior nodes carry up to
// three. Here tree 0 is the in-order binary tree over the ranks (rank r is
// position r+1; a position's lowest set bit is its height), whose leaves are
// the even ranks and whose interior nodes are the odd ones. Tree 1 is tree 0
// mirrored (even p) or shifted by one rank (odd p), so its interior nodes are
// the even ranks: every rank is interior in at most one tree, a leaf in the
// other. The first half of the buffer goes up and down tree 0, the second
// half tree 1, both in the same loop (tree_pipeline.h: iteration i of tree 0,
// then of tree 1), so each rank's links carry about the same load in both
// directions whichever tree it is interior in.
//
// Cost for n bytes, s segments per half: about 2 log2(p) alpha-latency (the
// round trip of one tree, as tree-mpi) plus, once the pipes are full, n beta
// per rank and direction for an interior node of one tree (3 n/2 in that
// tree, n/2 as the other's leaf) against tree-mpi's 3n at an interior node,
// and n/2 gamma per child at each interior node. The sum's order is fixed per
// element (own value, then the left child's, then the right's, up the tree
// that carries it) and the root's result is broadcast, so every rank ends
// bit-identical.

#include "strategies/double_tree_mpi.h"

#include "strategies/mpi_pipeline.h"
#include "strategies/partition.h"
#include "strategies/strategy_options.h"

namespace gradsync {

namespace {

// The in-order binary tree over positions 1..n (position x is rank x-1).
// Position x with lowest set bit b has children x - b/2 and the first of
// x + b/2, x + b/4, ..., x + 1 that is at most n; its parent is whichever of
// x - b and x + b has lowest bit 2b, or x - b when x + b is past n (0: x is
// the root, the largest power of two up to n).
TreeLinks in_order_tree(int rank, int size) {
  const unsigned x = static_cast<unsigned>(rank) + 1, n = static_cast<unsigned>(size);
  const unsigned b = x & (~x + 1);
  unsigned parent = (x ^ b) | (b << 1);
  if (parent > n) parent = x ^ b;
  TreeLinks node;
  node.parent = static_cast<int>(parent) - 1;
  if (b > 1) {
    node.children.push_back(static_cast<int>(x - b / 2) - 1);
    for (unsigned d = b / 2; d > 0; d /= 2)
      if (x + d <= n) {
        node.children.push_back(static_cast<int>(x + d) - 1);
        break;
      }
  }
  return node;
}

// `node` with every rank renamed by `rename` (-1 stays -1).
template <typename Rename>
TreeLinks renamed(TreeLinks node, Rename rename) {
  if (node.parent >= 0) node.parent = rename(node.parent);
  for (int& child : node.children) child = rename(child);
  return node;
}

constexpr TreeTags kTags[2] = {{.up = 1, .down = 2}, {.up = 4, .down = 5}};
constexpr int kBroadcastTag = 3;

class DoubleTreeMpi final : public Strategy {
 public:
  DoubleTreeMpi(const World& world, const StrategyOptions& options)
      : world_(world.duplicate()), segment_(segment_elements(options.tree.segment_bytes)) {
    world_.set_timeout(options.timeout_s);
  }

  std::string_view name() const override { return "double-tree-mpi"; }
  const World& peers() const override { return world_; }

  void allreduce(std::span<float> buffer) override { reduce(buffer, ElementSum{}); }
  void allreduce_compressed(std::span<std::uint16_t> buffer, Compression format) override {
    reduce(buffer, ElementSum{format});
  }

  // Tree 0 rotated so that `root` is its root, relayed segment by segment.
  void broadcast(std::span<float> buffer, int root) override {
    const int size = world_.size();
    if (size == 1 || buffer.empty()) return;
    const int offset = root - ((1 << binary_tree_depth(size)) - 1);  // from in_order_tree's root
    auto mod = [&](int a) { return ((a % size) + size) % size; };
    const TreeLinks node = renamed(in_order_tree(mod(world_.rank() - offset), size),
                                   [&](int u) { return mod(u + offset); });
    relay_segments(buffer, split_by_max(buffer.size(), segment_), node.parent, node.children,
                   kBroadcastTag, {"double-tree-mpi broadcast", world_.comm(), world_.timeout()},
                   traffic_);
  }

 private:
  template <typename T>
  void reduce(std::span<T> buffer, ElementSum sum) {
    const int size = world_.size();
    if (size == 1 || buffer.empty()) return;
    const std::array<TreeLinks, 2> trees = double_tree(world_.rank(), size);
    const std::vector<Range> halves = split_even(buffer.size(), 2);
    MPI_Comm comm = world_.comm();
    const double timeout = world_.timeout();
    // Every wait names its tree and phase and gives up after --timeout (bounded_wait.h).
    const TreeWaits waits[2] = {
        {{"double-tree-mpi reduce (tree 0)", comm, timeout},
         {"double-tree-mpi broadcast (tree 0)", comm, timeout}},
        {{"double-tree-mpi reduce (tree 1)", comm, timeout},
         {"double-tree-mpi broadcast (tree 1)", comm, timeout}}};
    auto half = [&](int t) {
      return TreePipeline<T>(trees[t], binary_tree_depth(size),
                             buffer.subspan(halves[t].offset, halves[t].count), segment_,
                             kTags[t], waits[t], sum, scratch_[t], traffic_);
    };
    TreePipeline<T> pipelines[2] = {half(0), half(1)};
    run_tree_pipelines<T>(pipelines);
  }

  World world_;
  std::size_t segment_;
  Scratch scratch_[2];
};

}  // namespace

std::array<TreeLinks, 2> double_tree(int rank, int size) {
  if (size % 2 == 0)
    return {in_order_tree(rank, size),
            renamed(in_order_tree(size - 1 - rank, size), [&](int u) { return size - 1 - u; })};
  return {in_order_tree(rank, size),
          renamed(in_order_tree((rank - 1 + size) % size, size),
                  [&](int u) { return (u + 1) % size; })};
}

std::unique_ptr<Strategy> make_double_tree_mpi(const World& world, const StrategyOptions& options) {
  return std::make_unique<DoubleTreeMpi>(world, options);
}

}  // namespace gradsync
