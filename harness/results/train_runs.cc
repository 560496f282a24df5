#include "harness/results/train_runs.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/engine/synchronizer.h"
#include "harness/results/cluster_record.h"
#include "harness/results/input_text.h"
#include "harness/results/record_fields.h"
#include "harness/results/strategy_options_json.h"
#include "harness/results/train_summary.h"
#include "harness/sim/json_whole.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

std::optional<StepBreakdown> breakdown_of(const nlohmann::json& record) {
  const nlohmann::json& results = record.at("results");
  auto number = [&](const char* name) -> std::optional<double> {
    const auto it = results.find(name);
    if (it == results.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
  };
  const auto compute = number("compute_s"), allreduce = number("allreduce_s");
  const auto exposed = number("exposed_comm_s"), step = number("step_mean_s");
  if (!compute || !allreduce || !exposed || !step) return std::nullopt;
  StepBreakdown breakdown{*compute, *allreduce, *exposed, *step};
  if (const auto input = record.find("input"); input != record.end() && input->is_object())
    breakdown.input_wait_s = input->at("wait_s").get<double>();
  return breakdown;
}

}  // namespace

// Runs at another fusion threshold than the default, or that searched for
// one (--fusion-mb auto), are other experiments: " fusion 16M", " no fusion",
// " fusion auto"; nothing for the default, for records without "sync", and
// for the baseline, which sends no buckets (its runs are one experiment
// whatever the threshold, and efficiency finds it by its name); nor for an
// external reference, whose buckets are its framework's own (DDP's 25 MiB).
std::string fusion_suffix(const nlohmann::json& sync) {
  if (sync.contains("fusion_search")) return " fusion auto";
  const auto mb = sync.find("fusion_mb");
  if (mb == sync.end() || !mb->is_number() || mb->get<double>() == SyncOptions{}.fusion_mb)
    return "";
  return mb->get<double>() == 0 ? " no fusion" : fmt::format(" fusion {:.4g}M", mb->get<double>());
}

// Runs in another order than arrival (--sync-order forward) are another
// experiment as well: " forward order" after the fusion.
std::string sync_suffix(const nlohmann::json& record, const StrategyInfo* entry) {
  if (entry && entry->role == StrategyRole::baseline) return "";
  if (!external_of(record).empty()) return "";
  const auto sync = record.find("sync");
  if (sync == record.end() || !sync->is_object()) return "";
  const auto order = sync->find("order");
  const bool arrival = order == sync->end() || !order->is_string() || *order == "arrival";
  return fusion_suffix(*sync) +
         (arrival ? "" : fmt::format(" {} order", order->get<std::string>()));
}

std::string strategy_label(const nlohmann::json& record) {
  const std::string name = record.at("strategy").get<std::string>();
  const StrategyInfo* entry = strategy_named(name);
  const std::string fusion = sync_suffix(record, entry);
  const auto options = record.find("strategy_options");
  if (options == record.end() || !options->is_object()) return name + fusion;
  if (!entry) return name + fusion;  // a strategy this build does not have: its name alone
  try {
    return strategy_label(*entry, strategy_options_from_json(*options)) + fusion;
  } catch (const std::invalid_argument&) {
    return name + fusion;  // options this build cannot read: the name alone
  }
}

std::optional<double> fusion_chosen_mb(const nlohmann::json& record) {
  const auto sync = record.find("sync");
  if (sync == record.end() || !sync->is_object() || !sync->contains("fusion_search")) return {};
  const nlohmann::json& search = sync->at("fusion_search");
  const auto mb = sync->find("fusion_mb");
  if (!search.is_object() || !search.contains("candidates") || search["candidates"].empty() ||
      mb == sync->end() || !mb->is_number())
    return std::nullopt;  // nothing was searched (nothing moved): the threshold as it was
  return mb->get<double>();
}

std::string external_of(const nlohmann::json& record) {
  const auto it = record.find("external");
  return it == record.end() || it->is_null() ? std::string() : it->get<std::string>();
}

StoredRecord report_fields(const StoredRecord& record) {
  const nlohmann::json& v = record.value;
  StoredRecord kept{record.origin, nlohmann::json::object()};
  for (const char* key : {"correct", "context", "cluster", "time_scale", "device_profile", "wire"})
    if (const auto it = v.find(key); it != v.end()) kept.value[key] = *it;
  if (const auto sim = v.find("simulation"); sim != v.end() && sim->is_object()) {
    kept.value["simulation"] = nlohmann::json::object();
    for (const char* key : {"band", "placement"})
      if (const auto it = sim->find(key); it != sim->end()) kept.value["simulation"][key] = *it;
  } else if (sim != v.end()) {
    kept.value["simulation"] = *sim;
  }
  return kept;
}

TrainRun read_train_run(const StoredRecord& record) {
  return read_fields(record, "train", [&](const nlohmann::json& v) {
    TrainRun run;
    run.record = std::make_shared<const StoredRecord>(report_fields(record));
    run.workload = workload_of(v);
    run.strategy = strategy_label(v);
    run.fusion_chosen_mb = fusion_chosen_mb(v);
    const auto& r = v.at("results");
    run.workers = whole_number(r.at("workers"));
    run.img_sec_mean = r.at("img_sec_mean").get<double>();
    run.img_sec_conf = r.at("img_sec_conf").get<double>();
    run.time_scale = time_scale_of(v);
    run.exposed_comm_share = r.at("exposed_comm_share").get<double>();
    run.failed = v.at("correct").is_boolean() && !v.at("correct").get<bool>();
    run.simulated = v.value("simulated", false);
    run.external = external_of(v);
    run.input_label = input_label(input_of(v));
    run.breakdown = breakdown_of(v);
    run.time_to_target = time_to_target_from_json(r.value("time_to_target", nlohmann::json()));
    if (const auto memory = v.find("memory"); memory != v.end() && memory->is_object())
      run.memory_bytes = double(whole_number<std::uint64_t>(memory->at("total_bytes")));
    return run;
  });
}

std::optional<TrainRun> TrainSides::add(const StoredRecord& record) {
  if (record.value.value("kind", "") != "train") return std::nullopt;
  std::optional<TrainRun> run;
  error_.guard([&] { run = read_train_run(record); });
  if (!run) return std::nullopt;
  (run->simulated ? simulated_ : measured_).add(*run);
  return run;
}

std::vector<TrainRun> latest_train_runs(std::span<const StoredRecord> records,
                                        const std::function<bool(const TrainRun&)>& keep) {
  LatestTrainRuns latest;
  for (const auto& record : records) {
    if (record.value.value("kind", "") != "train") continue;
    TrainRun run = read_train_run(record);
    if (keep(run)) latest.add(std::move(run));
  }
  return latest.runs();
}

TrainRunIndex::TrainRunIndex(std::span<const TrainRun> runs) {
  for (const TrainRun& run : runs)
    runs_.try_emplace({run.workload, run.strategy, run.workers}, &run);
}

const TrainRun* TrainRunIndex::find(const Workload& workload, const std::string& strategy,
                                    int workers) const {
  const auto it = runs_.find({workload, strategy, workers});
  return it == runs_.end() ? nullptr : it->second;
}

}  // namespace gradsync
