#include "harness/sim/cluster_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include <fstream>
#include <limits>
#include <stdexcept>

#include "harness/sim/json_whole.h"

namespace gradsync::sim {
namespace {

constexpr const char* kSchema = "gradsync.cluster";
constexpr int kVersion = 1;
constexpr const char* kSources[] = {"calibrated", "datasheet", "published", "measured", "assumed"};

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", where, what));
}

Sourced read_sourced(const nlohmann::json& doc, const std::string& key, const std::string& where,
                     bool positive) {
  if (!doc.contains(key)) bad(where, fmt::format("missing \"{}\"", key));
  const auto& v = doc.at(key);
  if (!v.is_object() || !v.contains("value") || !v.at("value").is_number())
    bad(where, fmt::format("\"{}\" must be an object {{\"value\": number, \"source\": ..., "
                           "\"note\": ...}}",
                           key));
  Sourced s{v.at("value").get<double>(), v.value("source", ""), v.value("note", "")};
  if (positive ? !(s.value > 0) : !(s.value >= 0))
    bad(where, fmt::format("\"{}\" must be {} (got {})", key, positive ? "positive" : "at least 0",
                           s.value));
  bool known = false;
  for (const char* k : kSources) known = known || s.source == k;
  if (!known)
    bad(where, fmt::format("\"{}\".source must be one of calibrated, datasheet, published, "
                           "measured, assumed (got \"{}\")",
                           key, s.source));
  return s;
}

// The whole number at `key` (json_whole.h), or `fallback` when there is none.
int whole_or(const nlohmann::json& doc, const char* key, int fallback, const std::string& where) {
  try {
    return whole_number_or(doc, key, fallback);
  } catch (const nlohmann::json::exception&) {
    bad(where, fmt::format("\"{}\" must be a whole number from {} to {}", key,
                           std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  }
}

nlohmann::json sourced_json(const Sourced& s) {
  return {{"value", s.value}, {"source", s.source}, {"note", s.note}};
}

LinkClass read_link(const nlohmann::json& doc, const std::string& key, const std::string& where) {
  if (!doc.contains(key) || !doc.at(key).is_object()) bad(where, fmt::format("missing \"{}\"", key));
  const auto& v = doc.at(key);
  const std::string here = fmt::format("{}: {}", where, key);
  return {v.value("kind", key == "inter" ? "network" : "shm"),
          read_sourced(v, "bandwidth_bits_per_s", here, true),
          read_sourced(v, "latency_s", here, false)};
}

StrategyFit read_fit(const nlohmann::json& v, const std::string& where) {
  StrategyFit f;
  try {
    f.strategy = v.at("strategy").get<std::string>();
    f.compression = v.value("compression", kUncompressed);
    f.link = v.at("link").get<std::string>();
    f.params = {v.at("overhead_s").get<double>(), v.at("alpha_s").get<double>(),
                v.at("beta_s_per_byte").get<double>(), v.at("gamma_s_per_byte").get<double>(),
                v.value("delta_s_per_byte", 0.0)};
    f.gamma_folded = v.value("gamma", "fitted") == "folded into beta";
    f.alpha_folded = v.value("alpha", "fitted") == "folded into beta";
    f.link_bits_per_s = v.value("link_bits_per_s", 0.0);
    f.link_beta_s_per_byte = v.value("link_beta_s_per_byte", 0.0);
    f.link_beta_from = v.value("link_beta_from", std::string());
    f.max_flows = whole_or(v, "max_flows", 1, where);
    // The file's key keeps its first name: "workers_only" is the black box's
    // worker count.
    f.black_box_workers = whole_or(v, "workers_only", 0, where);
    // The keys keep their names: "table" holds times_by_size, "workers" worker_counts.
    if (v.contains("table"))
      for (const auto& row : v.at("table"))
        f.times_by_size.emplace_back(row.at(0).get<double>(), row.at(1).get<double>());
    for (std::size_t i = 1; i < f.times_by_size.size(); ++i)
      if (!(f.times_by_size[i].first > f.times_by_size[i - 1].first))
        throw std::runtime_error("a fit's table must list sizes in increasing order");
    f.points = whole_or(v, "points", 0, where);
    f.worker_counts = v.contains("workers") ? whole_numbers(v.at("workers")) : std::vector<int>{};
    f.sizes = v.value("sizes", std::vector<double>{});
    f.median_abs_error = v.value("median_abs_error", 0.0);
    f.worst_abs_error = v.value("worst_abs_error", 0.0);
    f.worst_point = v.value("worst_point", "");
    f.from = v.value("from", "");
  } catch (const nlohmann::json::exception& e) {
    bad(where, fmt::format("a calibration fit is incomplete ({})", e.what()));
  }
  if (f.link != "intra" && f.link != "inter")
    bad(where, fmt::format("fit of {}: link must be \"intra\" or \"inter\" (got \"{}\")",
                           f.strategy, f.link));
  for (double p : {f.params.overhead_s, f.params.alpha_s, f.params.beta_s_per_byte,
                   f.params.gamma_s_per_byte, f.params.delta_s_per_byte})
    if (!(p >= 0)) bad(where, fmt::format("fit of {}: a negative or non-number constant", f.strategy));
  return f;
}

}  // namespace

CostParams ClusterModel::link_params(const std::string& link) const {
  const LinkClass& c = link == "intra" ? intra : inter;
  return {0, c.latency_s.value + per_message_s.value, 8.0 / c.bandwidth_bits_per_s.value,
          reduce_bytes_per_s.value > 0 ? 1.0 / reduce_bytes_per_s.value : 0.0};
}

const StrategyFit* ClusterModel::find_fit(const std::string& strategy, const std::string& link,
                                          int workers, const std::string& compression) const {
  const StrategyFit *general = nullptr, *below = nullptr, *above = nullptr;
  for (const auto& f : fits) {
    if (f.strategy != strategy || f.link != link || f.compression != compression) continue;
    if (f.black_box_workers == 0) general = &f;
    else if (f.black_box_workers == workers) return &f;
    else if (f.black_box_workers < workers) {
      if (!below || f.black_box_workers > below->black_box_workers) below = &f;
    } else if (!above || f.black_box_workers < above->black_box_workers) {
      above = &f;
    }
  }
  return general ? general : below ? below : above;
}

ClusterModel cluster_model_from_json(const nlohmann::json& doc, const std::string& where) {
  if (!doc.is_object() || doc.value("schema", "") != kSchema)
    bad(where, fmt::format("not a cluster file (\"schema\" must be \"{}\")", kSchema));
  if (const int version = whole_or(doc, "schema_version", 0, where); version != kVersion)
    bad(where, fmt::format("cluster file version {} is not known to this build (knows {})", version,
                           kVersion));
  ClusterModel m;
  m.name = doc.value("name", "");
  m.description = doc.value("description", "");
  m.nodes = whole_or(doc, "nodes", 0, where);
  m.workers_per_node = whole_or(doc, "workers_per_node", 0, where);
  if (m.nodes < 1) bad(where, "\"nodes\" must be a whole number of at least 1");
  if (m.workers_per_node < 1) bad(where, "\"workers_per_node\" must be a whole number of at least 1");
  m.accelerator = doc.value("accelerator", "cpu");
  if (m.accelerator != "cpu" && m.accelerator != "gpu")
    bad(where, "\"accelerator\" must be \"cpu\" or \"gpu\"");
  m.intra = read_link(doc, "intra", where);
  m.inter = read_link(doc, "inter", where);
  if (m.accelerator == "gpu" && m.intra.kind != "pci" && m.intra.kind != "nvlink")
    bad(where, "a gpu cluster's intra.kind must be \"pci\" or \"nvlink\" (NCCL's model needs it)");
  m.per_message_s = read_sourced(doc, "per_message_s", where, false);
  m.reduce_bytes_per_s = read_sourced(doc, "reduce_bytes_per_s", where, true);
  m.server_hosts = doc.contains("server_hosts") ? read_sourced(doc, "server_hosts", where, false)
                                                 : Sourced{0, "assumed", "none described"};
  m.host_cores = doc.contains("host_cores") ? read_sourced(doc, "host_cores", where, false)
                                            : Sourced{0, "assumed", "not described"};
  if (doc.contains("compression")) {
    const auto& formats = doc.at("compression");
    if (!formats.is_object())
      bad(where, "\"compression\" must be an object {\"fp16\": {...}, \"bf16\": {...}}");
    for (const auto& [format, costs] : formats.items()) {
      if (format != "fp16" && format != "bf16")
        bad(where, fmt::format("\"compression\": \"{}\" is not a 16-bit format (fp16, bf16)",
                               format));
      const std::string here = fmt::format("{}: compression.{}", where, format);
      if (!costs.is_object()) bad(here, "must be an object");
      // The key "compression" keeps its name: compression_costs.
      m.compression_costs[format] = {read_sourced(costs, "casts_bytes_per_s", here, true),
                                     read_sourced(costs, "sum_cost_ratio", here, true)};
    }
  }
  if (doc.contains("calibration")) {
    const auto& cal = doc.at("calibration");
    if (!cal.is_object() || !cal.contains("fits") || !cal.at("fits").is_array())
      bad(where, "\"calibration\" must hold an array \"fits\"");
    for (const auto& f : cal.at("fits")) m.fits.push_back(read_fit(f, where));
  }
  if (doc.contains("mechanisms")) {
    const auto& mech = doc.at("mechanisms");
    if (!mech.is_object()) bad(where, "\"mechanisms\" must be an object");
    const std::string here = fmt::format("{}: mechanisms", where);
    std::vector<std::string_view> keys;
    for (const auto& info : kMechanisms) keys.emplace_back(info.key);
    for (const auto& item : mech.items())
      if (const std::string& key = item.key(); std::ranges::find(keys, key) == keys.end())
        bad(here, fmt::format("\"{}\" is not a mechanism ({})", key, fmt::join(keys, ", ")));
    for (const auto& info : kMechanisms)
      if (mech.contains(info.key)) m.mechanisms.*info.field = read_sourced(mech, info.key, here, true);
    if (m.mechanisms.achieved_fraction.value > 1)
      bad(here, "\"achieved_fraction\" is a share of the line rate: at most 1");
  }
  if (doc.contains("validation")) {
    if (!doc.at("validation").is_array()) bad(where, "\"validation\" must be an array");
    for (const auto& v : doc.at("validation")) m.validation.push_back(validation_from_json(v, where));
  }
  return m;
}

ClusterModel read_cluster_model(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read the cluster file", path));
  nlohmann::json doc;
  try {
    in >> doc;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON ({})", path, e.what()));
  }
  return cluster_model_from_json(doc, path);
}

nlohmann::json to_json(const StrategyFit& f) {
  // "table" and "workers" keep their names (times_by_size, worker_counts).
  return {
      {"strategy", f.strategy},
      {"compression", f.compression},
      {"link", f.link},
      {"overhead_s", f.params.overhead_s},
      {"alpha_s", f.params.alpha_s},
      {"beta_s_per_byte", f.params.beta_s_per_byte},
      {"gamma_s_per_byte", f.params.gamma_s_per_byte},
      {"delta_s_per_byte", f.params.delta_s_per_byte},
      {"gamma", f.gamma_folded ? "folded into beta" : "fitted"},
      {"alpha", f.alpha_folded ? "folded into beta" : "fitted"},
      {"effective_bits_per_s", f.params.beta_s_per_byte > 0 ? 8.0 / f.params.beta_s_per_byte : 0.0},
      {"link_bits_per_s", f.link_bits_per_s},
      {"link_beta_s_per_byte", f.link_beta_s_per_byte},
      {"link_beta_from", f.link_beta_from},
      {"max_flows", f.max_flows},
      {"workers_only", f.black_box_workers},
      {"form", f.times_by_size.empty() ? "alpha-beta" : "table"},
      {"table", f.times_by_size},
      {"points", f.points},
      {"workers", f.worker_counts},
      {"sizes", f.sizes},
      {"median_abs_error", f.median_abs_error},
      {"worst_abs_error", f.worst_abs_error},
      {"worst_point", f.worst_point},
      {"from", f.from}};
}

nlohmann::json to_json(const ClusterModel& m) {
  auto link = [](const LinkClass& c) {
    return nlohmann::json{{"kind", c.kind},
                          {"bandwidth_bits_per_s", sourced_json(c.bandwidth_bits_per_s)},
                          {"latency_s", sourced_json(c.latency_s)}};
  };
  nlohmann::json fits = nlohmann::json::array();
  for (const auto& f : m.fits) fits.push_back(to_json(f));
  nlohmann::json mechanisms = nlohmann::json::object();
  for (const auto& info : kMechanisms)
    if ((m.mechanisms.*info.field).value > 0)
      mechanisms[info.key] = sourced_json(m.mechanisms.*info.field);
  nlohmann::json validation = nlohmann::json::array();
  for (const auto& v : m.validation) validation.push_back(to_json(v));
  // The key "compression" keeps its name: compression_costs.
  nlohmann::json compression = nlohmann::json::object();
  for (const auto& [format, costs] : m.compression_costs)
    compression[format] = {{"casts_bytes_per_s", sourced_json(costs.casts_bytes_per_s)},
                           {"sum_cost_ratio", sourced_json(costs.sum_cost_ratio)}};
  nlohmann::json doc = {{"schema", kSchema},
                        {"schema_version", kVersion},
                        {"name", m.name},
                        {"description", m.description},
                        {"nodes", m.nodes},
                        {"workers_per_node", m.workers_per_node},
                        {"accelerator", m.accelerator},
                        {"intra", link(m.intra)},
                        {"inter", link(m.inter)},
                        {"per_message_s", sourced_json(m.per_message_s)},
                        {"reduce_bytes_per_s", sourced_json(m.reduce_bytes_per_s)},
                        {"server_hosts", sourced_json(m.server_hosts)},
                        {"compression", compression},
                        {"calibration", {{"fits", fits}}},
                        {"mechanisms", mechanisms},
                        {"validation", validation}};
  // Written only where described: files without it stay as they were.
  if (m.host_cores.value > 0) doc["host_cores"] = sourced_json(m.host_cores);
  return doc;
}

ClusterModel with_inter_bandwidth(ClusterModel model, double bits_per_s) {
  const double old = model.inter.bandwidth_bits_per_s.value;
  for (auto& f : model.fits)
    if (f.link == "inter") {
      // A beta split into the link's part and the strategy's own (its CPU's
      // per byte: calibrate's link floor) scales only the link's part.
      const double own = f.params.beta_s_per_byte - f.link_beta_s_per_byte;
      f.link_beta_s_per_byte *= old / bits_per_s;
      f.params.beta_s_per_byte = f.link_beta_s_per_byte > 0 ? own + f.link_beta_s_per_byte
                                                             : f.params.beta_s_per_byte * old / bits_per_s;
      f.params.delta_s_per_byte *= old / bits_per_s;
      for (auto& row : f.times_by_size)
        row.second *= old / bits_per_s;  // a black box's times, whole
      f.link_bits_per_s = f.link_bits_per_s > 0 ? f.link_bits_per_s * bits_per_s / old : 0;
    }
  model.inter.bandwidth_bits_per_s = {
      bits_per_s, "assumed",
      fmt::format("set on the command line; the file's {} and every inter fit's beta scaled by "
                  "{:.4g} (per-byte time between nodes taken as the link's; of a fit with a "
                  "link floor, only the floor's part)",
                  bits_text(old), old / bits_per_s)};
  return model;
}

double table_seconds(const std::vector<std::pair<double, double>>& table, double bytes) {
  if (table.empty() || bytes <= 0) return 0;
  if (table.size() == 1 || bytes <= table.front().first)
    return table.front().second * bytes / table.front().first;
  std::size_t hi = 1;
  while (hi + 1 < table.size() && table[hi].first < bytes) ++hi;
  const auto& [x0, y0] = table[hi - 1];
  const auto& [x1, y1] = table[hi];
  return std::max(0.0, y0 + (y1 - y0) * (bytes - x0) / (x1 - x0));
}

std::string bits_text(double bits_per_s) {
  if (bits_per_s >= 1e9) return fmt::format("{:g} Gbit/s", bits_per_s / 1e9);
  if (bits_per_s >= 1e6) return fmt::format("{:g} Mbit/s", bits_per_s / 1e6);
  return fmt::format("{:g} kbit/s", bits_per_s / 1e3);
}

}  // namespace gradsync::sim
