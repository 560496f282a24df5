// tree-mpi: pipelined binary-tree allreduce over MPI point-to-point.
//
// The p workers form a binary tree in heap order (rank r's children are 2r+1
// and 2r+2, its parent (r-1)/2), so any worker count works. The buffer is cut
// into segments (--tree-segment; by default 256 KiB on one host, 32 KiB
// across hosts: tree_mpi.h). Reduce: each node adds its children's
// segment j into its own (left child first, then right, so the sum's order is
// fixed) and sends the result to its parent. Broadcast: the root's segment j is
// final and flows back down, each node forwarding it to its children.
//
// Both phases are pipelined and run at once, neither waiting for the other:
// a segment goes up as soon as the children's parts of it are in, and comes
// down and on as soon as it arrives from above; receives from the children
// are kept posted a window ahead, and the sends up wait for them
// (synchronous sends, a window in flight). Cost for n bytes in s segments:
// about (2 log2 p + s) segment times, i.e. 2 log2(p) alpha-latency plus
// n beta per link direction once the pipe is full; the root's links carry the
// whole buffer both ways, which is why a ring wins on bandwidth and a tree on
// latency at large p. The per-node pipeline is tree_pipeline.cc, which
// double-tree-mpi runs on two trees at once.

#include "strategies/mpi/tree_mpi.h"

#include <algorithm>
#include <cstdint>

#include "strategies/core/partition.h"
#include "strategies/core/strategy_options.h"
#include "strategies/mpi/mpi_pipeline.h"
#include "strategies/mpi/short_allreduce.h"
#include "strategies/mpi/tree_pipeline.h"

namespace gradsync {
namespace {

// A node of the heap-ordered binary tree over `size` ranks, rooted at `root`.
TreeLinks heap_tree(int rank, int size, int root) {
  TreeLinks node;
  const int v = (rank - root + size) % size;  // position relative to the root
  auto actual = [&](int u) { return (u + root) % size; };
  if (v > 0) node.parent = actual((v - 1) / 2);
  for (int c : {2 * v + 1, 2 * v + 2})
    if (c < size) node.children.push_back(actual(c));
  return node;
}

class TreeMpi final : public Strategy {
 public:
  static constexpr TreeTags kTags{.up = 1, .down = 2};
  static constexpr int kBroadcastTag = 3;

  TreeMpi(const World& world, const StrategyOptions& options)
      : world_(world.duplicate()),
        segment_(segment_elements(tree_segment_bytes(options.tree, world_.spans_hosts()))),
        short_(world_, options, "tree-mpi") {
    world_.set_timeout(options.timeout_s);
  }

  std::string_view name() const override { return "tree-mpi"; }
  const World& peers() const override { return world_; }

  void allreduce(std::span<float> buffer) override { reduce(buffer, ElementSum{}); }
  void allreduce_compressed(std::span<std::uint16_t> buffer, Compression format) override {
    reduce(buffer, ElementSum{format});
  }
  std::string path_for(std::size_t count, std::size_t element_bytes) const override {
    return short_.path_for(count * element_bytes);
  }

  void broadcast(std::span<float> buffer, int root) override {
    if (world_.size() == 1 || buffer.empty()) return;
    const TreeLinks node = heap_tree(world_.rank(), world_.size(), root);
    relay_segments(buffer, split_by_max(buffer.size(), segment_), node.parent, node.children,
                   kBroadcastTag, {"tree-mpi broadcast", world_.comm(), world_.timeout()},
                   traffic_);
  }

 private:
  template <typename T>
  void reduce(std::span<T> buffer, ElementSum sum) {
    if (world_.size() == 1 || buffer.empty()) return;
    if (short_.takes(buffer.size_bytes())) return short_.allreduce(buffer, sum, traffic_);
    TreePipeline<T> tree(heap_tree(world_.rank(), world_.size(), 0), buffer, segment_, kTags,
                         world_.comm(), sum, scratch_, traffic_);
    // Every wait names the ranks it waits for and gives up after --timeout (bounded_wait.h).
    run_tree_pipelines<T>({&tree, 1}, {"tree-mpi pipeline", world_.comm(), world_.timeout()});
  }

  World world_;
  std::size_t segment_;
  ShortAllreduce short_;  // the latency path
  Scratch scratch_;
};

}  // namespace

std::unique_ptr<Strategy> make_tree_mpi(const World& world, const StrategyOptions& options) {
  return std::make_unique<TreeMpi>(world, options);
}

std::span<const OptionFlag> tree_mpi_flags() {
  static constexpr OptionFlag kFlags[] = {
      {.flag = "--tree-segment",
       .key = "tree_segment_bytes",
       .help = "bytes per pipelined segment, double-tree-mpi's too (0: 256K on one host, 32K "
               "across hosts)",
       .field = [](StrategyOptions& o) -> OptionField { return &o.tree.segment_bytes; },
       .costed = true},
  };
  return kFlags;
}

// The counts (strategies/core/cost.h). In a pipelined tree, reduce and
// broadcast run at once: a rank with c children and a parent receives c
// partial sums going up and the result coming down, and sends its own sum up
// and the result to each child, so each direction of its link carries
// (c + 1) x the buffer (c x at the root). Once the pipe is full the busiest
// link sets the pace: messages and bytes are that load in segments, plus the
// fill, the first segment's trip up to the root and back down to the deepest
// leaf (2 x depth segments). The busiest rank adds its c children's sums.
//
// Heap order, rank r's children 2r+1 and 2r+2, depth floor(log2 p)
// (TreeNode): the per-direction load is (children + 1) x n at the busiest
// rank: n for p = 2 (one link), 2n for p = 3 (the root's two children) and
// p = 4 (rank 1: a child and a parent), 3n from p = 5 on (rank 1: two
// children and a parent). Each load is counted in segments, the last one
// maybe short, and the fill in first segments.
//
// On nodes of several ranks the bytes are the busiest node's instead: every
// tree edge that leaves a node carries n each way through its one network
// link (edges_leaving_nodes), while edges inside it stay on its own, faster
// links. Heap order scatters a node's children: with nodes of 4, node 1
// (ranks 4-7) has its 4 parents and up to 8 children outside, 12n each way,
// where one rank to a node carries 3n. Messages stay the busiest rank's (each
// rank sends its own).
CostTerms binary_tree_terms(double bytes, int p, double segment_bytes, int per_node) {
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
  const int depth = binary_tree_depth(p);
  const double fill = 2.0 * depth;
  const double first_segment = static_cast<double>(std::min(segment, n));
  // The busiest node's links all carry at once: its children's and its
  // parent's flows arrive together (most_links of them).
  int most_flows = most_links;  // the busiest link's streams each way
  if (per_node > 1 && p > per_node) {
    const std::vector<int> leaving =
        edges_leaving_nodes(p, per_node, [&](int r) { return heap_tree(r, p, 0); });
    most_flows = *std::max_element(leaving.begin(), leaving.end());
  }
  const double busiest_bytes =
      (most_flows * static_cast<double>(n) + fill * first_segment) * kFloatBytes;
  return {.calls = 1,
          .messages = most_links * static_cast<double>(piece_count(n, segment)) + fill,
          .bytes = busiest_bytes,
          .reduced = most_children * static_cast<double>(n) * kFloatBytes,
          .contended = busiest_bytes * (most_flows - 1)};
}

AllreduceCounts tree_mpi_counts(double bytes, const StrategyOptions& options,
                                const WorkerPlacement& placement) {
  if (takes_short_path(bytes, placement.workers, options.short_allreduce_bytes))
    return {.spanning = recursive_doubling_terms(bytes, placement.workers)};
  return {.spanning =
              binary_tree_terms(bytes, placement.workers,
                                double(tree_segment_bytes(options.tree, placement.nodes() > 1)),
                                placement.workers_per_node)};
}

}  // namespace gradsync
