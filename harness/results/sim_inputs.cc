#include "harness/results/sim_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "harness/results/strategy_options_json.h"
#include "harness/results/train_runs.h"
#include "harness/sim/json_whole.h"

namespace gradsync {

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
        rate = v.at("cluster").value("rate_bits_per_s", 0.0);
      for (const auto& row : v.at("rows")) {
        sim::CalibrationPoint p;
        p.strategy = &strategy;
        p.options = options;
        p.placement = placement;
        p.bytes = row.at("size_bytes").get<double>();
        p.time_s = row.at("time_us").get<double>() * 1e-6;
        p.link_bits_per_s = rate;
        p.origin = record.origin;
        in.points.push_back(p);
        if (row.contains("wire") && row.at("wire").is_object() && placement.workers > 1 &&
            p.bytes > 0 && strategy.cost.counts && sim::uncosted_reason(strategy, options).empty()) {
          const auto& wire = row.at("wire");
          const double timed = wire.at("timed").get<double>();
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
    c.batch = whole_number(v.at("batch_size"));
    const std::string compute = v.at("compute").get<std::string>();
    if (compute != "emulated")
      throw std::invalid_argument(fmt::format(
          "compute \"{}\": only emulated runs have a FLOP-based compute to simulate; give the "
          "measured compute through the `none` run at one worker",
          compute));
    const auto& profile = v.at("device_profile");
    c.device_profile = profile.at("name").get<std::string>();
    c.flops_per_second = profile.at("flops_per_second").get<double>();
    c.emulate_img_per_sec = profile.value("emulate_img_per_sec", 0.0);
    c.time_scale = v.value("time_scale", 1.0);
    c.strategy = &find_strategy(v.at("strategy").get<std::string>());
    c.options = strategy_options_from_json(v.at("strategy_options"));
    c.placement = placement_of(v);
    c.fusion_mb = v.at("sync").at("fusion_mb").get<double>();
    c.overlap = v.at("sync").at("overlap").get<bool>();
    // The input stage as the run had it; jpeg's cost is the loader's own
    // measured time per image (the caller may put a one-worker run's instead).
    c.input.spec = input_of(v);
    if (c.input.spec.kind == InputKind::jpeg)
      c.input.image_s = v.at("input").at("loader_s_per_image").get<double>();
    return c;
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: cannot simulate this train record ({})",
                                         record.origin, without_json_tag(e.what())));
  }
}

}  // namespace gradsync
