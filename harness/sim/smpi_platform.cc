#include "harness/sim/smpi_platform.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "strategies/core/cost.h"

namespace gradsync::sim {
namespace {

// Ethernet (preamble, header, FCS, gap: 38 B) around IPv4 and TCP with
// timestamps (52 B) around each MTU's payload.
constexpr int kFrameOverhead = 38;
constexpr int kHeaderBytes = 52;
constexpr int kDefaultHostsPerLeaf = 16;

int leaf_size(const SmpiTopology& topology, int nodes) {
  const int wanted = topology.hosts_per_leaf > 0 ? topology.hosts_per_leaf : kDefaultHostsPerLeaf;
  return std::min(wanted, nodes);
}

// A leaf's uplinks: its nodes over the oversubscription.
int uplinks(const SmpiTopology& topology, int leaf) {
  return static_cast<int>(std::lround(leaf / topology.oversubscription));
}

double framing_share(int mtu) {
  return static_cast<double>(mtu - kHeaderBytes) / (mtu + kFrameOverhead);
}

// The share of the inter link's line rate a message achieves, and whence.
std::pair<double, std::string> achieved_share(const ClusterModel& cluster, const SmpiTopology& topology) {
  if (cluster.mechanisms.achieved_fraction.value > 0)
    return {cluster.mechanisms.achieved_fraction.value, "the cluster file's achieved_fraction"};
  // `gradsync calibrate` fits the rate messages' payload moved at: framing
  // is already in it.
  if (cluster.inter.bandwidth_bits_per_s.source == "calibrated")
    return {1.0, "1: the inter rate is calibrated, a payload rate"};
  return {framing_share(topology.mtu),
          fmt::format("Ethernet + IPv4 + TCP framing at MTU {}", topology.mtu)};
}

}  // namespace

int smpi_nodes(const ClusterModel& cluster, int workers) {
  return WorkerPlacement{workers, cluster.workers_per_node, 0}.nodes();
}

void check_smpi_topology(const ClusterModel& cluster, const SmpiTopology& topology, int workers) {
  if (workers < 1) throw std::invalid_argument("--workers must be at least 1");
  if (topology.mtu < 576 || topology.mtu > 65000)
    throw std::invalid_argument(fmt::format("--mtu {}: expected 576 to 65000", topology.mtu));
  if (topology.kind == "switch") return;
  if (topology.kind != "fat-tree")
    throw std::invalid_argument("--topology '" + topology.kind + "': expected switch or fat-tree");
  const int nodes = smpi_nodes(cluster, workers);
  const int leaf = leaf_size(topology, nodes);
  if (nodes % leaf != 0)
    throw std::invalid_argument(fmt::format(
        "--hosts-per-leaf {}: {} nodes ({} workers, {} per node) do not fill whole leaves", leaf,
        nodes, workers, cluster.workers_per_node));
  if (!(topology.oversubscription >= 1))
    throw std::invalid_argument("--oversubscription must be 1 (non-blocking) or more");
  const int up = uplinks(topology, leaf);
  if (up < 1 || std::abs(leaf / topology.oversubscription - up) > 1e-9)
    throw std::invalid_argument(fmt::format(
        "--oversubscription {}: a leaf of {} nodes would need {} uplinks; choose one that divides "
        "the leaf",
        topology.oversubscription, leaf, leaf / topology.oversubscription));
}

std::string smpi_platform_xml(const ClusterModel& cluster, const SmpiTopology& topology,
                              int workers) {
  check_smpi_topology(cluster, topology, workers);
  const int nodes = smpi_nodes(cluster, workers);
  const double inter = cluster.inter.bandwidth_bits_per_s.value;
  const double inter_lat = cluster.inter.latency_s.value;
  // Attributes every node has: one core per worker, its NIC, its loopback
  // (the intra link), speed irrelevant (compute is never benchmarked).
  const std::string node_attributes = fmt::format(
      R"(prefix="node-" suffix="" radical="0-{}" speed="{}f" core="{}" sharing_policy="SPLITDUPLEX" )"
      R"(bw="{}bps" loopback_bw="{}bps" loopback_lat="{}s")",
      nodes - 1, kSmpiCoreFlops, cluster.workers_per_node, inter, cluster.intra.bandwidth_bits_per_s.value,
      cluster.intra.latency_s.value);
  std::string network;
  if (topology.kind == "switch") {
    // Non-blocking: the nodes' links meet in a crossbar (a cluster without a
    // backbone), so contention is at the NICs only. A shared backbone of
    // every NIC's rate together would carry only half of what the NICs send
    // and receive at once, and slowed a tree's reduce and broadcast, which
    // both run at the same time, below what the emulated cluster measured. A
    // FATPIPE backbone at a NIC's rate gives the same times as none (64 MiB
    // at 256 ranks: ring-mpi and ps-zmq to the microsecond) but puts every
    // flow of the job on one shared constraint, and took SimGrid 2.2 times
    // as long to simulate.
    network = fmt::format(R"(lat="{}s")", inter_lat / 2);
  } else {
    const int leaf = leaf_size(topology, nodes);
    network = fmt::format(R"(lat="{}s" topology="FAT_TREE" topo_parameters="2;{},{};1,{};1,1")",
                          inter_lat / 4, leaf, nodes / leaf, uplinks(topology, leaf));
  }
  return fmt::format(R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- Written by gradsync collectives --engine smpi from the cluster file "{}" -->
<platform version="4.1">
  <cluster id="{}" {} {}/>
</platform>
)",
                     cluster.name, cluster.name.empty() ? "cluster" : cluster.name,
                     node_attributes, network);
}

std::string smpi_hostfile(const ClusterModel& cluster, int workers) {
  std::string out;
  for (int rank = 0; rank < workers; ++rank)
    out += fmt::format("node-{}\n", rank / cluster.workers_per_node);
  return out;
}

std::vector<std::string> smpi_network_flags(const ClusterModel& cluster,
                                            const SmpiTopology& topology) {
  return {fmt::format("--cfg=smpi/bw-factor:0:{}", achieved_share(cluster, topology).first),
          "--cfg=smpi/lat-factor:0:1",
          fmt::format("--cfg=smpi/os:0:{}:0", cluster.per_message_s.value)};
}

nlohmann::json smpi_platform_json(const ClusterModel& cluster, const SmpiTopology& topology,
                                  int workers) {
  const int nodes = smpi_nodes(cluster, workers);
  const auto [share, share_source] = achieved_share(cluster, topology);
  nlohmann::json out = {
      {"cluster_name", cluster.name},
      {"topology", topology.kind},
      {"nodes", nodes},
      {"workers_per_node", cluster.workers_per_node},
      {"inter_bits_per_s", cluster.inter.bandwidth_bits_per_s.value},
      {"inter_latency_s", cluster.inter.latency_s.value},
      {"intra_bits_per_s", cluster.intra.bandwidth_bits_per_s.value},
      {"intra_latency_s", cluster.intra.latency_s.value},
      {"per_message_s", cluster.per_message_s.value},
      {"bw_factor", share},
      {"bw_factor_from", share_source},
      {"lat_factor", 1},
      {"mtu", topology.mtu},
  };
  if (topology.kind == "fat-tree") {
    const int leaf = leaf_size(topology, nodes);
    out["hosts_per_leaf"] = leaf;
    out["uplinks_per_leaf"] = uplinks(topology, leaf);
    out["oversubscription"] = topology.oversubscription;
  }
  return out;
}

}  // namespace gradsync::sim
