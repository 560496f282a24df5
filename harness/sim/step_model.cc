#include "harness/sim/step_model.h"

#include <algorithm>
#include <cmath>
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

StepPrediction simulate_step(const Graph& graph, const ComputeProfile& compute, double fusion_mb,
                             bool overlap, const std::function<double(double)>& bucket_seconds,
                             double cycle_s) {
  const auto& nodes = graph.nodes();
  if (compute.forward_s.size() != nodes.size() || compute.backward_s.size() != nodes.size())
    throw std::invalid_argument("compute profile and model differ in their number of layers");
  StepPrediction out;
  out.forward_s = std::accumulate(compute.forward_s.begin(), compute.forward_s.end(), 0.0);
  out.optimizer_s = compute.optimizer_s;

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
    e.end_s = e.start_s + bucket_seconds(e.bytes);
    thread_free = e.end_s;
    out.allreduce_s += e.end_s - e.start_s;
    out.gradient_bytes += e.bytes;
    out.buckets.push_back(e);
  }
  const double synced = std::max(backward_end, thread_free);
  out.exposed_comm_s = synced - backward_end;
  out.step_s = synced + out.optimizer_s;
  return out;
}

}  // namespace gradsync::sim
