#include "harness/results/cluster_record.h"

#include <fmt/format.h>

#include <cmath>

#include "harness/engine/counted.h"

namespace gradsync {
namespace {

std::string format_delay(double seconds) { return fmt::format("{:.6g}ms", seconds * 1e3); }

nlohmann::json to_json(const LinkCheck& check) {
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : check.links)
    links.push_back(
        {{"host", l.host}, {"achieved_bits_per_s", l.achieved_bits_per_s}, {"ratio", l.ratio}});
  return {{"when", check.when},
          {"links", links},
          {"worst_ratio", check.worst_ratio},
          {"faithful", check.faithful}};
}

}  // namespace

std::string format_rate(double bits_per_s) {
  static constexpr std::pair<double, const char*> kUnits[] = {
      {1e9, "gbit"}, {1e6, "mbit"}, {1e3, "kbit"}};
  for (const auto& [unit, name] : kUnits)
    if (bits_per_s >= unit) return fmt::format("{:.6g}{}", bits_per_s / unit, name);
  return fmt::format("{:.6g}bit", bits_per_s);
}

std::optional<std::string> link_warning(const ClusterDescription& cluster) {
  if (!cluster.check)
    return "no link check was run on this cluster (scripts/cluster.sh check): its links may "
           "carry less than the shaped rate";
  if (cluster.check->worst_ratio >= kFaithfulLinkRatio) return std::nullopt;
  return fmt::format("links fell {:.0f}% short of the shaped rate in the last check",
                     100 * (1 - cluster.check->worst_ratio));
}

std::string cluster_label(const ClusterDescription& c, double time_scale) {
  const bool delayed = c.delay_s > 0;
  std::string label =
      fmt::format("{} x {} @ {}", counted(c.hosts.size(), "host"), counted(c.slots, "slot"),
                  format_rate(c.rate_bits_per_s * time_scale));
  if (delayed) label += ", " + format_delay(c.delay_s / time_scale) + " delay";
  if (c.mtu != kDefaultMtu) label += fmt::format(", MTU {}", c.mtu);
  if (time_scale != 1)
    label += fmt::format(" (emulated {}{}, time x{:.6g})", format_rate(c.rate_bits_per_s),
                         delayed ? ", " + format_delay(c.delay_s) : "", time_scale);
  return label;
}

std::string cluster_text(const ClusterDescription& cluster, const std::string& path,
                         double time_scale, const std::string& prefix) {
  std::string text =
      fmt::format("{}Cluster: {}, links {} ({}={})\n", prefix, cluster_label(cluster, time_scale),
                  cluster.interface, kClusterEnv, path);
  if (const auto warning = link_warning(cluster)) text += prefix + "Warning: " + *warning + "\n";
  return text;
}

nlohmann::json cluster_json(const ClusterDescription& c, std::span<const std::string> hostnames,
                            std::optional<double> time_scale) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& host : c.hosts) {
    nlohmann::json ranks = nlohmann::json::array();
    for (std::size_t r = 0; r < hostnames.size(); ++r)
      if (hostnames[r] == host.name) ranks.push_back(r);
    hosts.push_back(
        {{"name", host.name}, {"address", host.address}, {"slots", host.slots}, {"ranks", ranks}});
  }
  const auto warning = link_warning(c);
  nlohmann::json out = {{"subnet", c.subnet},
                        {"bridge", c.bridge},
                        {"interface", c.interface},
                        {"slots", c.slots},
                        {"rate", c.rate},
                        {"rate_bits_per_s", c.rate_bits_per_s},
                        {"delay", c.delay},
                        {"delay_s", c.delay_s},
                        {"mtu", c.mtu},
                        {"hosts", hosts},
                        {"check", c.check ? to_json(*c.check) : nlohmann::json()},
                        {"link_warning", warning ? nlohmann::json(*warning) : nlohmann::json()}};
  if (time_scale) {
    out["represented_rate"] = format_rate(c.rate_bits_per_s * *time_scale);
    out["represented_rate_bits_per_s"] = c.rate_bits_per_s * *time_scale;
    out["represented_delay_s"] = c.delay_s / *time_scale;
  }
  return out;
}

double time_scale_of(const nlohmann::json& record) {
  const auto it = record.find("time_scale");
  return it != record.end() && it->is_number() ? it->get<double>() : 1.0;
}

std::string setup_of(const nlohmann::json& record) {
  const double time_scale = time_scale_of(record);
  const auto cluster = record.find("cluster");
  if (cluster != record.end() && !cluster->is_null()) {
    try {
      return cluster_label(cluster_from_json(*cluster), time_scale);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("cluster: ") + e.what());
    }
  }
  // A projection of the cost model names the cluster it describes.
  const auto simulation = record.find("simulation");
  if (simulation != record.end() && simulation->is_object()) {
    const auto setup = simulation->find("setup");
    if (setup != simulation->end() && setup->is_string() && !setup->get<std::string>().empty())
      return setup->get<std::string>();
  }
  // A simulated engine's collectives (SMPI's or the model's) name the engine
  // and the cluster it stood for: "smpi on horovod-p100-roce25 (fat-tree
  // 2:1)", "model on horovod-p100-roce25".
  const auto engine = record.find("engine");
  if (engine != record.end() && engine->is_object()) {
    const nlohmann::json platform = engine->value("platform", nlohmann::json::object());
    std::string label = engine->value("name", std::string("simulated")) + " on " +
                        (platform.is_object() ? platform.value("cluster_name", std::string("?")) : "?");
    if (platform.is_object() && platform.value("topology", std::string()) == "fat-tree")
      label += fmt::format(" (fat-tree {:g}:1)", platform.value("oversubscription", 1.0));
    return label;
  }
  return time_scale != 1 ? fmt::format("time x{:.6g}", time_scale) : "";
}

}  // namespace gradsync
