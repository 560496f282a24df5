#include "harness/engine/cluster.h"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

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

std::string text(const nlohmann::json& o, const std::string& where, const char* name) {
  return field(o, where, name, &nlohmann::json::is_string, "a string").get<std::string>();
}
double number(const nlohmann::json& o, const std::string& where, const char* name) {
  return field(o, where, name, &nlohmann::json::is_number, "a number").get<double>();
}
int whole(const nlohmann::json& o, const std::string& where, const char* name) {
  return field(o, where, name, &nlohmann::json::is_number_integer, "a whole number").get<int>();
}

LinkCheck check_from_json(const nlohmann::json& c) {
  if (!c.is_object()) throw std::invalid_argument("\"check\" is neither null nor an object");
  const std::string where = "check: ";
  LinkCheck check;
  check.when = text(c, where, "when");
  for (const auto& l : field(c, where, "links", &nlohmann::json::is_array, "an array")) {
    const std::string link = fmt::format("check link {}: ", check.links.size());
    if (!l.is_object()) throw std::invalid_argument(link + "not an object");
    check.links.push_back(
        {text(l, link, "host"), number(l, link, "achieved_bits_per_s"), number(l, link, "ratio")});
  }
  check.worst_ratio = number(c, where, "worst_ratio");
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
  if (d.slots < 1) throw std::invalid_argument("\"slots\" must be at least 1");
  if (!(d.rate_bits_per_s > 0)) throw std::invalid_argument("\"rate_bits_per_s\" must be positive");
  if (d.delay_s < 0) throw std::invalid_argument("\"delay_s\" must not be negative");
  if (d.mtu < 576) throw std::invalid_argument("\"mtu\" must be at least 576");
  std::set<std::string> names;
  for (const auto& h : field(j, where, "hosts", &nlohmann::json::is_array, "an array")) {
    const std::string at = fmt::format("host {}: ", d.hosts.size());
    if (!h.is_object()) throw std::invalid_argument(at + "not an object");
    ClusterHost host{text(h, at, "name"), text(h, at, "address"), whole(h, at, "slots")};
    if (host.name.empty()) throw std::invalid_argument("a host has an empty name");
    if (host.slots < 1) throw std::invalid_argument("host " + host.name + " has fewer than 1 slot");
    if (!names.insert(host.name).second)
      throw std::invalid_argument("host " + host.name + " is named twice");
    d.hosts.push_back(std::move(host));
  }
  if (d.hosts.empty()) throw std::invalid_argument("\"hosts\" is empty");
  const auto check = j.find("check");
  if (check != j.end() && !check->is_null()) d.check = check_from_json(*check);
  return d;
}

ClusterDescription read_cluster_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream content;
  if (in) content << in.rdbuf();
  if (!in || in.bad()) throw std::invalid_argument(path + ": cannot be read");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(content.str());
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number beyond a double
    const std::string what = e.what();  // "[json.exception.parse_error.101] parse error at ..."
    throw std::invalid_argument(path + ": not valid JSON (" + what.substr(what.find("] ") + 2) +
                                ")");
  }
  try {
    return cluster_from_json(json);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
}

}  // namespace gradsync
