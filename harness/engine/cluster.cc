#include "harness/engine/cluster.h"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "harness/engine/input_rules.h"

namespace gradsync {
namespace {

// A field of `object`, checked with `is`. `where` prefixes every message
// ("", "check: ", "host 2: ").
const nlohmann::json& field(const nlohmann::json& object, const std::string& where,
                            const char* name, bool (nlohmann::json::*is)() const noexcept,
                            const char* kind) {
  const auto it = object.find(name);
  if (it == object.end())
    throw std::invalid_argument(fmt::format("{}\"{}\" is missing", where, name));
  if (!((*it).*is)())
    throw std::invalid_argument(fmt::format("{}\"{}\" is not {}", where, name, kind));
  return *it;
}

// Every number of cluster.json and its range (docs/guide/emulated-cluster.md,
// "cluster.json", lists them): scripts/cluster.sh brings up 1 to 1024 slots
// per host, links from 1 kbit/s to 10 Tbit/s with a delay up to 10 s and an
// MTU from 576 (IPv4's least) to 65535.
constexpr NumberRule kClusterJsonRules[] = {
    {"version", true, 0, 1e6, ""},
    {"slots", true, 1, 1024, ""},
    {"rate_bits_per_s", false, 1e3, 1e13, "bit/s"},
    {"delay_s", false, 0, 10, "s"},
    {"mtu", true, 576, 65535, ""},
    {"achieved_bits_per_s", false, 0, 1e13, "bit/s"},
    {"ratio", false, 0, 1e3, ""},
    {"worst_ratio", false, 0, 1e3, ""},
};

std::string text(const nlohmann::json& o, const std::string& where, const char* name) {
  return field(o, where, name, &nlohmann::json::is_string, "a string").get<std::string>();
}
// The number `name` of `o` under its rule; `path` prefixes its name in
// messages ("hosts[2].", "check.links[0].").
double number(const nlohmann::json& o, const std::string& path, std::string_view name) {
  const NumberRule& rule = rule_named(kClusterJsonRules, name);
  const auto it = o.find(name);
  if (it == o.end()) throw std::invalid_argument(fmt::format("\"{}{}\" is missing", path, name));
  return json_number(*it, rule, "", path + std::string(name));
}
int whole(const nlohmann::json& o, const std::string& path, std::string_view name) {
  return int(number(o, path, name));
}

LinkCheck check_from_json(const nlohmann::json& c) {
  if (!c.is_object()) throw std::invalid_argument("\"check\" is neither null nor an object");
  const std::string where = "check: ";
  LinkCheck check;
  check.when = text(c, where, "when");
  for (const auto& l : field(c, where, "links", &nlohmann::json::is_array, "an array")) {
    const std::string link = fmt::format("check link {}: ", check.links.size());
    const std::string path = fmt::format("check.links[{}].", check.links.size());
    if (!l.is_object()) throw std::invalid_argument(link + "not an object");
    check.links.push_back(
        {text(l, link, "host"), number(l, path, "achieved_bits_per_s"), number(l, path, "ratio")});
  }
  check.worst_ratio = number(c, "check.", "worst_ratio");
  check.faithful =
      field(c, where, "faithful", &nlohmann::json::is_boolean, "true or false").get<bool>();
  return check;
}

}  // namespace

const ClusterHost* ClusterDescription::find_host(std::string_view name) const {
  for (const auto& host : hosts)
    if (host.name == name) return &host;
  return nullptr;
}

ClusterDescription cluster_from_json(const nlohmann::json& j) {
  const std::string where;
  if (!j.is_object()) throw std::invalid_argument("not a JSON object");
  if (j.contains("version")) {  // cluster.json has one; a record's copy need not
    const int version = whole(j, where, "version");
    if (version != kClusterVersion)
      throw std::invalid_argument(
          fmt::format("version {} is not one this gradsync reads (it reads version {})", version,
                      kClusterVersion));
  }
  ClusterDescription d;
  d.subnet = text(j, where, "subnet");
  d.bridge = text(j, where, "bridge");
  d.interface = text(j, where, "interface");
  d.slots = whole(j, where, "slots");
  d.rate = text(j, where, "rate");
  d.rate_bits_per_s = number(j, where, "rate_bits_per_s");
  d.delay = text(j, where, "delay");
  d.delay_s = number(j, where, "delay_s");
  if (j.contains("mtu")) d.mtu = whole(j, where, "mtu");  // files from before --mtu have none
  if (d.interface.empty()) throw std::invalid_argument("\"interface\" is empty");
  std::set<std::string> names;
  for (const auto& h : field(j, where, "hosts", &nlohmann::json::is_array, "an array")) {
    const std::string at = fmt::format("host {}: ", d.hosts.size());
    if (!h.is_object()) throw std::invalid_argument(at + "not an object");
    ClusterHost host{text(h, at, "name"), text(h, at, "address"),
                     whole(h, fmt::format("hosts[{}].", d.hosts.size()), "slots")};
    if (host.name.empty()) throw std::invalid_argument("a host has an empty name");
    if (!names.insert(host.name).second)
      throw std::invalid_argument("host " + host.name + " is named twice");
    d.hosts.push_back(std::move(host));
  }
  if (d.hosts.empty()) throw std::invalid_argument("\"hosts\" is empty");
  const auto check = j.find("check");
  if (check != j.end() && !check->is_null()) d.check = check_from_json(*check);
  return d;
}

ClusterDescription cluster_from_text(std::string_view text, const std::string& name) {
  const nlohmann::json json = parse_json_document(text, name);
  try {
    return cluster_from_json(json);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(name + ": " + e.what());
  }
}

ClusterDescription read_cluster_file(const std::string& path) {
  return cluster_from_text(read_input_file(path), path);
}

}  // namespace gradsync
