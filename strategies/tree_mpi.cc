// tree-mpi: pipelined binary-tree allreduce over MPI point-to-point.
//
// The p workers form a binary tree in heap order (rank r's children are 2r+1
// and 2r+2, its parent (r-1)/2), so any worker count works. The buffer is cut
// into segments (--tree-segment). Reduce: each node adds its children's
// segment j into its own (left child first, then right, so the sum's order is
// fixed) and sends the result to its parent. Broadcast: the root's segment j is
// final and flows back down, each node forwarding it to its children.
//
// Both phases are pipelined and run at once: while segment j goes up, segment
// j-L comes down (L covers the round trip to the root), and receives from the
// children are kept posted a window ahead. Cost for n bytes in s segments:
// about (2 log2 p + s) segment times, i.e. 2 log2(p) alpha-latency plus
// n beta per link direction once the pipe is full; the root's links carry the
// whole buffer both ways, which is why a ring wins on bandwidth and a tree on
// latency at large p.

#include "strategies/tree_mpi.h"

#include <algorithm>
#include <bit>

#include "strategies/mpi_pipeline.h"
#include "strategies/partition.h"
#include "strategies/reduce_kernel.h"
#include "strategies/strategy_options.h"

namespace gradsync {
namespace {

constexpr int kWindow = 4;  // receives from each child kept posted ahead
constexpr int kUpTag = 1;
constexpr int kDownTag = 2;
constexpr int kBroadcastTag = 3;

// A node of the heap-ordered binary tree over `size` ranks, rooted at `root`.
struct TreeNode {
  int parent = -1;  // -1 at the root
  std::vector<int> children;
  int depth = 0;  // of the whole tree

  TreeNode(int rank, int size, int root) {
    const int v = (rank - root + size) % size;  // position relative to the root
    auto actual = [&](int u) { return (u + root) % size; };
    if (v > 0) parent = actual((v - 1) / 2);
    for (int c : {2 * v + 1, 2 * v + 2})
      if (c < size) children.push_back(actual(c));
    depth = std::bit_width(static_cast<unsigned>(size)) - 1;
  }
};

class TreeMpi final : public Strategy {
 public:
  TreeMpi(const World& world, const StrategyOptions& options)
      : world_(world.duplicate()), segment_(segment_elements(options.tree.segment_bytes)) {
    world_.set_timeout(options.timeout_s);
  }

  std::string_view name() const override { return "tree-mpi"; }
  const World& peers() const override { return world_; }

  void allreduce(std::span<float> buffer) override;

  void broadcast(std::span<float> buffer, int root) override {
    if (world_.size() == 1 || buffer.empty()) return;
    TreeNode node(world_.rank(), world_.size(), root);
    relay_segments(buffer, split_by_max(buffer.size(), segment_), node.parent, node.children,
                   kBroadcastTag, {"tree-mpi broadcast", world_.comm(), world_.timeout()},
                   traffic_);
  }

 private:
  World world_;
  std::size_t segment_;
  std::vector<float> scratch_;
};

void TreeMpi::allreduce(std::span<float> buffer) {
  if (world_.size() == 1 || buffer.empty()) return;
  const TreeNode node(world_.rank(), world_.size(), 0);
  const std::vector<Range> segments = split_by_max(buffer.size(), segment_);
  const std::size_t count = segments.size();
  const std::size_t slot_size = segments.front().count;
  const std::size_t children = node.children.size();
  const bool root = node.parent < 0;
  MPI_Comm comm = world_.comm();
  // Every wait names its phase and gives up after --timeout (bounded_wait.h).
  const Wait going_up{"tree-mpi reduce", comm, world_.timeout()};
  const Wait coming_down{"tree-mpi broadcast", comm, world_.timeout()};
  float* data = buffer.data();

  // Scratch: kWindow slots per child for incoming partial sums.
  scratch_.resize(children * kWindow * slot_size);
  auto slot = [&](std::size_t child, std::size_t j) {
    return scratch_.data() + (child * kWindow + j % kWindow) * slot_size;
  };
  std::vector<std::vector<MPI_Request>> from_child(
      children, std::vector<MPI_Request>(count, MPI_REQUEST_NULL));
  auto post_child_receive = [&](std::size_t child, std::size_t j) {
    from_child[child][j] = irecv_range(slot(child, j), {0, segments[j].count}, node.children[child],
                                       kUpTag, comm, traffic_);
  };
  for (std::size_t c = 0; c < children; ++c)
    for (std::size_t j = 0; j < std::min<std::size_t>(kWindow, count); ++j)
      post_child_receive(c, j);

  std::vector<MPI_Request> up(count, MPI_REQUEST_NULL), down(count, MPI_REQUEST_NULL);
  PendingSends forwarded;
  auto forward_down = [&](std::size_t j) {
    for (int child : node.children)
      forwarded.add(isend_range(data, segments[j], child, kDownTag, comm, traffic_), child);
  };

  // A non-root node posts the receive of segment j from above once its own
  // send of j upwards is complete (the data lands in the same place), and
  // waits for it `lag` iterations after sending it up.
  const std::size_t post_lag = 1;
  const std::size_t lag = std::max<std::size_t>(post_lag + 1, 2 * node.depth + 2);
  const std::size_t iterations = root ? count : count + lag;

  for (std::size_t i = 0; i < iterations; ++i) {
    if (i < count) {  // reduce segment i and pass it on
      for (std::size_t c = 0; c < children; ++c) {
        wait_peer(from_child[c][i], node.children[c], Direction::from_peer, going_up);
        sum_into(data + segments[i].offset, slot(c, i), segments[i].count);
        if (i + kWindow < count) post_child_receive(c, i + kWindow);
      }
      if (root)
        forward_down(i);
      else
        up[i] = isend_range(data, segments[i], node.parent, kUpTag, comm, traffic_);
    }
    if (root) continue;
    if (i >= post_lag && i - post_lag < count) {
      const std::size_t j = i - post_lag;
      wait_peer(up[j], node.parent, Direction::to_peer, going_up);
      down[j] = irecv_range(data, segments[j], node.parent, kDownTag, comm, traffic_);
    }
    if (i >= lag && i - lag < count) {
      const std::size_t j = i - lag;
      wait_peer(down[j], node.parent, Direction::from_peer, coming_down);
      forward_down(j);
    }
  }
  forwarded.wait(coming_down);
}

}  // namespace

std::unique_ptr<Strategy> make_tree_mpi(const World& world, const StrategyOptions& options) {
  return std::make_unique<TreeMpi>(world, options);
}

std::span<const OptionFlag> tree_mpi_flags() {
  static constexpr OptionFlag kFlags[] = {
      {.flag = "--tree-segment",
       .key = "tree_segment_bytes",
       .help = "bytes per pipelined segment",
       .field = [](StrategyOptions& o) -> OptionField { return &o.tree.segment_bytes; }},
  };
  return kFlags;
}

}  // namespace gradsync
