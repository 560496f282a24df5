#include "harness/results/sim_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "harness/engine/input_rules.h"
#include "harness/engine/train_plan.h"
#include "harness/results/strategy_options_json.h"
#include "harness/results/train_runs.h"
#include "harness/sim/json_whole.h"

namespace gradsync {
namespace {


// The numbers of a record that the cost model computes with, and their
// ranges (as a cluster file's, docs/guide/cost-model.md "Ranges"): a record
// edited by hand or cut short is refused naming the key, never divided by.
constexpr NumberRule kRecordRules[] = {
    {"batch_size", true, 1, 1e6, ""},
    {"sequence_length", true, 1, 1e7, ""},  // token models' positions per sample
    {"flops_per_second", false, 0, 1e18, "FLOP/s", true},
    {"emulate_img_per_sec", false, 1e-3, 1e7, "img/s", false, true},  // 0: the profile's
    {"time_scale", false, 1, 1e9, ""},
    {"fusion_mb", false, 0, 1e6, "MiB"},
    {"loader_s_per_image", false, 0, 1e3, "s"},
    {"size_bytes", false, 0, 1.8e19, "B"},
    {"time_us", false, 0, 1e12, "us", true},
    {"rate_bits_per_s", false, 0, 1e13, "bit/s"},  // 0: not on a shaped cluster
    {"timed", true, 1, 1e12, ""},
    {"batches_per_iter", true, 1, 1e9, ""},
};

// `object[key]` under its rule, its path named in an error (the caller adds
// the record's file and line).
double record_number(const nlohmann::json& object, std::string_view key, std::string_view path,
                     std::optional<double> fallback = std::nullopt) {
  const NumberRule& rule = rule_named(kRecordRules, key);
  if (fallback && !object.contains(key)) return *fallback;
  return json_number(object.at(key), rule, "", path);
}

// The record's sync.order; records made before it had one ran in arrival order.
SyncOrder sync_order_of(const nlohmann::json& sync) {
  const std::string name = sync.value("order", std::string("arrival"));
  for (const auto& entry : kSyncOrders)
    if (entry.name == name) return entry.value;
  throw std::runtime_error(fmt::format("sync.order \"{}\" is neither arrival nor forward", name));
}

// The record's optimizer, whose state its memory holds (optimizer_of).
UpdateRule update_rule_of(const nlohmann::json& record) {
  const std::string name = optimizer_of(record);
  for (const auto& entry : kUpdateRules)
    if (entry.name == name) return entry.value;
  throw std::invalid_argument(fmt::format("optimizer \"{}\" is neither sgd nor adamw", name));
}

}  // namespace

WorkerPlacement placement_of(const nlohmann::json& record) {
  const auto hostnames = record.at("context").at("hostnames").get<std::vector<std::string>>();
  const int ranks = int(hostnames.size());
  std::vector<int> workers, servers;
  const auto placement = record.find("placement");
  if (placement != record.end() && placement->is_object()) {
    workers = whole_numbers(placement->at("worker_ranks"));
    servers = whole_numbers(placement->at("server_ranks"));
  } else {  // train records: dedicated servers are the first ranks
    const auto options = strategy_options_from_json(record.at("strategy_options"));
    const StrategyInfo& strategy = find_strategy(record.at("strategy").get<std::string>());
    for (int r = 0; r < ranks; ++r)
      (rank_only_serves(strategy, options, r) ? servers : workers).push_back(r);
  }
  std::map<std::string, int> per_host;
  for (int r : workers) ++per_host[hostnames.at(r)];
  std::set<std::string> server_hosts;
  for (int r : servers)
    if (!per_host.count(hostnames.at(r))) server_hosts.insert(hostnames.at(r));
  WorkerPlacement p;
  p.workers = int(workers.size());
  for (const auto& [host, n] : per_host) p.workers_per_node = std::max(p.workers_per_node, n);
  p.server_hosts = int(server_hosts.size());
  return p;
}

CalibrationInput calibration_input(std::span<const StoredRecord> records) {
  CalibrationInput in;
  for (const auto& record : records) {
    const auto& v = record.value;
    if (v.value("kind", "") != "collectives" || v.value("simulated", false)) continue;
    try {
      const StrategyInfo& strategy = find_strategy(v.at("strategy").get<std::string>());
      const auto options = strategy_options_from_json(v.at("strategy_options"));
      const auto placement = placement_of(v);
      double rate = 0;
      if (v.contains("cluster") && v.at("cluster").is_object())
        rate = record_number(v.at("cluster"), "rate_bits_per_s", "cluster.rate_bits_per_s", 0.0);
      for (const auto& row : v.at("rows")) {
        sim::CalibrationPoint p;
        p.strategy = &strategy;
        p.options = options;
        p.placement = placement;
        p.bytes = record_number(row, "size_bytes", "rows[].size_bytes");
        p.time_s = record_number(row, "time_us", "rows[].time_us") * 1e-6;
        p.link_bits_per_s = rate;
        p.origin = record.origin;
        in.points.push_back(p);
        if (row.contains("wire") && row.at("wire").is_object() && placement.workers > 1 &&
            p.bytes > 0 && strategy.cost.counts &&
            sim::uncosted_reason(strategy, options).empty()) {
          const auto& wire = row.at("wire");
          const double timed = record_number(wire, "timed", "rows[].wire.timed");
          double busiest = 0;
          for (const auto& host : wire.at("hosts")) {
            if (host.at("link_tx_bytes").is_null()) continue;
            busiest = std::max({busiest, host.at("link_tx_bytes").get<double>() / timed,
                                host.at("link_rx_bytes").get<double>() / timed});
          }
          const double counted =
              sim::strategy_counts(strategy, options, p.bytes, placement).spanning.bytes;
          if (counted > 0)
            in.wire_checks.push_back({std::string(strategy.name), record.origin, placement.workers,
                                      p.bytes, busiest, counted});
        }
      }
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}: cannot calibrate from this collectives record ({})",
                                           record.origin, without_json_tag(e.what())));
    }
  }
  return in;
}

sim::SimulationCase simulation_case(const StoredRecord& record) {
  const auto& v = record.value;
  try {
    if (const std::string external = external_of(v); !external.empty())
      throw std::invalid_argument(fmt::format(
          "an external reference ({}, strategy {}): the cost model simulates gradsync's own "
          "strategies only",
          external, v.at("strategy").get<std::string>()));
    sim::SimulationCase c;
    c.model = v.at("model").get<std::string>();
    c.batch = int(record_number(v, "batch_size", "batch_size"));
    if (v.contains("sequence_length"))
      c.sequence_length = int(record_number(v, "sequence_length", "sequence_length"));
    c.optimizer = update_rule_of(v);
    const std::string compute = v.at("compute").get<std::string>();
    if (compute != "emulated")
      throw std::invalid_argument(fmt::format(
          "compute \"{}\": only emulated runs have a FLOP-based compute to simulate; give the "
          "measured compute through the `none` run at one worker",
          compute));
    const auto& profile = v.at("device_profile");
    c.device_profile = profile.at("name").get<std::string>();
    c.flops_per_second =
        record_number(profile, "flops_per_second", "device_profile.flops_per_second");
    c.emulate_img_per_sec =
        record_number(profile, "emulate_img_per_sec", "device_profile.emulate_img_per_sec", 0.0);
    c.time_scale = record_number(v, "time_scale", "time_scale", 1.0);
    c.strategy = &find_strategy(v.at("strategy").get<std::string>());
    c.options = strategy_options_from_json(v.at("strategy_options"));
    c.placement = placement_of(v);
    c.fusion_mb = record_number(v.at("sync"), "fusion_mb", "sync.fusion_mb");
    c.overlap = v.at("sync").at("overlap").get<bool>();
    c.order = sync_order_of(v.at("sync"));
    c.steps_per_iteration =
        static_cast<int>(record_number(v.value("schedule", nlohmann::json::object()),
                                       "batches_per_iter", "schedule.batches_per_iter", 10.0));
    // The input stage as the run had it; jpeg's cost is the loader's own
    // measured time per image (the caller may put a one-worker run's instead).
    c.input.spec = input_of(v);
    if (c.input.spec.kind == InputKind::jpeg)
      c.input.image_s =
          record_number(v.at("input"), "loader_s_per_image", "input.loader_s_per_image");
    return c;
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: cannot simulate this train record ({})",
                                         record.origin, without_json_tag(e.what())));
  }
}

}  // namespace gradsync
