#include "harness/sim/cluster_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "harness/engine/input_rules.h"

namespace gradsync::sim {
namespace {

constexpr const char* kSchema = "gradsync.cluster";
constexpr int kVersion = 1;
constexpr const char* kSources[] = {"calibrated", "datasheet", "published", "measured", "assumed"};

// Every number of a cluster file, by its key, and the range that makes
// physical sense for it (docs/guide/cost-model.md, "Ranges", lists the same
// table): a link from 1 kbit/s to 10 Tbit/s, a latency up to 10 s, a rate of
// bytes from 1 kB/s to 1 PB/s. A {value, source, note} field's rule is its
// value's.
constexpr NumberRule kClusterRules[] = {
    {"nodes", true, 1, 1e6, ""},
    {"workers_per_node", true, 1, 1024, ""},
    {"bandwidth_bits_per_s", false, 1e3, 1e13, "bit/s"},
    {"latency_s", false, 0, 10, "s"},
    {"per_message_s", false, 0, 10, "s"},
    {"reduce_bytes_per_s", false, 1e3, 1e15, "B/s"},
    {"server_hosts", true, 0, 1e6, ""},
    {"host_cores", true, 0, 1e5, ""},
    {"casts_bytes_per_s", false, 1e3, 1e15, "B/s"},
    {"sum_cost_ratio", false, 0, 1000, "", true},
    {"achieved_fraction", false, 0, 1, "", true},
    {"framework_cycle_s", false, 0, 10, "s", true},
    {"staging_bytes_per_s", false, 1e3, 1e15, "B/s"},
    // A calibration fit's constants and what it was fitted from.
    {"overhead_s", false, 0, 1e3, "s"},
    {"alpha_s", false, 0, 10, "s"},
    {"beta_s_per_byte", false, 0, 1, "s/B"},
    {"gamma_s_per_byte", false, 0, 1, "s/B"},
    {"delta_s_per_byte", false, 0, 1, "s/B"},
    {"link_bits_per_s", false, 1e3, 1e13, "bit/s", false, true},  // 0: unknown
    {"link_beta_s_per_byte", false, 0, 1, "s/B"},
    {"max_flows", true, 1, 1e6, ""},
    {"workers_only", true, 0, 1e7, ""},
    {"table_bytes", false, 0, 1.8e19, "B", true},  // a black box's sizes (table[i][0])
    {"table_s", false, 0, 1e6, "s"},               // and times (table[i][1])
    {"points", true, 0, 1e9, ""},
    {"workers", true, 1, 1e7, ""},
    {"sizes", false, 0, 1.8e19, "B"},
    {"median_abs_error", false, 0, 1e6, ""},
    {"worst_abs_error", false, 0, 1e6, ""},
};

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", where, what));
}

// The number at `path` (e.g. "inter.latency_s.value") under the rule of
// `key`, or std::runtime_error "WHERE: PATH: RULE".
double number_at(const nlohmann::json& v, std::string_view key, const std::string& where,
                 const std::string& path) {
  try {
    return json_number(v, rule_named(kClusterRules, key), where, path);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

// `doc[key]`, a number, at "PREFIX.key"; `fallback` when the key is absent
// and a fallback is given.
double number_of(const nlohmann::json& doc, std::string_view key, const std::string& where,
                 const std::string& prefix, std::optional<double> fallback = std::nullopt) {
  const std::string path = prefix.empty() ? std::string(key) : fmt::format("{}.{}", prefix, key);
  const auto it = doc.find(key);
  if (it == doc.end()) {
    if (fallback) return *fallback;
    bad(where, fmt::format("missing \"{}\"", path));
  }
  return number_at(*it, key, where, path);
}

// A {value, source, note} field at "PREFIX.key".
Sourced read_sourced(const nlohmann::json& doc, const std::string& key, const std::string& where,
                     const std::string& prefix = "") {
  const std::string path = prefix.empty() ? key : fmt::format("{}.{}", prefix, key);
  if (!doc.contains(key)) bad(where, fmt::format("missing \"{}\"", path));
  const auto& v = doc.at(key);
  if (!v.is_object() || !v.contains("value"))
    bad(where, fmt::format("{} must be an object {{\"value\": number, \"source\": ..., "
                           "\"note\": ...}}",
                           path));
  Sourced s{number_at(v.at("value"), key, where, path + ".value"), v.value("source", ""),
            v.value("note", "")};
  bool known = false;
  for (const char* k : kSources) known = known || s.source == k;
  if (!known)
    bad(where, fmt::format("{}.source must be one of calibrated, datasheet, published, "
                           "measured, assumed (got \"{}\")",
                           path, s.source));
  return s;
}

nlohmann::json sourced_json(const Sourced& s) {
  return {{"value", s.value}, {"source", s.source}, {"note", s.note}};
}

LinkClass read_link(const nlohmann::json& doc, const std::string& key, const std::string& where) {
  if (!doc.contains(key) || !doc.at(key).is_object())
    bad(where, fmt::format("missing \"{}\"", key));
  const auto& v = doc.at(key);
  return {v.value("kind", key == "inter" ? "network" : "shm"),
          read_sourced(v, "bandwidth_bits_per_s", where, key),
          read_sourced(v, "latency_s", where, key)};
}

// A fit's numbers, each under its rule at "calibration.fits[i].key".
void read_fit_numbers(const nlohmann::json& v, StrategyFit& f, const std::string& where,
                      const std::string& at) {
  f.params = {number_of(v, "overhead_s", where, at), number_of(v, "alpha_s", where, at),
              number_of(v, "beta_s_per_byte", where, at),
              number_of(v, "gamma_s_per_byte", where, at),
              number_of(v, "delta_s_per_byte", where, at, 0.0)};
  f.link_bits_per_s = number_of(v, "link_bits_per_s", where, at, 0.0);
  f.link_beta_s_per_byte = number_of(v, "link_beta_s_per_byte", where, at, 0.0);
  f.max_flows = int(number_of(v, "max_flows", where, at, 1.0));
  // The file's key keeps its first name: "workers_only" is the black box's
  // worker count.
  f.black_box_workers = int(number_of(v, "workers_only", where, at, 0.0));
  // The keys keep their names: "table" holds times_by_size, "workers" worker_counts.
  if (v.contains("table")) {
    if (!v.at("table").is_array()) bad(where, fmt::format("{}.table must be an array", at));
    for (const auto& row : v.at("table")) {
      const std::string here = fmt::format("{}.table[{}]", at, f.times_by_size.size());
      if (!row.is_array() || row.size() != 2)
        bad(where, fmt::format("{} must be [bytes, seconds]", here));
      f.times_by_size.emplace_back(number_at(row.at(0), "table_bytes", where, here + "[0]"),
                                   number_at(row.at(1), "table_s", where, here + "[1]"));
    }
  }
  for (std::size_t i = 1; i < f.times_by_size.size(); ++i)
    if (!(f.times_by_size[i].first > f.times_by_size[i - 1].first))
      bad(where, fmt::format("{}.table must list sizes in increasing order", at));
  f.points = int(number_of(v, "points", where, at, 0.0));
  for (const char* key : {"workers", "sizes"})
    if (v.contains(key)) {
      if (!v.at(key).is_array()) bad(where, fmt::format("{}.{} must be an array", at, key));
      for (std::size_t i = 0; i < v.at(key).size(); ++i) {
        const double x = number_at(v.at(key)[i], key, where, fmt::format("{}.{}[{}]", at, key, i));
        if (key == std::string_view("workers"))
          f.worker_counts.push_back(int(x));
        else
          f.sizes.push_back(x);
      }
    }
  f.median_abs_error = number_of(v, "median_abs_error", where, at, 0.0);
  f.worst_abs_error = number_of(v, "worst_abs_error", where, at, 0.0);
}

StrategyFit read_fit(const nlohmann::json& v, const std::string& where, const std::string& at) {
  StrategyFit f;
  if (!v.is_object()) bad(where, fmt::format("{} must be an object", at));
  try {
    f.strategy = v.at("strategy").get<std::string>();
    f.compression = v.value("compression", kUncompressed);
    f.link = v.at("link").get<std::string>();
    f.gamma_folded = v.value("gamma", "fitted") == "folded into beta";
    f.alpha_folded = v.value("alpha", "fitted") == "folded into beta";
    f.link_beta_from = v.value("link_beta_from", std::string());
    f.worst_point = v.value("worst_point", "");
    f.from = v.value("from", "");
  } catch (const nlohmann::json::exception& e) {
    bad(where, fmt::format("{}: a calibration fit is incomplete ({})", at, e.what()));
  }
  if (f.link != "intra" && f.link != "inter")
    bad(where, fmt::format("{}.link: must be \"intra\" or \"inter\" (got \"{}\")", at, f.link));
  read_fit_numbers(v, f, where, at);
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
    if (f.black_box_workers == 0)
      general = &f;
    else if (f.black_box_workers == workers)
      return &f;
    else if (f.black_box_workers < workers) {
      if (!below || f.black_box_workers > below->black_box_workers) below = &f;
    } else if (!above || f.black_box_workers < above->black_box_workers) {
      above = &f;
    }
  }
  return general ? general : below ? below : above;
}

namespace {

void read_compression(const nlohmann::json& doc, ClusterModel& m, const std::string& where) {
  const auto& formats = doc.at("compression");
  if (!formats.is_object())
    bad(where, "\"compression\" must be an object {\"fp16\": {...}, \"bf16\": {...}}");
  for (const auto& [format, costs] : formats.items()) {
    if (format != "fp16" && format != "bf16")
      bad(where,
          fmt::format("\"compression\": \"{}\" is not a 16-bit format (fp16, bf16)", format));
    const std::string here = fmt::format("compression.{}", format);
    if (!costs.is_object()) bad(where, here + " must be an object");
    // The key "compression" keeps its name: compression_costs.
    m.compression_costs[format] = {read_sourced(costs, "casts_bytes_per_s", where, here),
                                   read_sourced(costs, "sum_cost_ratio", where, here)};
  }
}

void read_mechanisms(const nlohmann::json& doc, ClusterModel& m, const std::string& where) {
  const auto& mech = doc.at("mechanisms");
  if (!mech.is_object()) bad(where, "\"mechanisms\" must be an object");
  std::vector<std::string_view> keys;
  for (const auto& info : kMechanisms) keys.emplace_back(info.key);
  for (const auto& item : mech.items())
    if (const std::string& key = item.key(); std::ranges::find(keys, key) == keys.end())
      bad(where,
          fmt::format("mechanisms: \"{}\" is not a mechanism ({})", key, fmt::join(keys, ", ")));
  for (const auto& info : kMechanisms)
    if (mech.contains(info.key))
      m.mechanisms.*info.field = read_sourced(mech, info.key, where, "mechanisms");
}

// The optional parts: compression costs, calibration fits, mechanisms and
// the validation band.
void read_optional_parts(const nlohmann::json& doc, ClusterModel& m, const std::string& where) {
  if (doc.contains("compression")) read_compression(doc, m, where);
  if (doc.contains("calibration")) {
    const auto& cal = doc.at("calibration");
    if (!cal.is_object() || !cal.contains("fits") || !cal.at("fits").is_array())
      bad(where, "\"calibration\" must hold an array \"fits\"");
    for (const auto& f : cal.at("fits"))
      m.fits.push_back(read_fit(f, where, fmt::format("calibration.fits[{}]", m.fits.size())));
  }
  if (doc.contains("mechanisms")) read_mechanisms(doc, m, where);
  if (doc.contains("validation")) {
    if (!doc.at("validation").is_array()) bad(where, "\"validation\" must be an array");
    for (const auto& v : doc.at("validation"))
      m.validation.push_back(validation_from_json(v, where));
  }
}

}  // namespace

ClusterModel cluster_model_from_json(const nlohmann::json& doc, const std::string& where) {
  if (!doc.is_object() || doc.value("schema", "") != kSchema)
    bad(where, fmt::format("not a cluster file (\"schema\" must be \"{}\")", kSchema));
  // Compared as JSON: a version of 1e300 is another version, not a number cast to int.
  if (const nlohmann::json version = doc.value("schema_version", nlohmann::json(0));
      version != kVersion)
    bad(where, fmt::format("cluster file version {} is not known to this build (knows {})",
                           version.dump(), kVersion));
  ClusterModel m;
  m.name = doc.value("name", "");
  m.description = doc.value("description", "");
  m.nodes = int(number_of(doc, "nodes", where, ""));
  m.workers_per_node = int(number_of(doc, "workers_per_node", where, ""));
  m.accelerator = doc.value("accelerator", "cpu");
  if (m.accelerator != "cpu" && m.accelerator != "gpu")
    bad(where, "\"accelerator\" must be \"cpu\" or \"gpu\"");
  m.intra = read_link(doc, "intra", where);
  m.inter = read_link(doc, "inter", where);
  if (m.accelerator == "gpu" && m.intra.kind != "pci" && m.intra.kind != "nvlink")
    bad(where, "a gpu cluster's intra.kind must be \"pci\" or \"nvlink\" (NCCL's model needs it)");
  m.per_message_s = read_sourced(doc, "per_message_s", where);
  m.reduce_bytes_per_s = read_sourced(doc, "reduce_bytes_per_s", where);
  m.server_hosts = doc.contains("server_hosts") ? read_sourced(doc, "server_hosts", where)
                                                : Sourced{0, "assumed", "none described"};
  m.host_cores = doc.contains("host_cores") ? read_sourced(doc, "host_cores", where)
                                            : Sourced{0, "assumed", "not described"};
  read_optional_parts(doc, m, where);
  return m;
}

ClusterModel cluster_model_from_text(std::string_view text, const std::string& name) {
  try {
    return cluster_model_from_json(parse_json_document(text, name), name);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

ClusterModel read_cluster_model(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const std::invalid_argument&) {
    throw std::runtime_error(fmt::format("{}: cannot read the cluster file", path));
  }
  return cluster_model_from_text(text, path);
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
      f.params.beta_s_per_byte = f.link_beta_s_per_byte > 0
                                     ? own + f.link_beta_s_per_byte
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
