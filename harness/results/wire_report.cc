#include "harness/results/wire_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "harness/results/computed_traffic.h"
#include "harness/results/record_fields.h"
#include "harness/results/size_parse.h"
#include "harness/results/train_runs.h"
#include "harness/results/wire_record.h"
#include "harness/sim/json_whole.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

std::string mib(std::uint64_t bytes, int per) {
  return fmt::format("{:.2f}", double(bytes) / std::max(1, per) / 1048576.0);
}

void add_rows(ReportTable& table, const std::string& run, const WireTruth& wire, bool computed) {
  const std::string_view mark = computed ? computed_traffic_mark : "";
  for (const auto& h : wire.hosts) {
    const auto ratio = h.ratio();
    table.rows.push_back({run, h.host, wire.unit,
                          h.link ? mib(h.link->tx, wire.timed_repeats) : "-",
                          h.link ? mib(h.link->rx, wire.timed_repeats) : "-",
                          mib(h.counted.bytes_sent, wire.timed_repeats) + std::string(mark),
                          mib(h.counted.bytes_received, wire.timed_repeats) + std::string(mark),
                          ratio ? fmt::format("{:.2f}", *ratio) : "-"});
  }
  if (computed && std::find(table.notes.begin(), table.notes.end(), computed_traffic_legend) ==
                      table.notes.end())
    table.notes.push_back(std::string(computed_traffic_legend));
}

}  // namespace

bool traffic_is_computed(const nlohmann::json& record, std::string_view strategy) {
  if (const auto it = record.find("traffic_source"); it != record.end() && it->is_string())
    return it->get<std::string>() == "computed";
  const StrategyInfo* entry = strategy_named(strategy);
  return entry && entry->traffic_computed;
}

bool has_wire_rows(const TrainRun& run) {
  return !run.simulated && run.record->value.contains("wire");
}

void CollectivesWire::add(const StoredRecord& record, const CollectivesRun& run) {
  error_.guard([&] {
    read_fields(record, "collectives", [&](const nlohmann::json& v) {
      const nlohmann::json* last = nullptr;  // the largest size's row
      for (const auto& row : v.at("rows"))
        if (!last || row.at("size_bytes") > last->at("size_bytes")) last = &row;
      if (!last || !last->contains("wire")) return;
      const std::tuple key{run.strategy, run.workers, run.setup};
      const std::string label =
          fmt::format("collectives {} n={}{} at {}", run.strategy, run.workers,
                      run.setup.empty() ? "" : " [" + run.setup + "]",
                      format_size(whole_number<std::uint64_t>(last->at("size_bytes"))));
      std::erase_if(entries_, [&](const Entry& e) { return e.run == key; });
      entries_.push_back(
          {key, label, wire_from_json(last->at("wire")), traffic_is_computed(v, run.strategy)});
    });
  });
}

std::optional<ReportTable> wire_report(std::span<const TrainRun> wired_runs,
                                       const CollectivesWire& collectives) {
  ReportTable table;
  table.caption =
      "Wire truth on the emulated cluster: MiB per step (train) or per allreduce at the largest "
      "size (collectives), each host's link against what its strategies counted";
  table.header = {
      "run",           "host", "per", "link tx", "link rx", "counted sent", "counted received",
      "link / counted"};
  table.label_columns = 3;
  for (const auto& run : wired_runs)
    add_rows(table, fmt::format("{} {} n={}", run.workload.label(), run.strategy, run.workers),
             read_fields(*run.record, "train",
                         [](const nlohmann::json& v) { return wire_from_json(v.at("wire")); }),
             traffic_is_computed(run.record->value, run.strategy));
  for (const auto& entry : collectives.entries())
    add_rows(table, entry.label, entry.wire, entry.traffic_computed);
  if (table.rows.empty()) return std::nullopt;
  return table;
}

std::optional<ReportTable> wire_report(std::span<const StoredRecord> records) {
  const auto runs = latest_train_runs(records, has_wire_rows);
  CollectivesWire collectives;
  for (const auto& record : records) {
    if (record.value.value("kind", "") != "collectives") continue;
    try {
      collectives.add(record, read_collectives_run(record));
    } catch (const std::runtime_error&) {
      collectives.fail(std::current_exception());
    }
  }
  return wire_report(runs, collectives);
}

}  // namespace gradsync
