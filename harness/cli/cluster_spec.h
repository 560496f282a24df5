#pragma once
// `sweep --cluster "H x S @ RATE[/DELAY]"`: an emulated cluster of H hosts
// with S slots each, links shaped to RATE (tc units: 100mbit, 1gbit) and an
// optional one-way DELAY (tc units: 1ms), which scripts/cluster.sh makes.

#include <string>

namespace gradsync {

struct ClusterSpec {
  int hosts = 0;
  int slots = 0;
  std::string rate;   // as tc writes it, e.g. "1gbit"
  std::string delay;  // empty: none
};

// Parses "4x2@1gbit", "8 x 1 @ 500mbit/1ms" (spaces ignored). Throws
// std::invalid_argument naming the flag and what is wrong.
ClusterSpec parse_cluster_spec(const std::string& text);

// The spec's own words, e.g. "4 hosts x 2 slots @ 1gbit".
std::string describe(const ClusterSpec& spec);

}  // namespace gradsync
