#include "harness/cli/cluster_spec.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <stdexcept>

namespace gradsync {

ClusterSpec parse_cluster_spec(const std::string& text) {
  std::string compact = text;
  compact.erase(std::remove_if(compact.begin(), compact.end(),
                               [](unsigned char c) { return std::isspace(c); }),
                compact.end());
  // hosts x slots @ rate [/ delay] [, mtu M]; rate and delay are a number and
  // a tc unit.
  static const std::regex form(
      R"(([0-9]+)[xX]([0-9]+)@([0-9.]+[a-zA-Z]+)(?:/([0-9.]+[a-z]+))?(?:,[mM][tT][uU]([0-9]+))?)");
  std::smatch m;
  if (!std::regex_match(compact, m, form))
    throw std::invalid_argument(fmt::format(
        "--cluster: '{}' is not HOSTS x SLOTS @ RATE[/DELAY][, mtu M], e.g. \"4 x 2 @ 1gbit\"",
        text));
  ClusterSpec spec;
  try {
    spec.hosts = std::stoi(m[1]);
    spec.slots = std::stoi(m[2]);
  } catch (const std::out_of_range&) {
    spec.hosts = spec.slots = 0;
  }
  if (spec.hosts < 1 || spec.hosts > 250 || spec.slots < 1 || spec.slots > 1024)
    throw std::invalid_argument(fmt::format(
        "--cluster: '{}' needs 1 to 250 hosts and 1 to 1024 slots per host", text));
  spec.rate = m[3];
  spec.delay = m[4];
  if (m[5].matched) {
    const std::string mtu = m[5];
    spec.mtu = mtu.size() <= 5 ? std::stoi(mtu) : 0;
    if (spec.mtu < 1280 || spec.mtu > 65000)
      throw std::invalid_argument(
          fmt::format("--cluster: '{}': the MTU must be from 1280 to 65000", text));
  }
  return spec;
}

std::string describe(const ClusterSpec& spec) {
  return fmt::format("{} hosts x {} slots @ {}{}{}", spec.hosts, spec.slots, spec.rate,
                     spec.delay.empty() ? "" : " + " + spec.delay + " delay",
                     spec.mtu ? fmt::format(", MTU {}", spec.mtu) : "");
}

}  // namespace gradsync
