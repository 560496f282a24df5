#include "harness/sim/simulation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>

#include "harness/engine/fusion_plan.h"
#include "models/zoo.h"

namespace gradsync::sim {
namespace {

// Graphs are built from shapes only, but a sweep to 4,096 workers asks for
// the same few models thousands of times.
const Graph& graph_of(const std::string& model, int sequence_length) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, int>, Graph> graphs;
  std::lock_guard lock(mutex);
  const auto key = std::pair(model, sequence_length);
  auto it = graphs.find(key);
  if (it == graphs.end()) it = graphs.emplace(key, build_zoo_graph(model, sequence_length)).first;
  return it->second;
}

ComputeProfile compute_profile(const Graph& graph, const SimulationCase& run) {
  if (run.measured_compute)
    return profile_from_measured(graph, run.measured_compute->compute_s * 1.0,
                                 run.measured_compute->optimizer_s, run.measured_compute->source);
  const double scale = run.time_scale;
  if (run.emulate_img_per_sec > 0)
    return profile_from_flops(
        graph, run.batch, 3.0 * graph.forward_flops() * run.emulate_img_per_sec / scale,
        fmt::format("{:g} img/s per worker (forced){}", run.emulate_img_per_sec,
                    scale != 1 ? fmt::format(", time x{:g}", scale) : ""));
  if (!(run.flops_per_second > 0))
    throw std::invalid_argument("simulate: the compute needs a device profile or an img/sec rate");
  return profile_from_flops(
      graph, run.batch, run.flops_per_second / scale,
      fmt::format("{} profile, {:.1f} TFLOP/s{}", run.device_profile, run.flops_per_second / 1e12,
                  scale != 1 ? fmt::format(", time x{:g}", scale) : ""));
}

// How forward order plays (step_model.h), or nothing in arrival order. Its
// agreement before each bucket is a 2-value MPI_Allreduce among the workers,
// costed as mpi-allreduce's 16-byte call on the run's placement.
std::optional<ForwardOrderRun> forward_order_run(const ClusterModel& cluster,
                                                 const SimulationCase& run, bool moves) {
  if (run.order != SyncOrder::forward) return std::nullopt;
  const double agreement_s =
      moves ? BucketCoster(cluster, find_strategy("mpi-allreduce"), run.options, run.placement)
                  .cost(16)
                  .seconds
            : 0.0;
  return ForwardOrderRun{.steps_per_iteration = run.steps_per_iteration,
                         .agreement_s = agreement_s};
}

// A sharded strategy's step (step_model.h): its all-gathers are the same
// buckets' costs again, their all-gather part. None for a replica.
std::optional<ShardedRun> sharded_run(const SimulationCase& run, const BucketCoster& coster,
                                      bool moves) {
  if (run.strategy->sharding == Sharding::none) return std::nullopt;
  return ShardedRun{.gather_seconds =
                        [&coster, moves](double bytes) {
                          return moves ? coster.cost(bytes).gather_seconds : 0.0;
                        },
                    .workers = run.placement.workers,
                    .parameters = run.strategy->sharding == Sharding::parameters};
}

// The gradients' sizes in bytes, in the order backward hands them over.
std::vector<std::size_t> backward_bytes(const Graph& graph) {
  std::vector<std::size_t> bytes;
  for (std::size_t index : graph.backward_order())
    bytes.push_back(graph.params()[index].elements() * sizeof(float));
  return bytes;
}

}  // namespace

SimulationResult simulate(const ClusterModel& described, const SimulationCase& run) {
  if (run.batch < 1) throw std::invalid_argument("simulate: the batch must be at least 1");
  if (run.placement.workers < 1) throw std::invalid_argument("simulate: at least one worker");
  if (!run.strategy) throw std::invalid_argument("simulate: no strategy");
  const Graph& graph = graph_of(run.model, run.sequence_length);
  SimulationResult out;
  const ComputeProfile compute = compute_profile(graph, run);
  out.compute_source = compute.source;
  // The mechanisms (cluster_model.h) the file states and the case keeps on.
  const Mechanisms& mech = described.mechanisms;
  // Stated in the file, and not switched off by its name (kMechanisms').
  auto on = [&](Sourced Mechanisms::*field) {
    const auto info = std::ranges::find(kMechanisms, field, &MechanismInfo::field);
    return (mech.*field).value > 0 && !run.without.count(info->name);
  };
  const bool moves = run.placement.workers > 1 && run.strategy->role != StrategyRole::baseline;
  std::optional<ClusterModel> achieved;
  if (on(&Mechanisms::achieved_fraction)) {
    achieved = described;
    achieved->inter.bandwidth_bits_per_s.value *= mech.achieved_fraction.value;
    if (moves)
      out.mechanisms.push_back(fmt::format("achieved-rate {:g} of the line rate between nodes ({})",
                                           mech.achieved_fraction.value,
                                           mech.achieved_fraction.source));
  }
  const ClusterModel& cluster = achieved ? *achieved : described;
  const double cycle_s = on(&Mechanisms::framework_cycle_s) && moves ? mech.framework_cycle_s.value : 0;
  if (cycle_s > 0)
    out.mechanisms.push_back(
        fmt::format("cycle {:g} ms ({})", cycle_s * 1e3, mech.framework_cycle_s.source));
  // Host staging: device to host and back, the node's GPUs sharing the PCIe.
  double staging_bytes_per_s = 0;
  if (on(&Mechanisms::staging_bytes_per_s) && moves && cluster.accelerator == "gpu" &&
      run.strategy->memory == MemoryKind::host) {
    staging_bytes_per_s = mech.staging_bytes_per_s.value /
                          std::min(run.placement.workers, run.placement.workers_per_node);
    out.mechanisms.push_back(fmt::format("staging at {:.3g} GB/s per GPU ({})",
                                         staging_bytes_per_s / 1e9,
                                         mech.staging_bytes_per_s.source));
  }
  const BucketCoster coster(cluster, *run.strategy, run.options, run.placement);
  const std::optional<ForwardOrderRun> forward = forward_order_run(cluster, run, moves);
  out.costed_as = coster.costed_as();
  if (!out.mechanisms.empty()) out.costed_as += fmt::format("; {}", fmt::join(out.mechanisms, "; "));
  // Every bucket is costed once; what it moves adds up as it goes (`count`).
  const std::optional<ShardedRun> sharded = sharded_run(run, coster, moves);
  const auto play = [&](double fusion_mb, bool count) {
    return simulate_step(
        graph, compute, fusion_mb, run.overlap,
        [&](double bytes) {
          const BucketCoster::Cost cost = coster.cost(bytes);
          if (count && out.link_bytes_per_step && cost.link_bytes)
            *out.link_bytes_per_step += *cost.link_bytes;
          else if (count)
            out.link_bytes_per_step.reset();
          return cost.seconds + (staging_bytes_per_s > 0 ? 2 * bytes / staging_bytes_per_s : 0.0);
        },
        forward ? 0.0 : cycle_s, forward, sharded);
  };
  out.fusion_mb = run.fusion_mb;
  if (run.fusion_auto) {
    out.fusion_search = FusionSearchResult{.chosen_mb = run.fusion_mb};
    if (moves)
      out.fusion_search =
          search_fusion(backward_bytes(graph), [&](double mb) { return play(mb, false).step_s; });
    out.fusion_mb = out.fusion_search->chosen_mb;
  }
  out.link_bytes_per_step = 0.0;
  out.step = play(out.fusion_mb, true);
  // The input stage last: it waits on the whole step, communication included
  // (the fusion search above, like train's, plays the step without it).
  out.input = predict_input(run.input.on_node(cluster.host_cores.value), run.batch,
                            std::min(run.placement.workers, run.placement.workers_per_node),
                            out.step.step_s);
  out.step.step_s += out.input.wait_s;
  out.img_sec_per_worker = run.batch / out.step.step_s;
  out.memory = worker_memory(graph, run.strategy->sharding, run.placement.workers, out.fusion_mb,
                             run.optimizer);
  return out;
}

WorkerMemory worker_memory(const Graph& graph, Sharding sharding, int workers, double fusion_mb,
                           UpdateRule rule) {
  const std::uint64_t whole = graph.parameter_elements() * sizeof(float);
  const std::uint64_t state = state_floats(rule);
  WorkerMemory held{
      .parameters_bytes = whole, .gradients_bytes = whole, .optimizer_bytes = state * whole};
  if (sharding == Sharding::none) return held;
  std::vector<std::size_t> bytes;
  for (const auto& p : graph.params()) bytes.push_back(p.elements() * sizeof(float));
  // Stage 2 shards the synchronizer's buckets; stage 3 its units.
  const auto groups = sharding == Sharding::parameters
                          ? fully_sharded_units(graph, fusion_mb)
                          : plan_buckets(graph.backward_order(), bytes, FusionRule(fusion_mb));
  const std::uint64_t p = std::max(1, workers);
  std::vector<std::uint64_t> sizes;  // bytes of each bucket or unit
  std::uint64_t shard_bytes = 0;     // the largest shard of each, summed
  for (const auto& members : groups) {
    std::uint64_t elements = 0;
    for (std::size_t g : members) elements += bytes[g] / sizeof(float);
    shard_bytes += (elements + p - 1) / p * sizeof(float);
    sizes.push_back(elements * sizeof(float));
  }
  held.optimizer_bytes = state * shard_bytes;
  std::ranges::sort(sizes, std::greater<>());
  if (p > 1 && !sizes.empty()) held.gathered_bytes = sizes[0];
  if (sharding == Sharding::parameters) {
    held.parameters_bytes = shard_bytes;
    // The unit in use and the one prefetched: the two largest at most.
    if (p > 1 && sizes.size() > 1) held.gathered_bytes += sizes[1];
  }
  return held;
}

}  // namespace gradsync::sim
