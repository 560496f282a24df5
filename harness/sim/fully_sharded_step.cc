// The fully sharded step (ZeRO stage 3) as harness/engine/fully_sharded_replica.h
// runs it, played in time: the units are the fusion rule's over the gradient
// block from its end; before each layer that uses parameters the units it
// uses are gathered (queued then, unless the prefetch queued them earlier)
// and the layer waits for them, every other unit being freed; asking for the
// n-th unit of a pass queues the (n+1)-th of the order the pass always
// follows (the step before's); a unit's reduce-scatter is queued when
// backward has handed over its last gradient. One communication thread runs
// the calls in the order queued. The step ends when the last call ends, then
// the shards' update (the optimizer's time over p).
#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "harness/engine/fusion_plan.h"
#include "harness/engine/prefetch_order.h"
#include "harness/sim/step_model.h"

namespace gradsync::sim {
namespace {

struct Units {
  std::vector<std::size_t> of_param;
  std::vector<double> bytes;
};

Units cut_units(const Graph& graph, double fusion_mb) {
  Units units{.of_param = std::vector<std::size_t>(graph.params().size())};
  for (const auto& members : fully_sharded_units(graph, fusion_mb)) {
    units.bytes.push_back(0);
    for (std::size_t p : members) {
      units.of_param[p] = units.bytes.size() - 1;
      units.bytes.back() += double(graph.params()[p].elements() * sizeof(float));
    }
  }
  return units;
}

// The units node i uses: its own parameters' and the one it borrows.
std::vector<std::size_t> used_by(const Graph& graph, const Units& units, std::size_t i) {
  const Node& node = graph.nodes()[i];
  std::vector<std::size_t> used;
  auto add = [&](std::size_t p) {
    if (std::ranges::find(used, units.of_param[p]) == used.end()) used.push_back(units.of_param[p]);
  };
  if (node.borrowed_param) add(*node.borrowed_param);
  for (std::size_t k = 0; k < node.param_count; ++k) add(node.first_param + k);
  return used;
}

// The communication thread and the units' state over one step.
class Play {
 public:
  Play(const Units& units, const std::function<double(double)>& bucket_seconds,
       const std::function<double(double)>& gather_seconds)
      : units_(units),
        bucket_(bucket_seconds),
        gather_(gather_seconds),
        queued_end_(units.bytes.size()),
        gathered_(units.bytes.size(), false) {}

  // A layer's gate at time t: returns when the layer may start.
  double need(const std::vector<std::size_t>& used, PrefetchOrder& pass, double t) {
    for (std::size_t u = 0; u < gathered_.size(); ++u)
      if (std::ranges::find(used, u) == used.end()) gathered_[u] = false;
    std::optional<std::size_t> next;
    for (std::size_t u : used)
      if (const auto after = pass.ask(u)) next = after;
    for (std::size_t u : used) {
      if (gathered_[u]) continue;
      t = std::max(t, queue_gather(u, t));
      queued_end_[u].reset();
      gathered_[u] = true;
    }
    if (next) queue_gather(*next, t);
    return t;
  }
  void queue_reduce_scatter(std::size_t u, double t) {
    const double bytes = units_.bytes[u];
    run(bytes, t, bucket_(bytes) - gather_(bytes));
  }
  double thread_free() const { return thread_free_; }
  StepPrediction& out() { return out_; }

 private:
  // Queues unit u's all-gather at t, unless queued already; returns its end.
  double queue_gather(std::size_t u, double t) {
    if (gathered_[u]) return t;
    if (!queued_end_[u]) {
      const double seconds = gather_(units_.bytes[u]);
      queued_end_[u] = run(units_.bytes[u], t, seconds);
      out_.gather_s += seconds;
    }
    return *queued_end_[u];
  }
  double run(double bytes, double ready_s, double seconds) {
    const BucketEvent e{.bytes = bytes,
                        .ready_s = ready_s,
                        .start_s = std::max(ready_s, thread_free_),
                        .end_s = std::max(ready_s, thread_free_) + seconds};
    thread_free_ = e.end_s;
    out_.allreduce_s += seconds;
    out_.buckets.push_back(e);
    return e.end_s;
  }

  const Units& units_;
  const std::function<double(double)>& bucket_;
  const std::function<double(double)>& gather_;
  std::vector<std::optional<double>> queued_end_;
  std::vector<bool> gathered_;
  double thread_free_ = 0;
  StepPrediction out_;
};

// The passes of a step, each following the order it asked in the step
// before, which is the graph's: the steady state the prefetch reaches.
std::pair<PrefetchOrder, PrefetchOrder> steady_passes(const Graph& graph, const Units& units) {
  PrefetchOrder forward, backward;
  for (std::size_t i = 0; i < graph.nodes().size(); ++i)
    for (std::size_t u : used_by(graph, units, i)) forward.ask(u);
  for (std::size_t i = graph.nodes().size(); i-- > 0;)
    for (std::size_t u : used_by(graph, units, i)) backward.ask(u);
  forward.next_step();
  backward.next_step();
  return {forward, backward};
}

}  // namespace

StepPrediction play_fully_sharded(const Graph& graph, const ComputeProfile& compute,
                                  double fusion_mb,
                                  const std::function<double(double)>& bucket_seconds,
                                  const ShardedRun& sharded) {
  const Units units = cut_units(graph, fusion_mb);
  auto [forward, backward] = steady_passes(graph, units);
  Play play(units, bucket_seconds, sharded.gather_seconds);
  const auto& nodes = graph.nodes();
  double t = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto used = used_by(graph, units, i);
    if (!used.empty()) t = play.need(used, forward, t);
    t += compute.forward_s[i];
  }
  std::vector<std::size_t> handed(units.bytes.size(), 0), members(units.bytes.size(), 0);
  for (std::size_t u : units.of_param) ++members[u];
  for (std::size_t i = nodes.size(); i-- > 0;) {
    const auto used = used_by(graph, units, i);
    if (!used.empty()) t = play.need(used, backward, t);
    t += compute.backward_s[i];
    for (std::size_t k = 0; k < nodes[i].param_count; ++k) {
      const std::size_t u = units.of_param[nodes[i].first_param + k];
      if (++handed[u] == members[u]) play.queue_reduce_scatter(u, t);
    }
  }
  StepPrediction out = play.out();
  out.forward_s = std::accumulate(compute.forward_s.begin(), compute.forward_s.end(), 0.0);
  out.backward_s = std::accumulate(compute.backward_s.begin(), compute.backward_s.end(), 0.0);
  out.optimizer_s = compute.optimizer_s / std::max(1, sharded.workers);
  out.gradient_bytes = std::accumulate(units.bytes.begin(), units.bytes.end(), 0.0);
  out.step_s = std::max(t, play.thread_free()) + out.optimizer_s;
  out.exposed_comm_s = std::max(0.0, out.step_s - out.forward_s - out.backward_s - out.optimizer_s);
  return out;
}

std::vector<std::vector<std::size_t>> fully_sharded_units(const Graph& graph, double fusion_mb) {
  std::vector<std::size_t> order = graph.backward_order(), sizes;
  std::reverse(order.begin(), order.end());  // from the block's end
  for (const auto& p : graph.params()) sizes.push_back(p.elements() * sizeof(float));
  return plan_buckets(order, sizes, FusionRule(fusion_mb));
}

}  // namespace gradsync::sim
