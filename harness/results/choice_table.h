#pragma once
// "Which strategy" tables of `gradsync report`: for each workload whose
// strategies hold different memory per worker (a sharded strategy beside
// replicas), every strategy with its scaling efficiency and its memory per
// worker at each worker count of 2 or more, fastest first at the most
// workers the workload ran at; measured rows first, then the projections
// with their bands.
// The trade a sharded strategy offers, speed for memory, in one table.
// Efficiency is efficiency.h's; the baseline (`none`) is no choice and has
// no row.

#include <span>
#include <vector>

#include "harness/results/report_table.h"
#include "harness/results/train_grid.h"

namespace gradsync {

std::vector<ReportTable> choice_tables(const TrainGrid& grid, std::span<const TrainRun> measured,
                                       std::span<const TrainRun> simulated);

}  // namespace gradsync
