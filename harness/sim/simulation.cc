#include "harness/sim/simulation.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <stdexcept>

#include "models/zoo.h"

namespace gradsync::sim {
namespace {

// Graphs are built from shapes only, but a sweep to 4,096 workers asks for
// the same few models thousands of times.
const Graph& graph_of(const std::string& model) {
  static std::mutex mutex;
  static std::map<std::string, Graph> graphs;
  std::lock_guard lock(mutex);
  auto it = graphs.find(model);
  if (it == graphs.end()) it = graphs.emplace(model, find_zoo_entry(model).build()).first;
  return it->second;
}

ComputeProfile compute_profile(const Graph& graph, const SimulationCase& run) {
  if (run.measured)
    return profile_from_measured(graph, run.measured->compute_s * 1.0, run.measured->optimizer_s,
                                 run.measured->source);
  const double scale = run.time_scale;
  if (run.emulate_img_per_sec > 0)
    return profile_from_flops(
        graph, run.batch, 3.0 * graph.forward_flops() * run.emulate_img_per_sec / scale,
        fmt::format("{:g} img/s per worker (forced){}", run.emulate_img_per_sec,
                    scale != 1 ? fmt::format(", time x{:g}", scale) : ""));
  if (!(run.flops_per_second > 0))
    throw std::invalid_argument("simulate: the compute needs a device profile or an img/sec rate");
  return profile_from_flops(graph, run.batch, run.flops_per_second / scale,
                            fmt::format("{} profile, {:.1f} TFLOP/s{}", run.device,
                                        run.flops_per_second / 1e12,
                                        scale != 1 ? fmt::format(", time x{:g}", scale) : ""));
}

}  // namespace

SimulationResult simulate(const ClusterModel& cluster, const SimulationCase& run) {
  if (run.batch < 1) throw std::invalid_argument("simulate: the batch must be at least 1");
  if (run.placement.workers < 1) throw std::invalid_argument("simulate: at least one worker");
  if (!run.strategy) throw std::invalid_argument("simulate: no strategy");
  const Graph& graph = graph_of(run.model);
  SimulationResult out;
  const ComputeProfile compute = compute_profile(graph, run);
  out.compute_source = compute.source;
  const BucketCoster coster(cluster, *run.strategy, run.options, run.placement);
  out.costed_as = coster.costed_as();
  // Every bucket is costed once; what it moves adds up as it goes.
  out.link_bytes_per_step = 0.0;
  out.step = simulate_step(graph, compute, run.fusion_mb, run.overlap, [&](double bytes) {
    const BucketCoster::Cost cost = coster.cost(bytes);
    if (out.link_bytes_per_step && cost.link_bytes)
      *out.link_bytes_per_step += *cost.link_bytes;
    else
      out.link_bytes_per_step.reset();
    return cost.seconds;
  });
  out.img_sec_per_worker = run.batch / out.step.step_s;
  return out;
}

}  // namespace gradsync::sim
