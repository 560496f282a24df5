#pragma once
// The training tables of `gradsync report` before a cell is written: a row
// per (workload, strategy, measured or simulated), a column per worker
// count, and in each cell the run measured there (or none). What a row is
// (an external reference, a projection) and whether a cell holds a figure
// are data of the runs, decided here and in train_report.cc; the text of the
// cells is written last, by train_table, and never read back.

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "harness/results/report_table.h"
#include "harness/results/train_runs.h"

namespace gradsync {

struct TrainRow {
  Workload workload;
  std::string strategy;
  bool simulated = false;  // a cost-model projection ("(simulated)" in the table)
  // The framework of an external reference (its runs' TrainRun::external,
  // e.g. "pytorch-ddp"); empty for gradsync's own.
  std::string external;
  std::vector<const TrainRun*> runs;  // one per worker count of the grid; nullptr: no run there

  bool is_external() const { return !external.empty(); }
};

struct TrainGrid {
  std::vector<int> worker_counts;  // ascending
  // By model and compute mode, otherwise in order of first appearance, a
  // simulated row right under its measured twin.
  std::vector<TrainRow> rows;
  bool any_setup = false;  // some row's workload has a setup: the tables get a setup column
  // Every external reference, (strategy, framework), in order of first
  // appearance: a note each under the tables.
  std::vector<std::pair<std::string, std::string>> externals;
};

// The grid of these runs (the latest of each configuration, train_runs.h);
// its rows point into `measured` and `simulated`, which must outlive it.
TrainGrid train_grid(std::span<const TrainRun> measured, std::span<const TrainRun> simulated);

// A table's figure of one run: its text, or nothing where the run has none.
using TrainFigure = std::function<std::optional<std::string>(const TrainRun&)>;

// The table of `grid` with one figure: the label columns (model, compute,
// batch, strategy with " (external)" and " (simulated)" after it, setup
// when the grid has one), then per worker count "-" where there is no run,
// else the run's figure ("-" without one), " (chose 16M)" after a
// --fusion-mb auto run's and " (FAILED CHECK)" after a failed run's; a note
// under it for each external reference of the grid.
ReportTable train_table(const TrainGrid& grid, std::string caption, const TrainFigure& figure);

}  // namespace gradsync
