#include "harness/results/wire_record.h"

#include <algorithm>

#include "harness/sim/json_whole.h"

namespace gradsync {
namespace {

std::uint64_t link_total(const HostWire& h) { return h.link ? h.link->tx + h.link->rx : 0; }

nlohmann::json optional_count(const std::optional<LinkBytes>& link,
                              std::uint64_t LinkBytes::*field) {
  return link ? nlohmann::json((*link).*field) : nlohmann::json();
}

}  // namespace

std::optional<double> HostWire::ratio() const {
  const std::uint64_t counted_bytes = counted.bytes_sent + counted.bytes_received;
  if (!link || counted_bytes == 0) return std::nullopt;
  return double(link->tx + link->rx) / double(counted_bytes);
}

const HostWire* WireTruth::busiest() const {
  const HostWire* best = nullptr;
  for (const auto& h : hosts)
    if (h.link && (!best || link_total(h) > link_total(*best))) best = &h;
  return best;
}

std::vector<HostWire> wire_by_host(std::span<const std::string> hostnames,
                                   std::span<const std::optional<WireSample>> samples) {
  std::vector<HostWire> hosts;
  for (std::size_t r = 0; r < hostnames.size(); ++r) {
    auto it = std::find_if(hosts.begin(), hosts.end(),
                           [&](const HostWire& h) { return h.host == hostnames[r]; });
    if (it == hosts.end())
      it = hosts.insert(hosts.end(), HostWire{hostnames[r], {}, std::nullopt, {}});
    it->ranks.push_back(static_cast<int>(r));
    if (r >= samples.size() || !samples[r]) continue;
    it->counted.bytes_sent += samples[r]->counted.bytes_sent;
    it->counted.bytes_received += samples[r]->counted.bytes_received;
    if (samples[r]->link && !it->link) it->link = samples[r]->link;
  }
  return hosts;
}

nlohmann::json to_json(const WireTruth& wire) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& h : wire.hosts) {
    const auto ratio = h.ratio();
    hosts.push_back({{"host", h.host},
                     {"ranks", h.ranks},
                     {"link_tx_bytes", optional_count(h.link, &LinkBytes::tx)},
                     {"link_rx_bytes", optional_count(h.link, &LinkBytes::rx)},
                     {"counted_sent_bytes", h.counted.bytes_sent},
                     {"counted_received_bytes", h.counted.bytes_received},
                     {"ratio", ratio ? nlohmann::json(*ratio) : nlohmann::json()}});
  }
  // The key keeps its name: "timed" holds timed_repeats.
  return {{"unit", wire.unit}, {"timed", wire.timed_repeats}, {"hosts", hosts}};
}

WireTruth wire_from_json(const nlohmann::json& j) {
  WireTruth wire{
      j.at("unit").get<std::string>(), whole_number(j.at("timed")), {}};  // timed_repeats
  for (const auto& h : j.at("hosts")) {
    HostWire host{h.at("host").get<std::string>(), whole_numbers(h.at("ranks")), {}, {}};
    if (!h.at("link_tx_bytes").is_null())
      host.link = LinkBytes{whole_number<std::uint64_t>(h.at("link_tx_bytes")),
                            whole_number<std::uint64_t>(h.at("link_rx_bytes"))};
    host.counted = {whole_number<std::uint64_t>(h.at("counted_sent_bytes")),
                    whole_number<std::uint64_t>(h.at("counted_received_bytes"))};
    wire.hosts.push_back(std::move(host));
  }
  return wire;
}

nlohmann::json wire_sample_json(const std::optional<WireSample>& sample) {
  if (!sample) return nullptr;
  nlohmann::json j = {{"sent", sample->counted.bytes_sent},
                      {"received", sample->counted.bytes_received}};
  if (sample->link) j["link"] = {sample->link->tx, sample->link->rx};
  return j;
}

std::optional<WireSample> wire_sample_from_json(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  WireSample sample{
      {whole_number<std::uint64_t>(j.at("sent")), whole_number<std::uint64_t>(j.at("received"))},
      std::nullopt};
  if (j.contains("link"))
    sample.link = LinkBytes{whole_number<std::uint64_t>(j["link"].at(0)),
                            whole_number<std::uint64_t>(j["link"].at(1))};
  return sample;
}

}  // namespace gradsync
