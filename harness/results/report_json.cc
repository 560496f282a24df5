#include "harness/results/report_json.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "harness/results/cluster_record.h"
#include "harness/results/collectives_report.h"
#include "harness/results/efficiency.h"
#include "harness/results/record_fields.h"
#include "harness/results/train_runs.h"
#include "harness/results/wire_record.h"
#include "strategies/registry.h"

namespace gradsync {

StrategyNames::StrategyNames() {
  for (const auto& s : known_strategies_json()) known_.insert(s.at("name").get<std::string>());
}

void StrategyNames::add(const nlohmann::json& record) {
  error_.guard([&] {
    const auto it = record.find("strategy");
    if (it == record.end() || !it->is_string()) return;
    // Train runs go by their label (a strategy's own, e.g. asynchronous modes apart).
    const bool train = record.value("kind", "") == "train";
    const std::string name = train ? strategy_label(record) : it->get<std::string>();
    if (known_.count(name)) return;
    const auto external = record.find("external");
    unknown_[name] |= train && external != record.end() && external->is_string();
  });
}

nlohmann::json StrategyNames::json() const {
  error_.rethrow();
  nlohmann::json out = known_strategies_json();
  // An external reference (another framework's runs, e.g. PyTorch DDP) has
  // the role "external": drawn beside the strategies, labelled as not gradsync's.
  for (const auto& [name, external] : unknown_)
    out.push_back({{"name", name},
                   {"index", out.size()},
                   {"role", external ? "external" : "synchronizer"},
                   {"in_table", false}});
  return out;
}

namespace {

// Where and when: the record's hosts and timestamp, for figure titles.
void put_context(nlohmann::json& row, const StoredRecord& record) {
  row["origin"] = record.origin;
  const auto context = record.value.find("context");
  nlohmann::json hosts = nlohmann::json::array(), timestamp;
  if (context != record.value.end() && context->is_object()) {
    const auto h = context->find("hosts");
    if (h != context->end() && h->is_array())
      for (const auto& host : *h)
        if (host.is_string()) hosts.push_back(host);
    const auto t = context->find("timestamp");
    if (t != context->end() && t->is_string()) timestamp = *t;
  }
  row["hosts"] = hosts;
  row["timestamp"] = timestamp;
}

// How many of the run's workers shared a node: a projection's placement, else
// the workers over the hosts its context names (all on one when it names none).
int workers_per_node(const nlohmann::json& record, int workers, std::size_t hosts) {
  const auto sim = record.find("simulation");
  if (sim != record.end() && sim->is_object())
    if (const auto p = sim->find("placement"); p != sim->end() && p->is_object())
      return std::min(workers, p->value("workers_per_node", workers));
  return std::max(1, workers / std::max<int>(1, static_cast<int>(hosts)));
}

// The record's cluster object with its label, or null off a cluster.
void put_cluster(nlohmann::json& row, const nlohmann::json& record) {
  const auto cluster = record.find("cluster");
  row["cluster"] = nullptr;
  if (cluster == record.end() || cluster->is_null()) return;
  row["cluster"] = *cluster;
  row["cluster"]["label"] = cluster_label(cluster_from_json(*cluster), time_scale_of(record));
}

// An object's wire truth, checked, or null.
nlohmann::json wire_of(const nlohmann::json& object) {
  const auto wire = object.find("wire");
  return wire == object.end() || wire->is_null() ? nlohmann::json()
                                                 : to_json(wire_from_json(*wire));
}

// The device profile emulated compute ran on, by name: "forced" when a
// single-worker rate (--emulate-img-per-sec) stood in for the profile, as
// `simulate` names it, since the record then still names the default
// profile, which played no part; null without emulated compute.
nlohmann::json device_profile_name(const nlohmann::json& record) {
  const auto profile = record.find("device_profile");
  if (profile == record.end() || !profile->is_object() || !profile->contains("name") ||
      !(*profile)["name"].is_string())
    return nullptr;
  if (profile->value("emulate_img_per_sec", 0.0) > 0) return "forced";
  return (*profile)["name"];
}

nlohmann::json train_row(const TrainRun& run, const TrainRunIndex& own,
                         const TrainRunIndex& other) {
  const TrainRun* baseline = baseline_run(own, run);
  const char* side = run.simulated ? "simulated" : "measured";
  if (!baseline) {
    baseline = baseline_run(other, run);
    side = run.simulated ? "measured" : "simulated";
  }
  const auto efficiency = scaling_efficiency(run, baseline);
  const auto& v = run.record->value;
  nlohmann::json row = {
      {"model", run.workload.model},
      {"sequence_length", run.workload.sequence_length},
      {"memory_bytes", run.memory_bytes ? nlohmann::json(*run.memory_bytes) : nlohmann::json()},
      {"compute", run.workload.compute},
      {"batch", run.workload.batch},
      {"strategy", run.strategy},
      {"workers", run.workers},
      {"simulated", run.simulated},
      {"correct", v.at("correct")},
      {"failed", run.failed},
      {"setup", run.workload.setup},
      {"time_scale", run.time_scale},
      {"img_sec",
       {{"mean", run.represented_total_img_sec()}, {"conf", run.represented_total_img_sec_conf()}}},
      {"measured_img_sec", {{"mean", run.total_img_sec()}, {"conf", run.total_img_sec_conf()}}},
      {"exposed_comm_share", run.exposed_comm_share},
      {"external", run.external.empty() ? nlohmann::json() : nlohmann::json(run.external)}};
  row["efficiency"] = efficiency
                          ? nlohmann::json{{"value", efficiency->value}, {"conf", efficiency->conf}}
                          : nlohmann::json();
  row["baseline"] = efficiency ? nlohmann::json(side) : nlohmann::json();
  // A projection's band (the cluster's validation, harness/sim/validation.h):
  // factors on its throughput and efficiency, and whether it lies beyond
  // every validated worker count.
  row["band"] = nullptr;
  if (run.simulated)
    if (const auto sim = v.find("simulation"); sim != v.end() && sim->is_object())
      if (const auto band = sim->find("band"); band != sim->end() && band->is_object())
        row["band"] = {{"low", band->value("low", 1.0)},
                       {"high", band->value("high", 1.0)},
                       {"beyond_validation", band->value("beyond_validation", false)}};
  row["breakdown"] = run.breakdown
                         ? nlohmann::json{{"compute_s", run.breakdown->compute_s},
                                          {"allreduce_s", run.breakdown->allreduce_s},
                                          {"exposed_comm_s", run.breakdown->exposed_comm_s},
                                          {"step_mean_s", run.breakdown->step_mean_s}}
                         : nlohmann::json();
  if (run.breakdown && run.breakdown->input_wait_s)
    row["breakdown"]["input_wait_s"] = *run.breakdown->input_wait_s;
  row["device_profile"] = device_profile_name(v);
  put_context(row, *run.record);
  put_cluster(row, v);  // read_train_run checked it
  // The key keeps its name: "input" holds the stage's label.
  row["input"] = run.input_label.empty() ? nlohmann::json() : nlohmann::json(run.input_label);
  row["workers_per_node"] = workers_per_node(v, run.workers, row["hosts"].size());
  row["wire"] = read_fields(*run.record, "train", wire_of);
  return row;
}

nlohmann::json train_json(std::span<const TrainRun> measured, std::span<const TrainRun> simulated) {
  nlohmann::json out = nlohmann::json::array();
  const TrainRunIndex measured_runs(measured), simulated_runs(simulated);
  for (const auto& run : measured) out.push_back(train_row(run, measured_runs, simulated_runs));
  for (const auto& run : simulated) out.push_back(train_row(run, simulated_runs, measured_runs));
  return out;
}

// One size's row of a collectives entry.
nlohmann::json size_row(const StoredRecord& record, const CollectivesRun& run, std::size_t i) {
  const SizeResult& r = run.rows[i];
  nlohmann::json row = {{"size_bytes", r.size_bytes},
                        {"count", r.count},
                        {"time_us", r.time_us},
                        {"algbw_gbps", r.algbw_gbps},
                        {"busbw_gbps", r.busbw_gbps},
                        {"wrong", nullptr},
                        {"failed", run.failed || r.wrong_elements.value_or(0) > 0}};
  if (r.wrong_elements) row["wrong"] = *r.wrong_elements;  // the key keeps its name
  row["wire"] = read_fields(record, "collectives",
                            [&](const nlohmann::json& v) { return wire_of(v.at("rows").at(i)); });
  put_context(row, record);
  return row;
}

}  // namespace

void CollectivesJson::add(const StoredRecord& record, const CollectivesRun& run) {
  error_.guard([&] {
    const Column column{run.strategy, run.workers, run.simulated, run.setup};
    if (!rows_.count(column)) order_.push_back(column);
    put_cluster(clusters_[column], record.value);
    auto& by_size = rows_[column];
    for (std::size_t i = 0; i < run.rows.size(); ++i)
      by_size[run.rows[i].size_bytes] = size_row(record, run, i);
  });
}

nlohmann::json CollectivesJson::json() const {
  error_.rethrow();
  nlohmann::json out = nlohmann::json::array();
  for (const auto& column : order_) {
    nlohmann::json entry = {{"strategy", std::get<0>(column)},
                            {"workers", std::get<1>(column)},
                            {"simulated", std::get<2>(column)},
                            {"setup", std::get<3>(column)},
                            {"cluster", clusters_.at(column)["cluster"]},
                            {"rows", nlohmann::json::array()}};
    for (const auto& [size, row] : rows_.at(column)) entry["rows"].push_back(row);
    out.push_back(std::move(entry));
  }
  return out;
}

nlohmann::json known_strategies_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& info : strategy_table())
    out.push_back({{"name", info.name},
                   {"index", out.size()},
                   {"role", to_string(info.role)},
                   {"in_table", true}});
  return out;
}

nlohmann::json report_json(const StrategyNames& strategies, const TrainSides& train,
                           const CollectivesJson& collectives) {
  return {{"schema", kReportSchema},
          {"schema_version", kReportSchemaVersion},
          {"strategies", strategies.json()},
          {"train", train_json(train.measured(), train.simulated())},
          {"collectives", collectives.json()}};
}

nlohmann::json report_json(std::span<const StoredRecord> records) {
  StrategyNames strategies;
  TrainSides train;
  CollectivesJson collectives;
  for (const auto& record : records) {
    strategies.add(record.value);
    train.add(record);
    if (record.value.value("kind", "") != "collectives") continue;
    try {
      collectives.add(record, read_collectives_run(record));
    } catch (const std::runtime_error&) {
      collectives.fail(std::current_exception());
    }
  }
  return report_json(strategies, train, collectives);
}

}  // namespace gradsync
