#include "harness/engine/link_counters.h"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace gradsync {
namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

std::optional<LinkBytes> link_bytes_in(const std::string& proc_net_dev,
                                       std::string_view interface) {
  std::istringstream lines(proc_net_dev);
  std::string line;
  // The two header lines have a '|' where an interface line has its ':'.
  while (std::getline(lines, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || line.find('|') != std::string::npos) continue;
    if (trimmed(line.substr(0, colon)) != interface) continue;
    std::istringstream fields(line.substr(colon + 1));
    std::uint64_t value[9] = {};
    for (auto& v : value)
      if (!(fields >> v))
        throw std::runtime_error("/proc/net/dev: the line of " + std::string(interface) +
                                 " has fewer than 9 counters");
    return LinkBytes{.tx = value[8], .rx = value[0]};
  }
  return std::nullopt;
}

LinkBytes read_link_bytes(std::string_view interface) {
  std::ifstream in("/proc/net/dev");
  if (!in) throw std::runtime_error("/proc/net/dev cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  const auto bytes = link_bytes_in(text.str(), interface);
  if (!bytes)
    throw std::runtime_error("/proc/net/dev lists no interface " + std::string(interface));
  return *bytes;
}

void WireMeter::start(const Strategy& strategy) {
  counted_at_start_ = strategy.traffic();
  if (reads_link_) link_at_start_ = read_link_bytes(interface_);
}

WireSample WireMeter::stop(const Strategy& strategy) const {
  WireSample sample;
  const Traffic now = strategy.traffic();
  sample.counted = {now.bytes_sent - counted_at_start_.bytes_sent,
                    now.bytes_received - counted_at_start_.bytes_received};
  if (reads_link_) {
    const LinkBytes link = read_link_bytes(interface_);
    sample.link = LinkBytes{link.tx - link_at_start_.tx, link.rx - link_at_start_.rx};
  }
  return sample;
}

std::vector<int> link_reader_ranks(std::span<const std::string> hostnames,
                                   const std::vector<bool>& only_serves) {
  std::vector<int> readers;
  std::set<std::string> covered;
  for (int rank = 0; rank < static_cast<int>(hostnames.size()); ++rank)
    if (!only_serves[rank] && covered.insert(hostnames[rank]).second) readers.push_back(rank);
  return readers;
}

}  // namespace gradsync
