#pragma once
// Wire truth in a record: per host of an emulated cluster, the bytes its link
// put on and took off the wire over the timed region (read by one rank per
// host, link_counters.h) next to the bytes the strategies of its ranks
// counted, and their ratio. Built on rank 0 from every rank's WireSample.

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/engine/link_counters.h"

namespace gradsync {

struct HostWire {
  std::string host;
  std::vector<int> ranks;         // world ranks on it
  std::optional<LinkBytes> link;  // none: no worker on it read its link
  Traffic counted;                // summed over its ranks' samples

  // link (tx + rx) / counted (sent + received); none without both.
  std::optional<double> ratio() const;
};

// Wire truth of one timed region: `timed_repeats` repeats of `unit` ("step" for
// train, "allreduce" for one size of collectives).
struct WireTruth {
  std::string unit;
  int timed_repeats = 0;
  std::vector<HostWire> hosts;  // in order of first rank

  // The host whose link carried the most bytes (tx + rx), or nullptr when no
  // link was read.
  const HostWire* busiest() const;
};

// Groups per-rank samples (world rank order; none for a rank that took no
// sample, such as a dedicated server) by host name (`hostnames`, per rank).
std::vector<HostWire> wire_by_host(std::span<const std::string> hostnames,
                                   std::span<const std::optional<WireSample>> samples);

nlohmann::json to_json(const WireTruth& wire);
// Throws nlohmann::json's exceptions on a malformed object.
WireTruth wire_from_json(const nlohmann::json& json);

// A rank's sample, as it travels to rank 0 in an allgather (null for none).
nlohmann::json wire_sample_json(const std::optional<WireSample>& sample);
std::optional<WireSample> wire_sample_from_json(const nlohmann::json& json);

}  // namespace gradsync
