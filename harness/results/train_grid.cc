#include "harness/results/train_grid.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "harness/results/finite_cells.h"

namespace gradsync {
namespace {

using RowKey = std::tuple<Workload, std::string, bool>;  // workload, strategy, simulated

// Rows in order of first appearance, measured ones first, a simulated row
// inserted right under its measured twin; then ordered by model and compute
// mode, the order within each kept.
std::vector<RowKey> row_keys(std::span<const TrainRun> measured,
                             std::span<const TrainRun> simulated) {
  std::vector<RowKey> keys;
  std::set<RowKey> seen;
  std::map<RowKey, RowKey> under;  // a measured row's key -> its simulated twin's
  for (const auto set : {measured, simulated})
    for (const TrainRun& run : set) {
      const RowKey key{run.workload, run.strategy, run.simulated};
      if (!seen.insert(key).second) continue;
      const RowKey twin{run.workload, run.strategy, false};
      if (run.simulated && seen.contains(twin))
        under.emplace(twin, key);
      else
        keys.push_back(key);
    }
  std::vector<RowKey> ordered;
  for (const RowKey& key : keys) {
    ordered.push_back(key);
    if (const auto twin = under.find(key); twin != under.end()) ordered.push_back(twin->second);
  }
  keys = std::move(ordered);
  std::stable_sort(keys.begin(), keys.end(), [](const RowKey& a, const RowKey& b) {
    const Workload &x = std::get<0>(a), &y = std::get<0>(b);
    return std::tie(x.model, x.compute) < std::tie(y.model, y.compute);
  });
  return keys;
}

// The label cells of a row: model, compute, batch, strategy (marked), and
// the setup when the table has that column.
std::vector<std::string> row_labels(const TrainRow& row, bool setup_column) {
  std::string strategy = row.strategy;
  if (row.is_external()) strategy += " (external)";
  if (row.simulated) strategy += " (simulated)";
  std::vector<std::string> labels = {row.workload.model_label(), row.workload.compute,
                                     std::to_string(row.workload.batch), strategy};
  if (setup_column) labels.push_back(row.workload.setup.empty() ? "-" : row.workload.setup);
  return labels;
}

std::string run_cell(const TrainRun* run, const TrainFigure& figure) {
  if (!run) return "-";
  std::string cell = figure(*run).value_or("-");
  if (run->fusion_chosen_mb) cell += fmt::format(" (chose {:.4g}M)", *run->fusion_chosen_mb);
  if (run->failed) cell += " (FAILED CHECK)";
  return cell;
}

}  // namespace

TrainGrid train_grid(std::span<const TrainRun> measured, std::span<const TrainRun> simulated) {
  TrainGrid grid;
  for (const auto set : {measured, simulated})
    for (const TrainRun& run : set) {
      if (std::find(grid.worker_counts.begin(), grid.worker_counts.end(), run.workers) ==
          grid.worker_counts.end())
        grid.worker_counts.push_back(run.workers);
      const std::pair external{run.strategy, run.external};
      if (!run.external.empty() &&
          std::find(grid.externals.begin(), grid.externals.end(), external) == grid.externals.end())
        grid.externals.push_back(external);
    }
  std::sort(grid.worker_counts.begin(), grid.worker_counts.end());
  const TrainRunIndex measured_runs(measured), simulated_runs(simulated);
  for (const auto& [workload, strategy, simulated_row] : row_keys(measured, simulated)) {
    TrainRow& row = grid.rows.emplace_back(TrainRow{workload, strategy, simulated_row});
    for (int n : grid.worker_counts) {
      const TrainRun* run =
          (simulated_row ? simulated_runs : measured_runs).find(workload, strategy, n);
      row.runs.push_back(run);
      if (run && row.external.empty()) row.external = run->external;
    }
    grid.any_setup = grid.any_setup || !workload.setup.empty();
  }
  return grid;
}

ReportTable train_table(const TrainGrid& grid, std::string caption, const TrainFigure& figure) {
  ReportTable t;
  t.caption = std::move(caption);
  t.header = {"model", "compute", "batch", "strategy"};
  if (grid.any_setup) t.header.push_back("setup");
  t.label_columns = t.header.size();
  for (int n : grid.worker_counts) t.header.push_back(fmt::format("n={}", n));
  for (const TrainRow& row : grid.rows) {
    std::vector<std::string> cells = row_labels(row, grid.any_setup);
    for (const TrainRun* run : row.runs) cells.push_back(run_cell(run, figure));
    t.rows.push_back(std::move(cells));
  }
  for (const auto& [name, framework] : grid.externals)
    t.notes.push_back(fmt::format(
        "(external) `{}` is an external reference ({}): its compute is that framework's own, "
        "not gradsync's, so compare it by scaling efficiency and exposed communication, not by "
        "img/sec; its efficiency is against its own run at 1 worker.",
        name, framework));
  require_finite_cells(t);
  return t;
}

}  // namespace gradsync
