// double-tree-mpi: two complementary pipelined binary trees over MPI
// point-to-point, each reducing and broadcasting half the buffer (NCCL's
// tree; Sanders, Speck and Traeff, "Two-tree algorithms for full bandwidth
// broadcast, reduction and scan", 2009).
//
// A single tree (tree-mpi) leaves bandwidth unused: its leaves, half the
// ranks, send and receive one buffer each, while interior nodes carry up to
// three. Here two trees over all ranks each carry half the buffer, chosen so
// that every rank is interior in at most one of them and a leaf in the other
// (double_tree_plan.cc: the in-order tree with its mirror or shift, as
// NCCL's, or at p = 4 the midpoint tree with ranks swapped in pairs, picked
// by counting the busiest rank's links). The first half of the buffer goes up
// and down tree 0, the second half tree 1, both in the same loop
// (tree_pipeline.h: iteration i of tree 0, then of tree 1), so each rank's
// links carry about the same load in both directions whichever tree it is
// interior in.
//
// Cost for n bytes, s segments per half: about 2 log2(p) alpha-latency (the
// round trip of one tree, as tree-mpi) plus, once the pipes are full, k n/2
// beta per direction on the busiest rank, k its links in both trees: k = 4
// at p >= 5 (3 n/2 as an interior node of one tree, n/2 as the other's leaf:
// 2n, against tree-mpi's 3n and the ring's 2(p-1)/p n), k = 3 at p = 3 and
// 4 (1.5n, the ring's own at p = 4), k = 2 at p = 2; and n/2 gamma per child
// at each interior node. The sum's order is fixed per element (own value,
// then the left child's, then the right's, up the tree that carries it) and
// the root's result is broadcast, so every rank ends bit-identical.

#include "strategies/mpi/double_tree_mpi.h"

#include "strategies/core/partition.h"
#include "strategies/core/strategy_options.h"
#include "strategies/mpi/double_tree_plan.h"
#include "strategies/mpi/mpi_pipeline.h"
#include "strategies/mpi/short_allreduce.h"
#include "strategies/mpi/tree_mpi.h"

namespace gradsync {

namespace {

class DoubleTreeMpi final : public Strategy {
 public:
  static constexpr TreeTags kTags[2] = {{.up = 1, .down = 2}, {.up = 4, .down = 5}};
  static constexpr int kBroadcastTag = 3;

  DoubleTreeMpi(const World& world, const StrategyOptions& options)
      : world_(world.duplicate()),
        plan_(double_tree_plan(world_.size())),
        segment_(segment_elements(tree_segment_bytes(options.tree, world_.spans_hosts()))),
        short_(world_, options, "double-tree-mpi") {
    world_.set_timeout(options.timeout_s);
  }

  std::string_view name() const override { return "double-tree-mpi"; }
  const World& peers() const override { return world_; }

  void allreduce(std::span<float> buffer) override { reduce(buffer, ElementSum{}); }
  void allreduce_compressed(std::span<std::uint16_t> buffer, Compression format) override {
    reduce(buffer, ElementSum{format});
  }
  std::string path_for(std::size_t count, std::size_t element_bytes) const override {
    return short_.path_for(count * element_bytes);
  }

  // Tree 0 rotated so that `root` is its root, relayed segment by segment.
  void broadcast(std::span<float> buffer, int root) override {
    const int size = world_.size();
    if (size == 1 || buffer.empty()) return;
    int tree_root = 0;
    while (plan_.links[tree_root][0].parent >= 0) ++tree_root;
    auto mod = [&](int a) { return ((a % size) + size) % size; };
    const int offset = root - tree_root;  // rank u + offset plays rank u of tree 0
    const TreeLinks& played = plan_.links[mod(world_.rank() - offset)][0];
    TreeLinks node;
    node.parent = played.parent < 0 ? -1 : mod(played.parent + offset);
    for (int child : played.children) node.children.push_back(mod(child + offset));
    relay_segments(buffer, split_by_max(buffer.size(), segment_), node.parent, node.children,
                   kBroadcastTag, {"double-tree-mpi broadcast", world_.comm(), world_.timeout()},
                   traffic_);
  }

 private:
  template <typename T>
  void reduce(std::span<T> buffer, ElementSum sum) {
    const int size = world_.size();
    if (size == 1 || buffer.empty()) return;
    if (short_.takes(buffer.size_bytes())) return short_.allreduce(buffer, sum, traffic_);
    const std::array<TreeLinks, 2>& trees = plan_.links[world_.rank()];
    const std::vector<Range> halves = split_even(buffer.size(), 2);
    auto half = [&](int t) {
      return TreePipeline<T>(trees[t], buffer.subspan(halves[t].offset, halves[t].count), segment_,
                             kTags[t], world_.comm(), sum, scratch_[t], traffic_);
    };
    TreePipeline<T> pipelines[2] = {half(0), half(1)};
    // Every wait names the ranks it waits for and gives up after --timeout (bounded_wait.h).
    run_tree_pipelines<T>(pipelines, {"double-tree-mpi pipeline", world_.comm(), world_.timeout()});
  }

  World world_;
  DoubleTreePlan plan_;
  std::size_t segment_;
  ShortAllreduce short_;  // the latency path
  Scratch scratch_[2];
};

}  // namespace

std::unique_ptr<Strategy> make_double_tree_mpi(const World& world, const StrategyOptions& options) {
  return std::make_unique<DoubleTreeMpi>(world, options);
}

// The counts (strategies/core/cost.h; the pipelined tree's load rule is
// binary_tree_terms's, tree_mpi.cc). Tree t carries half t of the buffer
// (even_part of 2), both at once, and each rank's links carry the sum of its
// two trees' loads. At large p every rank is interior in one tree and a leaf
// in the other: an interior rank with two children and a parent carries
// (2 + 1) x n/2 each way in its interior tree, and a leaf 1 x n/2 in the
// other: 2n per direction, against the single binary tree's 3n and the
// ring's 2(p-1)/p n. Small p carry less (p = 2: n; p = 3 and 4: 1.5n); the
// loads are counted rank by rank from the plan's trees. The busiest rank adds
// the halves of its children in both trees (n at large p). The fill is the
// deeper tree's (they run at once), in first segments of the larger half.
// The flows that arrive at the busiest rank at once are its links in both
// trees (4 at large p), for the contention term as in binary_tree_terms.
// On nodes of several ranks the bytes and flows are the busiest node's, as
// in binary_tree_terms: each tree's edges that leave it, times its half.
CostTerms double_tree_terms(double bytes, int p, double segment_bytes, int per_node) {
  require_positive_count(p, "double_tree_terms", "p");
  const std::uint64_t n = buffer_floats(bytes, "double_tree_terms");
  const std::uint64_t segment = segment_floats(segment_bytes, "double_tree_terms");
  if (p == 1 || n == 0) return {};
  const std::uint64_t half[2] = {even_part(n, 2, 0).count, even_part(n, 2, 1).count};
  const DoubleTreePlan plan = double_tree_plan(p);
  double most_bytes = 0, most_messages = 0, most_added = 0, most_links = 0;
  for (int r = 0; r < p; ++r) {
    double load = 0, messages = 0, added = 0, flows = 0;
    for (int t = 0; t < 2; ++t) {
      const TreeLinks& node = plan.links[r][t];
      const double children = static_cast<double>(node.children.size());
      const double links = children + (node.parent >= 0 ? 1 : 0);
      load += links * static_cast<double>(half[t]);
      messages += links * static_cast<double>(piece_count(half[t], segment));
      added += children * static_cast<double>(half[t]);
      flows += links;
    }
    most_bytes = std::max(most_bytes, load);
    most_messages = std::max(most_messages, messages);
    most_added = std::max(most_added, added);
    most_links = std::max(most_links, flows);
  }
  if (per_node > 1 && p > per_node) {
    std::vector<double> load, flows;  // per node, both trees
    for (int t = 0; t < 2; ++t) {
      const std::vector<int> leaving =
          edges_leaving_nodes(p, per_node, [&](int r) { return plan.links[r][t]; });
      load.resize(leaving.size());
      flows.resize(leaving.size());
      for (std::size_t k = 0; k < leaving.size(); ++k) {
        load[k] += leaving[k] * static_cast<double>(half[t]);
        flows[k] += leaving[k];
      }
    }
    const auto busiest = std::max_element(load.begin(), load.end()) - load.begin();
    most_bytes = load[busiest];
    most_links = flows[busiest];
  }
  const double fill = 2.0 * plan.depth;
  const double first_segment = static_cast<double>(std::min(segment, half[0]));
  const double busiest_bytes = (most_bytes + fill * first_segment) * kFloatBytes;
  return {.calls = 1,
          .messages = most_messages + fill,
          .bytes = busiest_bytes,
          .reduced = most_added * kFloatBytes,
          .contended = busiest_bytes * (most_links - 1)};
}

AllreduceCounts double_tree_mpi_counts(double bytes, const StrategyOptions& options,
                                       const WorkerPlacement& placement) {
  if (takes_short_path(bytes, placement.workers, options.short_allreduce_bytes))
    return {.spanning = recursive_doubling_terms(bytes, placement.workers)};
  return {.spanning =
              double_tree_terms(bytes, placement.workers,
                                double(tree_segment_bytes(options.tree, placement.nodes() > 1)),
                                placement.workers_per_node)};
}

}  // namespace gradsync
