#pragma once
// What a record says about the emulated cluster a run was on: the "cluster"
// object (results/README.md), the label runs are shown by ("4 hosts x 4 slots
// @ 25gbit (emulated 1.5625gbit, time x16)"), and the warning a run on links
// that fell short of their rate carries.

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>

#include "harness/engine/cluster_join.h"

namespace gradsync {

// A bit rate as tc writes one: "25gbit", "1.5625gbit", "100mbit".
std::string format_rate(double bits_per_s);

// "links fell N% short of the shaped rate in the last check" when the last
// check's worst link carried less than kFaithfulLinkRatio of the rate, a
// line saying no check was run when none was, nothing when the links held.
std::optional<std::string> link_warning(const ClusterDescription& cluster);

// The cluster a run represents: "H hosts x S slots @ RATE[, DELAY delay]",
// RATE and DELAY those of the represented cluster (shaped rate x K, delay /
// K), then "(emulated RATE[, DELAY], time xK)" when the time scale K is not 1.
std::string cluster_label(const ClusterDescription& cluster, double time_scale);

// What a run prints about its cluster, each line after `prefix`: "Cluster:
// <label>, links <interface> (GRADSYNC_CLUSTER=<path>)", and the link
// warning, if any, as "Warning: ...".
std::string cluster_text(const ClusterDescription& cluster, const std::string& path,
                         double time_scale, const std::string& prefix = "");

// The record's "cluster" object: the description's fields, each host with
// the world ranks that ran on it (from `hostnames`, per world rank), the
// check and the link warning (null when the links held). With a time scale
// (train records), also the represented rate and delay.
nlohmann::json cluster_json(const ClusterDescription& cluster,
                            std::span<const std::string> hostnames,
                            std::optional<double> time_scale);

// A train record's time scale: its "time_scale", 1 for records written
// before there was one.
double time_scale_of(const nlohmann::json& record);

// What a record's run stands for beyond its workload: the cluster label, a
// projection's setup, a simulated engine and the cluster it stood for
// ("smpi on horovod-p100-roce25"), or "time xK" for a time-scaled run on
// one machine, or "" for none. Runs
// with different setups are never compared with each other. Throws
// std::invalid_argument when the record's cluster object is malformed.
std::string setup_of(const nlohmann::json& record);

}  // namespace gradsync
