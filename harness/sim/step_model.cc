#include "harness/sim/step_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "harness/engine/fusion_plan.h"

namespace gradsync::sim {

double ComputeProfile::compute_s() const {
  return std::accumulate(forward_s.begin(), forward_s.end(), 0.0) +
         std::accumulate(backward_s.begin(), backward_s.end(), 0.0);
}

ComputeProfile profile_from_flops(const Graph& graph, int batch, double flops_per_second,
                                  std::string source) {
  if (!(flops_per_second > 0)) throw std::invalid_argument("compute: FLOP/s must be positive");
  ComputeProfile p;
  for (const Node& node : graph.nodes()) {
    const double f = node.layer->forward_flops() * batch / flops_per_second;
    p.forward_s.push_back(f);
    p.backward_s.push_back(2 * f);
  }
  p.source = std::move(source);
  return p;
}

ComputeProfile profile_from_measured(const Graph& graph, double compute_s, double optimizer_s,
                                     std::string source) {
  const double flops = graph.forward_flops();
  if (!(flops > 0)) throw std::invalid_argument("compute: the model has no counted FLOPs");
  // One image's FLOPs at the rate that makes forward + backward last compute_s.
  ComputeProfile p = profile_from_flops(graph, 1, 3 * flops / compute_s, std::move(source));
  p.optimizer_s = optimizer_s;
  return p;
}

namespace {

struct PlannedBucket {
  std::vector<std::size_t> members;
  double bytes = 0;
};

// The synchronizer's buckets in forward order: the rule's, with a gradient
// that fills a bucket by itself cut into pieces of the threshold (whole
// floats), each a bucket of its own (harness/engine/synchronizer.cc).
std::vector<PlannedBucket> forward_order_buckets(std::span<const std::size_t> order,
                                                 std::span<const std::size_t> bytes,
                                                 const FusionRule& rule) {
  const std::size_t piece = rule.piece_floats() * sizeof(float);  // bytes
  std::vector<PlannedBucket> out;
  for (const auto& members : plan_buckets(order, bytes, rule)) {
    double total = 0;
    for (std::size_t g : members) total += double(bytes[g]);
    if (members.size() == 1 && piece > 0 && bytes[members[0]] > piece) {
      for (std::size_t at = 0; at < bytes[members[0]]; at += piece)
        out.push_back({members, double(std::min(piece, bytes[members[0]] - at))});
    } else {
      out.push_back({members, total});
    }
  }
  return out;
}

// Forward order over one iteration (see step_model.h). Buckets are the
// rule's with pieces (above), in backward order; each closes when its last gradient is ready
// (the last, partial one at backward's end; all of them there with overlap
// off). The thread, when free, waits for a closed bucket it has not taken,
// pays an agreement round unless the workers already agreed that the whole
// step is closed, and takes the one with the lowest first parameter.
StepPrediction play_forward_order(const Graph& graph, const ComputeProfile& compute,
                                  double fusion_mb, bool overlap,
                                  const std::function<double(double)>& bucket_seconds,
                                  const ForwardOrderRun& run) {
  const auto& nodes = graph.nodes();
  const auto& params = graph.params();
  std::vector<std::size_t> bytes(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) bytes[i] = params[i].elements() * sizeof(float);
  const auto plan = forward_order_buckets(graph.backward_order(), bytes, FusionRule(fusion_mb));
  std::vector<double> seconds(plan.size()), bucket_bytes(plan.size(), 0.0);
  std::vector<std::size_t> first(plan.size());
  for (std::size_t b = 0; b < plan.size(); ++b) {
    bucket_bytes[b] = plan[b].bytes;
    first[b] = *std::min_element(plan[b].members.begin(), plan[b].members.end());
    seconds[b] = bucket_seconds(bucket_bytes[b]);
  }
  const int steps = std::max(1, run.steps_per_iteration);
  std::vector<double> synced(params.size(), 0.0);  // when each parameter's last sum ended
  double t = 0, thread_free = 0;
  StepPrediction out;
  for (int step = 0; step < steps; ++step) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {  // forward, waiting layer by layer
      for (std::size_t k = 0; k < nodes[i].param_count; ++k)
        t = std::max(t, synced[nodes[i].first_param + k]);
      t += compute.forward_s[i];
    }
    std::vector<double> ready(params.size(), 0.0);
    for (std::size_t i = nodes.size(); i-- > 0;) {
      t += compute.backward_s[i];
      for (std::size_t k = 0; k < nodes[i].param_count; ++k) ready[nodes[i].first_param + k] = t;
    }
    const double backward_end = t;
    std::vector<double> closes(plan.size());
    for (std::size_t b = 0; b < plan.size(); ++b) {
      closes[b] = 0;
      for (std::size_t g : plan[b].members) closes[b] = std::max(closes[b], ready[g]);
      if (b + 1 == plan.size() || !overlap) closes[b] = backward_end;
    }
    std::vector<char> taken(plan.size(), 0);
    bool all_agreed = false;
    out.buckets.clear();
    out.allreduce_s = 0;
    for (std::size_t picked = 0; picked < plan.size(); ++picked) {
      double earliest = std::numeric_limits<double>::infinity();
      for (std::size_t b = 0; b < plan.size(); ++b)
        if (!taken[b]) earliest = std::min(earliest, closes[b]);
      const double looked = std::max(thread_free, earliest);  // what is closed when it agrees
      double at = looked;
      if (!all_agreed) {
        all_agreed = looked >= backward_end;
        at += run.agreement_s;
      }
      std::size_t best = plan.size();
      for (std::size_t b = 0; b < plan.size(); ++b)
        if (!taken[b] && closes[b] <= looked && (best == plan.size() || first[b] < first[best]))
          best = b;
      taken[best] = 1;
      const BucketEvent e{.bytes = bucket_bytes[best],
                          .ready_s = closes[best],
                          .start_s = at,
                          .end_s = at + seconds[best]};
      for (std::size_t g : plan[best].members) synced[g] = std::max(synced[g], e.end_s);
      thread_free = e.end_s;
      out.allreduce_s += seconds[best];
      out.buckets.push_back(e);
    }
    if (step + 1 == steps) t = std::max(t, thread_free);  // the iteration's end settles
    t += compute.optimizer_s;
  }
  out.step_s = t / steps;
  out.forward_s = std::accumulate(compute.forward_s.begin(), compute.forward_s.end(), 0.0);
  out.backward_s = std::accumulate(compute.backward_s.begin(), compute.backward_s.end(), 0.0);
  out.optimizer_s = compute.optimizer_s;
  out.exposed_comm_s = std::max(0.0, out.step_s - out.forward_s - out.backward_s - out.optimizer_s);
  out.gradient_bytes = std::accumulate(bucket_bytes.begin(), bucket_bytes.end(), 0.0);
  return out;
}

}  // namespace

StepPrediction simulate_step(const Graph& graph, const ComputeProfile& compute, double fusion_mb,
                             bool overlap, const std::function<double(double)>& bucket_seconds,
                             double cycle_s, const std::optional<ForwardOrderRun>& forward,
                             const std::optional<ShardedRun>& sharded) {
  const auto& nodes = graph.nodes();
  if (compute.forward_s.size() != nodes.size() || compute.backward_s.size() != nodes.size())
    throw std::invalid_argument("compute profile and model differ in their number of layers");
  if (forward && sharded)
    throw std::invalid_argument("sharded strategies reduce in arrival order only");
  if (forward)
    return play_forward_order(graph, compute, fusion_mb, overlap, bucket_seconds, *forward);
  if (sharded && sharded->parameters)
    return play_fully_sharded(graph, compute, fusion_mb, bucket_seconds, *sharded);
  StepPrediction out;
  out.forward_s = std::accumulate(compute.forward_s.begin(), compute.forward_s.end(), 0.0);
  out.optimizer_s = compute.optimizer_s / (sharded ? std::max(1, sharded->workers) : 1);

  // When each parameter's gradient is ready: the end of its node's backward.
  const auto& params = graph.params();
  std::vector<double> ready(params.size(), 0.0);
  std::vector<std::size_t> bytes(params.size());
  double t = out.forward_s;
  for (std::size_t i = nodes.size(); i-- > 0;) {
    t += compute.backward_s[i];
    for (std::size_t k = 0; k < nodes[i].param_count; ++k) ready[nodes[i].first_param + k] = t;
  }
  const double backward_end = t;
  out.backward_s = backward_end - out.forward_s;
  for (std::size_t i = 0; i < params.size(); ++i) bytes[i] = params[i].elements() * sizeof(float);

  // The synchronizer's buckets, in the order it hands them over.
  const auto order = graph.backward_order();
  const auto plan = plan_buckets(order, bytes, FusionRule(fusion_mb));
  double thread_free = 0;
  for (std::size_t b = 0; b < plan.size(); ++b) {
    BucketEvent e;
    for (std::size_t g : plan[b]) {
      e.bytes += double(bytes[g]);
      e.ready_s = std::max(e.ready_s, ready[g]);
    }
    if (b + 1 == plan.size()) e.ready_s = backward_end;  // the partial bucket goes at the flush
    if (!overlap) e.ready_s = backward_end;
    e.start_s = std::max(e.ready_s, thread_free);
    if (cycle_s > 0 && e.ready_s > thread_free)  // idle: seen at the next look
      e.start_s = thread_free + std::ceil((e.ready_s - thread_free) / cycle_s) * cycle_s;
    const double gather_s = sharded ? sharded->gather_seconds(e.bytes) : 0.0;
    e.end_s = e.start_s + bucket_seconds(e.bytes) - gather_s;
    thread_free = e.end_s;
    out.allreduce_s += e.end_s - e.start_s + gather_s;
    out.gather_s += gather_s;
    out.gradient_bytes += e.bytes;
    out.buckets.push_back(e);
  }
  const double synced = std::max(backward_end, thread_free);
  out.step_s = synced + out.optimizer_s + out.gather_s;
  out.exposed_comm_s = out.step_s - backward_end - out.optimizer_s;
  return out;
}

}  // namespace gradsync::sim
