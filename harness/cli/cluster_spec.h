#pragma once
// `sweep --cluster "H x S @ RATE[/DELAY][, mtu M]"`: an emulated cluster of H
// hosts with S slots each, links shaped to RATE (tc units: 100mbit, 1gbit),
// an optional one-way DELAY (tc units: 1ms) and an optional MTU (jumbo
// frames: `cluster.sh up --mtu`), which scripts/cluster.sh makes.

#include <string>

namespace gradsync {

struct ClusterSpec {
  int hosts = 0;
  int slots = 0;
  std::string rate;   // as tc writes it, e.g. "1gbit"
  std::string delay;  // empty: none
  int mtu = 0;        // 0: cluster.sh's default (1500)
};

// Parses "4x2@1gbit", "8 x 1 @ 500mbit/1ms", "8x1@250mbit,mtu9000" (spaces
// ignored; the MTU from 1280 to 65000, as cluster.sh takes it). Throws
// std::invalid_argument naming the flag and what is wrong.
ClusterSpec parse_cluster_spec(const std::string& text);

// The spec's own words, e.g. "4 hosts x 2 slots @ 1gbit", "..., MTU 9000".
std::string describe(const ClusterSpec& spec);

}  // namespace gradsync
