#pragma once
// Wire truth: the bytes a host's link really carried, next to the bytes the
// strategy counted. The link's counters come from /proc/net/dev, which shows
// the network namespace of the process that reads it, so on an emulated
// cluster each host's ranks see their own link (the contract's
// `interface`). One rank per host reads them (link_reader_ranks); every
// worker reads what its strategy counted over the same timed region.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strategies/core/strategy.h"

namespace gradsync {

// Bytes an interface transmitted and received (counters since boot).
struct LinkBytes {
  std::uint64_t tx = 0, rx = 0;
};

// The counters of `interface` in a /proc/net/dev text (two header lines,
// then "name: rx_bytes rx_packets ... (8 receive fields) tx_bytes ...").
// Nothing when the interface is not listed; throws std::runtime_error when
// its line is malformed.
std::optional<LinkBytes> link_bytes_in(const std::string& proc_net_dev, std::string_view interface);

// Reads /proc/net/dev now. Throws std::runtime_error naming the interface
// when it is not there.
LinkBytes read_link_bytes(std::string_view interface);

// What one rank saw over one timed region: the bytes its strategy counted,
// and, on the rank that reads its host's link, the link's bytes.
struct WireSample {
  Traffic counted;
  std::optional<LinkBytes> link;
};

// Takes a WireSample around a timed region: start() right before it, stop()
// right after, each reading the strategy's count and (when `reads_link`)
// the link's counters. Counters are 64-bit, so the difference is right
// across a wrap too.
class WireMeter {
 public:
  WireMeter(std::string interface, bool reads_link)
      : interface_(std::move(interface)), reads_link_(reads_link) {}
  void start(const Strategy& strategy);
  WireSample stop(const Strategy& strategy) const;

 private:
  std::string interface_;
  bool reads_link_;
  Traffic counted_at_start_;
  LinkBytes link_at_start_;
};

// The world ranks that read their host's link: on each host, the lowest rank
// that is a worker (`only_serves(rank)` false; a rank that only serves sits
// in its serve loop and cannot read right before and after the workers'
// timed region). `hostnames` is per world rank.
std::vector<int> link_reader_ranks(std::span<const std::string> hostnames,
                                   const std::vector<bool>& only_serves);

}  // namespace gradsync
