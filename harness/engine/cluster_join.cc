#include "harness/engine/cluster_join.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <stdexcept>

#include "harness/engine/agreement.h"
#include "harness/engine/errors.h"
#include "harness/engine/link_counters.h"
#include "strategies/registry.h"

namespace gradsync {

std::optional<ClusterMembership> cluster_of_rank(const char* env_value,
                                                 const std::string& hostname) {
  if (env_value == nullptr || *env_value == '\0') return std::nullopt;
  ClusterMembership membership{env_value, read_cluster_file(env_value)};
  if (!membership.description.find_host(hostname)) return std::nullopt;
  return membership;
}

std::optional<ClusterMembership> join_cluster(const World& world) {
  const char* env_value = std::getenv(kClusterEnv);
  const std::string prefix = std::string(kClusterEnv) + "=";
  std::optional<ClusterMembership> mine;
  std::string error;
  try {
    mine = cluster_of_rank(env_value, world.hostname());
    if (mine) (void)read_link_bytes(mine->description.interface);
  } catch (const std::exception& e) {
    error = prefix + e.what();
    if (mine) error = prefix + mine->path + ": host " + world.hostname() + ": " + e.what();
  }
  agree_on_failure(world, error, 2);

  // Every rank read the file (if named) without error. Now each says where it
  // stands: the file it is on the cluster by, or why it is not.
  const bool named = env_value != nullptr && *env_value != '\0';
  const auto stands =
      world.allgather(mine    ? "on " + mine->path
                      : named ? "its host is not listed in " + std::string(env_value)
                              : std::string(kClusterEnv) + " is not set there");
  const auto on = [](const std::string& s) { return s.rfind("on ", 0) == 0; };
  const auto first_on = std::find_if(stands.begin(), stands.end(), on);
  const auto first_off = std::find_if_not(stands.begin(), stands.end(), on);
  if (first_off == stands.end()) return mine;
  if (first_on == stands.end()) return std::nullopt;
  const int rank = static_cast<int>(first_off - stands.begin());
  throw AgreedError(
      fmt::format("{}{}: the job is only partly on the cluster: rank {} on host {} "
                  "is not ({})",
                  prefix, first_on->substr(3), rank, world.hostnames()[rank], *first_off),
      2);
}

WireMeter wire_meter(const ClusterMembership& cluster, const World& world,
                     const StrategyInfo& strategy, const StrategyOptions& options) {
  std::vector<bool> only_serves(world.size());
  for (int r = 0; r < world.size(); ++r) only_serves[r] = rank_only_serves(strategy, options, r);
  const auto readers = link_reader_ranks(world.hostnames(), only_serves);
  const bool reads = std::find(readers.begin(), readers.end(), world.rank()) != readers.end();
  return WireMeter(cluster.description.interface, reads);
}

}  // namespace gradsync
