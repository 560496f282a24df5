#pragma once
// A SimGrid platform for SMPI (gradsync collectives --engine smpi), written
// from a cluster file (cluster_model.h): every node a SimGrid host with one
// core per worker, its workers' ranks on it (the hostfile), messages between
// ranks of one node on the node's loopback link (the cluster file's intra
// link), messages between nodes over the node's own link (its NIC: the
// inter link, full duplex, shared by the node's ranks) and the network
// between nodes, one of:
//
//   switch    one non-blocking switch: the nodes' links meet in a
//             crossbar (no backbone); a message crosses two links (up,
//             down), each with half the inter latency;
//   fat-tree  two levels: leaf switches of `hosts_per_leaf` nodes, each leaf
//             with hosts_per_leaf / oversubscription uplinks to as many
//             spines, every link at the inter rate (SimGrid's FAT_TREE
//             cluster); a message between leaves crosses four links, each
//             with a quarter of the inter latency, and the uplinks of a leaf
//             carry at most 1 / oversubscription of what its nodes can send.
//
// What SMPI adds to a link's time is set from the same file instead of
// SimGrid's defaults (calibrated on another cluster): smpi/bw-factor is the
// share of the line rate the transport achieves (the file's achieved_fraction
// when stated, else Ethernet + IPv4 + TCP framing at the MTU: (MTU - 52) /
// (MTU + 38)), smpi/lat-factor is 1, and smpi/os, the sender's time per
// message, is the file's per_message_s.

#include <string>
#include <vector>

#include "harness/sim/cluster_model.h"

namespace gradsync::sim {

// Every simulated core's speed, which nothing computes at (costed sums are
// charged in seconds); SMPI's host-speed must equal it (smpi_launch.cc).
inline constexpr double kSmpiCoreFlops = 1e9;

struct SmpiTopology {
  std::string kind = "switch";  // "switch" or "fat-tree"
  int hosts_per_leaf = 0;       // fat-tree: nodes per leaf switch (0: 16, or the nodes when fewer)
  double oversubscription = 1;  // fat-tree: a leaf's downlinks over its uplinks
  int mtu = 1500;               // for the framing share when the file states no achieved rate
};

// The nodes a job of `workers` ranks takes: workers_per_node ranks a node,
// the last one partly filled.
int smpi_nodes(const ClusterModel& cluster, int workers);

// Checks the topology against a job of `workers`; throws std::invalid_argument
// naming the flag (a leaf that does not divide the nodes, an oversubscription
// that does not give a whole number of uplinks, an unknown kind).
void check_smpi_topology(const ClusterModel& cluster, const SmpiTopology& topology, int workers);

// The platform file (SimGrid's XML, version 4.1) for a job of `workers`.
std::string smpi_platform_xml(const ClusterModel& cluster, const SmpiTopology& topology,
                              int workers);

// The hostfile: one line per rank naming its node ("node-I"), ranks filling
// the nodes in order. (smpirun would unroll "node-I:R" lines itself, into a
// temporary file in the working folder that it leaves there when a run fails.)
std::string smpi_hostfile(const ClusterModel& cluster, int workers);

// smpirun's --cfg flags that set SMPI's network factors from the file.
std::vector<std::string> smpi_network_flags(const ClusterModel& cluster,
                                            const SmpiTopology& topology);

// The platform in words and numbers, for records (engine.platform).
nlohmann::json smpi_platform_json(const ClusterModel& cluster, const SmpiTopology& topology,
                                  int workers);

}  // namespace gradsync::sim
