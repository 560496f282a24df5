#pragma once
// The emulated cluster a run may be on, as scripts/cluster.sh describes it
// in cluster.json (the contract between that script and this binary; see
// docs/guide/emulated-cluster.md, "cluster.json"): its hosts with their
// slots, the shaped link rate and delay, the interface every host's link
// has inside its namespace, and the last `cluster.sh check`. Records carry
// the same fields back (with the ranks on each host), so one reader serves
// cluster.json and the records alike.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gradsync {

inline constexpr int kClusterVersion = 1;
// A check is faithful when every link carried at least this share of its rate.
inline constexpr double kFaithfulLinkRatio = 0.9;

struct ClusterHost {
  std::string name;     // the hostname its ranks see
  std::string address;  // on the cluster's subnet
  int slots = 1;
};

// One link's part of `cluster.sh check`.
struct LinkCheckResult {
  std::string host;
  double achieved_bits_per_s = 0;
  double ratio = 0;  // achieved / shaped rate
};

struct LinkCheck {
  std::string when;  // ISO-8601
  std::vector<LinkCheckResult> links;
  double worst_ratio = 0;
  bool faithful = false;  // worst_ratio >= kFaithfulLinkRatio
};

// The links' MTU when cluster.sh up is given no --mtu (and so of every
// cluster.json from before the flag).
inline constexpr int kDefaultMtu = 1500;

struct ClusterDescription {
  std::string subnet, bridge;
  std::string interface;  // every host's link, inside its namespace
  int slots = 1;          // per host, as brought up
  std::string rate;       // as given, e.g. "1gbit"
  double rate_bits_per_s = 0;
  std::string delay;  // as given, e.g. "0ms"
  double delay_s = 0;
  int mtu =
      kDefaultMtu;  // of every link (cluster.sh up --mtu); the default where the file has none
  std::vector<ClusterHost> hosts;
  std::optional<LinkCheck> check;  // none: no check was run

  // The host named `name`, or nullptr.
  const ClusterHost* find_host(std::string_view name) const;
};

// Reads a cluster description (cluster.json, or a record's "cluster" object;
// fields it does not know are ignored). Throws std::invalid_argument naming
// the first field that is missing, of the wrong type or out of range.
ClusterDescription cluster_from_json(const nlohmann::json& json);

// Reads and checks the file. Throws std::invalid_argument
// "<path>: <what is wrong>" when it cannot be read, is not one JSON
// document (text after it, a key given twice) or not a valid description
// (a number out of its range: "<path>: hosts[1].slots: must be at least 1
// (got 0)").
ClusterDescription read_cluster_file(const std::string& path);
// The same from the file's text, `name` naming it in messages (no file is
// read: what a fuzz target calls).
ClusterDescription cluster_from_text(std::string_view text, const std::string& name);

}  // namespace gradsync
