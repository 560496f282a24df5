#include "harness/results/choice_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "harness/results/efficiency.h"
#include "harness/results/finite_cells.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

constexpr double kMiB = 1048576.0;

// A row's efficiency at one worker count, against its own side's baseline.
std::optional<double> efficiency_of(const TrainRun* run, const TrainRunIndex& measured,
                                    const TrainRunIndex& simulated) {
  if (!run) return std::nullopt;
  const auto e =
      scaling_efficiency(*run, baseline_run(run->simulated ? simulated : measured, *run));
  if (!e) return std::nullopt;
  return e->value;
}

// A projection's band (harness/sim/validation.h) on its efficiency: " (8.7
// to 9.6%)", with "beyond validation" past every validated worker count;
// nothing for a measured run or a projection without one.
std::string band_text(const TrainRun& run, double efficiency) {
  if (!run.simulated || !run.record) return "";
  const nlohmann::json& v = run.record->value;
  const auto sim = v.find("simulation");
  if (sim == v.end() || !sim->is_object()) return "";
  const auto band = sim->find("band");
  if (band == sim->end() || !band->is_object()) return "";
  return fmt::format(" ({:.1f} to {:.1f}%{})", 100 * efficiency * band->value("low", 1.0),
                     100 * efficiency * band->value("high", 1.0),
                     band->value("beyond_validation", false) ? ", beyond validation" : "");
}

std::string choice_cell(const TrainRun* run, std::optional<double> efficiency) {
  if (!run) return "-";
  const std::string speed =
      efficiency ? fmt::format("{:.1f}%{}", 100 * *efficiency, band_text(*run, *efficiency))
                 : "n/a";
  if (!run->memory_bytes) return speed;
  return fmt::format("{}, {:.0f} MiB", speed, *run->memory_bytes / kMiB);
}

// The workload's rows that are choices (not the baseline), when their
// memory differs; none otherwise.
std::vector<const TrainRow*> choices(const TrainGrid& grid, const Workload& workload) {
  const std::string baseline(strategy_with_role(StrategyRole::baseline));
  std::vector<const TrainRow*> rows;
  std::set<double> memory;
  for (const TrainRow& row : grid.rows) {
    if (row.workload != workload || row.strategy == baseline || row.is_external()) continue;
    rows.push_back(&row);
    for (const TrainRun* run : row.runs)
      if (run && run->memory_bytes && run->workers > 1) memory.insert(*run->memory_bytes);
  }
  if (memory.size() < 2) rows.clear();
  return rows;
}

ReportTable choice_table(const TrainGrid& grid, const std::vector<const TrainRow*>& rows,
                         const TrainRunIndex& measured, const TrainRunIndex& simulated) {
  // The columns: the worker counts of 2 or more where some row ran.
  std::vector<std::size_t> columns;
  for (std::size_t c = 0; c < grid.worker_counts.size(); ++c)
    if (grid.worker_counts[c] > 1 &&
        std::ranges::any_of(rows, [&](const TrainRow* row) { return row->runs[c] != nullptr; }))
      columns.push_back(c);
  // Ranked by efficiency at the last column a row ran at, more workers first:
  // measured rows, then projections, each by (-workers, -efficiency).
  auto rank = [&](const TrainRow* row) {
    for (auto c = columns.rbegin(); c != columns.rend(); ++c)
      if (const auto e = efficiency_of(row->runs[*c], measured, simulated))
        return std::tuple(row->simulated, -grid.worker_counts[*c], -*e);
    return std::tuple(row->simulated, 0, 0.0);
  };
  std::vector<std::pair<std::tuple<bool, int, double>, const TrainRow*>> ranked;
  for (const TrainRow* row : rows) ranked.emplace_back(rank(row), row);
  std::ranges::stable_sort(ranked, {}, [](const auto& r) { return r.first; });
  std::vector<const TrainRow*> ordered;
  for (const auto& [key, row] : ranked) ordered.push_back(row);
  const Workload& w = rows.front()->workload;
  ReportTable t;
  t.caption = fmt::format(
      "Which strategy for {} ({}, batch {}{}): scaling efficiency and memory per worker (the "
      "model's state: parameters, gradients, optimizer state, gathered buffers), fastest first",
      w.model_label(), w.compute, w.batch, w.setup.empty() ? "" : ", " + w.setup);
  t.header = {"strategy"};
  t.label_columns = 1;
  for (std::size_t c : columns) t.header.push_back(fmt::format("n={}", grid.worker_counts[c]));
  for (const TrainRow* row : ordered) {
    std::vector<std::string> cells = {row->strategy + (row->simulated ? " (simulated)" : "")};
    for (std::size_t c : columns)
      cells.push_back(choice_cell(row->runs[c], efficiency_of(row->runs[c], measured, simulated)));
    t.rows.push_back(std::move(cells));
  }
  require_finite_cells(t);
  return t;
}

}  // namespace

std::vector<ReportTable> choice_tables(const TrainGrid& grid, std::span<const TrainRun> measured,
                                       std::span<const TrainRun> simulated) {
  const TrainRunIndex measured_runs(measured), simulated_runs(simulated);
  std::vector<ReportTable> tables;
  std::set<Workload> done;
  for (const TrainRow& row : grid.rows) {
    if (!done.insert(row.workload).second) continue;
    const std::vector<const TrainRow*> rows = choices(grid, row.workload);
    if (!rows.empty()) tables.push_back(choice_table(grid, rows, measured_runs, simulated_runs));
  }
  return tables;
}

}  // namespace gradsync
