#pragma once
// Whether a run is on the emulated cluster, decided alike on every rank. A
// rank is on it when the environment variable GRADSYNC_CLUSTER names a
// cluster.json and the rank's hostname is one of its hosts; the run is on it
// when every rank is. Unset or empty, the run is not (and nothing changes).

#include <optional>
#include <string>

#include "harness/engine/cluster.h"
#include "harness/engine/link_counters.h"
#include "strategies/core/strategy_options.h"
#include "strategies/core/world.h"
#include "strategies/registry.h"

namespace gradsync {

inline constexpr const char* kClusterEnv = "GRADSYNC_CLUSTER";

struct ClusterMembership {
  std::string path;  // the cluster.json read
  ClusterDescription description;
};

// What one rank concludes from the description (or the error reading it)
// and its hostname: the membership, nothing (not on the cluster), or throws
// std::invalid_argument with the reason. Not collective.
std::optional<ClusterMembership> cluster_of_rank(const char* env_value,
                                                 const std::string& hostname);

// Collective over `world`. Every rank reads the file named by
// GRADSYNC_CLUSTER and checks that its host is listed and that /proc/net/dev
// shows the cluster's interface; the ranks agree through one allgather.
// Returns the membership when every rank is on the cluster, nothing when
// none is (or the variable is unset). A file that cannot be read or is not a
// valid description, a job only partly on the cluster, or a host without the
// interface: one AgreedError (status 2) on every rank, naming the file.
std::optional<ClusterMembership> join_cluster(const World& world);

// This rank's meter for a run of `strategy` on the cluster: it reads the
// link of its host when it is that host's reader (link_reader_ranks, with
// the ranks that only serve under this strategy and its options).
WireMeter wire_meter(const ClusterMembership& cluster, const World& world,
                     const StrategyInfo& strategy, const StrategyOptions& options);

}  // namespace gradsync
