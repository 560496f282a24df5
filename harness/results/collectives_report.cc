#include "harness/results/collectives_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "harness/results/cluster_record.h"
#include "harness/results/collectives_record.h"
#include "harness/results/collectives_table.h"
#include "harness/results/record_fields.h"
#include "harness/sim/json_whole.h"

namespace gradsync {
namespace {

using Column = CollectivesColumn;

struct Metric {
  const char* caption;
  std::string (*figure)(const SizeResult&);

  // The figure, marked " (wrong)" where the size had wrong elements.
  std::string cell(const SizeResult& r) const {
    return figure(r) + (r.wrong_elements.value_or(0) > 0 ? " (wrong)" : "");
  }
};

Metric find_metric(const std::string& name) {
  if (name == "busbw")
    return {"busbw (GB/s)",
            [](const SizeResult& r) { return fmt::format("{:.2f}", r.busbw_gbps); }};
  if (name == "algbw")
    return {"algbw (GB/s)",
            [](const SizeResult& r) { return fmt::format("{:.2f}", r.algbw_gbps); }};
  if (name == "time")
    return {"time (us)", [](const SizeResult& r) { return format_time_us(r.time_us); }};
  throw std::invalid_argument("unknown --metric '" + name + "' (known: busbw, algbw, time)");
}

// Strategies side by side at each worker count, the question being which is
// fastest at the same scale. One worker moves no bytes over a bus, so busbw
// leaves those columns out (the time table has them).
std::vector<Column> report_columns(const std::vector<Column>& seen,
                                   const std::vector<std::string>& strategies,
                                   const std::string& metric_name) {
  std::vector<int> worker_counts;
  for (const Column& column : seen)
    if (std::find(worker_counts.begin(), worker_counts.end(), column.workers) ==
        worker_counts.end())
      worker_counts.push_back(column.workers);
  std::sort(worker_counts.begin(), worker_counts.end());
  std::vector<Column> columns;
  for (int workers : worker_counts) {
    if (workers == 1 && metric_name == "busbw" && worker_counts.size() > 1) continue;
    for (const auto& strategy : strategies)
      for (const auto& column : seen)
        if (column.workers == workers && column.strategy == strategy) columns.push_back(column);
  }
  return columns;
}

}  // namespace

CollectivesRun read_collectives_run(const StoredRecord& record) {
  return read_fields(record, "collectives", [&](const nlohmann::json& v) {
    CollectivesRun run;
    run.strategy = v.at("strategy").get<std::string>();
    run.workers = whole_number(v.at("workers"));
    const auto correct = v.find("correct");
    run.failed = correct != v.end() && correct->is_boolean() && !correct->get<bool>();
    run.simulated = v.value("simulated", false);
    run.setup = setup_of(v);
    for (const auto& json_row : v.at("rows")) run.rows.push_back(size_result_from_json(json_row));
    if (const auto nccl = v.find("nccl_algorithm"); nccl != v.end())
      run.nccl_algorithm = fmt::format("{} (pinned {})", nccl->at("confirmed").get<std::string>(),
                                       nccl->at("pinned").get<std::string>());
    return run;
  });
}

void CollectivesColumns::add(const CollectivesRun& run) {
  const Column column{run.strategy, run.workers, run.setup};
  if (std::find(strategies_.begin(), strategies_.end(), column.strategy) == strategies_.end())
    strategies_.push_back(column.strategy);
  if (std::find(seen_.begin(), seen_.end(), column) == seen_.end()) seen_.push_back(column);
  if (!run.nccl_algorithm.empty()) nccl_algorithm_[column] = run.nccl_algorithm;
  auto& by_size = results_[column];
  for (const SizeResult& row : run.rows)
    cells_ += by_size.insert_or_assign(row.size_bytes, row).second;
}

ReportTable collectives_report(std::span<const StoredRecord> records,
                               const std::string& metric_name) {
  find_metric(metric_name);  // an unknown metric is refused before any record is read
  CollectivesColumns columns;
  for (const auto& record : records)
    if (record.value.value("kind", "") == "collectives") columns.add(read_collectives_run(record));
  return columns.table(metric_name);
}

ReportTable CollectivesColumns::table(const std::string& metric_name) const {
  const Metric metric = find_metric(metric_name);
  if (seen_.empty()) throw std::runtime_error("no collectives or train records to report");
  const std::vector<Column> columns = report_columns(seen_, strategies_, metric_name);
  static const std::map<std::uint64_t, SizeResult> kNone;
  auto results = [&](const Column& column) -> const std::map<std::uint64_t, SizeResult>& {
    const auto it = results_.find(column);
    return it == results_.end() ? kNone : it->second;
  };

  ReportTable table;
  table.caption = fmt::format("{} by message size; columns: n = workers, strategy", metric.caption);
  table.header.push_back("size (B)");
  for (const auto& [strategy, workers, setup] : columns)
    table.header.push_back(
        fmt::format("n={} {}{}", workers, strategy, setup.empty() ? "" : " [" + setup + "]"));
  std::set<std::uint64_t> sizes;  // every size a column measured, ascending
  for (const Column& column : columns)
    for (const auto& [size, result] : results(column)) sizes.insert(size);
  for (const std::uint64_t size : sizes) {
    std::vector<std::string> row = {std::to_string(size)};
    for (const Column& column : columns) {
      const auto it = results(column).find(size);
      row.push_back(it == results(column).end() ? "-" : metric.cell(it->second));
    }
    table.rows.push_back(std::move(row));
  }
  for (const auto& [strategy, workers, setup] : columns)
    if (const auto it = nccl_algorithm_.find({strategy, workers, setup});
        it != nccl_algorithm_.end())
      table.notes.push_back(fmt::format("n={} {}{}: NCCL's log says it ran {}", workers, strategy,
                                        setup.empty() ? "" : " [" + setup + "]", it->second));
  return table;
}

}  // namespace gradsync
