// NCCL's own model of an allreduce's time, written from the description of
// NCCL's src/graph/tuning.cc (ncclTopoTuneModel and ncclTopoGetAlgoTime,
// NCCL 2.10), not calibrated: what NCCL itself expects, with its constants.
//
// Per algorithm and protocol, time = latency + bytes / algorithm bandwidth:
//   latency, ring: base + (nsteps - nInterSteps) intraLat + nInterSteps interLat,
//     nsteps = 2(ranks-1) steps round the ring, nInterSteps = 2(nodes-1) of
//     them through the network;
//   latency, tree: base + 2 ((ranks/nodes - 1) intraLat + log2(nodes) interLat),
//     a chain inside each node and a tree across the nodes, up and down;
//   intraLat is the NVLink or PCI per-step latency, interLat the network's,
//   and the LL protocol's intraLat is 1.8 x as long on more than one node;
//   bus bandwidth: the slower of the node's and (across nodes) the network's,
//     ring LL x 1/4, ring LL128 x 0.92 (x 0.7 with fewer than 2 ranks a node),
//     tree x 0.9, then tree LL x 1/3.8, tree LL128 x 0.915 (x 7/9 on one node);
//   algorithm bandwidth: bus x ranks/nsteps (ring) or x 1/2 (tree);
//   tree bandwidth x NCCL's correction factor for the size, between 64 B and
//     128 MB (medium sizes do not fit the tree's model); ring Simple latency
//     x 1.9 across nodes from ranks/16 x 64 KiB on (the ring's plateau).
// LL128 is NCCL's default only on Volta/Ampere with NVLink, so here only
// when the node's link is NVLink. The per-channel caps of NCCL (LL128's
// maximum per channel, the tree's 80 to 130 GB/s, A100's 235 GB/s) need the
// channel count and the GPU, which NcclSystem does not carry, and are left
// out. NCCL picks the protocol of least time, and so does this.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "strategies/nccl/nccl_model.h"

namespace gradsync {
namespace {

constexpr int kProtocols = 3;  // LL, LL128, Simple: NcclProtocol's order
constexpr NcclProtocol kAllProtocols[kProtocols] = {NcclProtocol::ll, NcclProtocol::ll128,
                                                    NcclProtocol::simple};

// Latencies in microseconds, per protocol.
struct AlgoLatencies {
  double base[kProtocols];
  double nvlink[kProtocols];
  double pci[kProtocols];
  double net[kProtocols];
};
constexpr AlgoLatencies kRingLatencies{.base = {6.6, 14.0, 8.4},
                                       .nvlink = {0.47, 1.9, 3.4},
                                       .pci = {1.0, 2.5, 5.7},
                                       .net = {2.7, 4.0, 9.6}};
constexpr AlgoLatencies kTreeLatencies{.base = {6.8, 14.0, 0},
                                       .nvlink = {0.52, 1.2, 28},
                                       .pci = {1.0, 1.9, 28},
                                       .net = {5.0, 8.5, 50}};

// The tree's bandwidth correction per protocol, for log2(bytes / 64) = 0..21.
constexpr double kTreeCorrection[kProtocols][22] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7, .8, .9, .9, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9}};

// floor(log2(x)), 0 for x <= 1 (NCCL's log2i).
int floor_log2(std::uint64_t x) {
  int l = 0;
  while (x >>= 1) ++l;
  return l;
}

void check_system(const NcclSystem& system) {
  require_positive_count(system.ranks, "nccl_allreduce_time", "ranks");
  require_positive_count(system.nodes, "nccl_allreduce_time", "nodes");
  if (system.nodes > system.ranks)
    throw std::invalid_argument(
        fmt::format("nccl_allreduce_time: {} nodes need at least {} ranks, but there are {}",
                    system.nodes, system.nodes, system.ranks));
  if (system.ranks > 1 && !(system.intra_bus_gbps > 0))
    throw std::invalid_argument(fmt::format(
        "nccl_allreduce_time: intra_bus_gbps must be positive (got {})", system.intra_bus_gbps));
  if (system.nodes > 1 && !(system.inter_bus_gbps > 0))
    throw std::invalid_argument(
        fmt::format("nccl_allreduce_time: inter_bus_gbps must be positive across {} nodes (got {})",
                    system.nodes, system.inter_bus_gbps));
}

double latency_us(NcclAlgo algo, int proto, const NcclSystem& system) {
  const AlgoLatencies& table = algo == NcclAlgo::ring ? kRingLatencies : kTreeLatencies;
  double intra = system.intra == IntraLink::nvlink ? table.nvlink[proto] : table.pci[proto];
  const double inter = table.net[proto];
  if (system.nodes > 1 && proto == 0) intra *= 1.8;  // LL inside a node of a multi-node job
  if (algo == NcclAlgo::ring) {
    const int steps = 2 * (system.ranks - 1), inter_steps = 2 * (system.nodes - 1);
    return table.base[proto] + (steps - inter_steps) * intra + inter_steps * inter;
  }
  return table.base[proto] +
         2 * ((system.ranks / system.nodes - 1) * intra + floor_log2(system.nodes) * inter);
}

// Algorithm bandwidth in GB/s, before the tree's size correction.
double algorithm_gbps(NcclAlgo algo, int proto, const NcclSystem& system) {
  double bus = system.intra_bus_gbps;
  if (system.nodes > 1) bus = std::min(bus, system.inter_bus_gbps);
  if (algo == NcclAlgo::ring) {
    const double ranks_per_node = static_cast<double>(system.ranks) / system.nodes;
    if (proto == 0) bus *= 1.0 / 4.0;
    if (proto == 1) bus *= ranks_per_node < 2 ? 0.7 : 0.92;
    return bus * system.ranks / (2.0 * (system.ranks - 1));
  }
  bus *= 0.9;
  if (proto == 0) bus *= 1.0 / 3.8;
  if (proto == 1) bus *= system.nodes == 1 ? 7.0 / 9.0 : 0.915;
  return bus * 0.5;
}

}  // namespace

const char* to_string(NcclProtocol protocol) {
  switch (protocol) {
    case NcclProtocol::ll:
      return "LL";
    case NcclProtocol::ll128:
      return "LL128";
    case NcclProtocol::simple:
      return "Simple";
  }
  return "?";
}

std::optional<double> nccl_protocol_time(double bytes, NcclAlgo algo, NcclProtocol protocol,
                                         const NcclSystem& system) {
  check_system(system);
  buffer_floats(bytes, "nccl_allreduce_time");  // the size check
  if (protocol == NcclProtocol::ll128 && system.intra != IntraLink::nvlink) return std::nullopt;
  if (system.ranks == 1 || bytes == 0) return 0.0;
  const int proto = static_cast<int>(protocol);
  double latency = latency_us(algo, proto, system);
  double gbps = algorithm_gbps(algo, proto, system);
  if (algo == NcclAlgo::tree) {
    const int log_size = floor_log2(static_cast<std::uint64_t>(bytes) >> 6);
    if (log_size < 22) gbps *= kTreeCorrection[proto][log_size];
  }
  if (algo == NcclAlgo::ring && protocol == NcclProtocol::simple && system.nodes > 1 &&
      bytes >= system.ranks / 16.0 * 65536)
    latency *= 1.9;
  return (latency + bytes / (1000 * gbps)) * 1e-6;  // 1 GB/s moves 1000 bytes a microsecond
}

NcclTime nccl_allreduce_time(double bytes, NcclAlgo algo, const NcclSystem& system) {
  check_system(system);
  buffer_floats(bytes, "nccl_allreduce_time");
  NcclTime best;
  if (system.ranks == 1 || bytes == 0) return best;  // nothing runs
  bool found = false;
  for (NcclProtocol protocol : kAllProtocols) {
    const std::optional<double> seconds = nccl_protocol_time(bytes, algo, protocol, system);
    if (!seconds || (found && *seconds >= best.seconds)) continue;
    best = {*seconds, to_string(protocol)};
    found = true;
  }
  return best;
}

namespace {

NcclSystem system_of(const WorkerPlacement& placement, const DescribedLinks& links) {
  return {.ranks = placement.workers,
          .nodes = placement.nodes(),
          .intra = links.nvlink ? IntraLink::nvlink : IntraLink::pci,
          .intra_bus_gbps = links.intra_bits_per_s / 8e9,
          .inter_bus_gbps = links.inter_bits_per_s / 8e9};
}

}  // namespace

double nccl_ring_seconds(double bytes, const WorkerPlacement& placement,
                         const DescribedLinks& links) {
  return nccl_allreduce_time(bytes, NcclAlgo::ring, system_of(placement, links)).seconds;
}

double nccl_tree_seconds(double bytes, const WorkerPlacement& placement,
                         const DescribedLinks& links) {
  return nccl_allreduce_time(bytes, NcclAlgo::tree, system_of(placement, links)).seconds;
}

}  // namespace gradsync
