#pragma once
// The text `gradsync collectives` prints, laid out like nccl-tests: comment
// lines start with '#', one table for every strategy with fixed-width,
// right-aligned columns, and a summary per strategy.

#include <span>
#include <string>
#include <vector>

#include "harness/engine/collectives.h"
#include "harness/results/collectives_record.h"

namespace gradsync {

// The column titles and units (two lines). `with_staging` adds a last column,
// stage(us): the staging copies inside each allreduce on device buffers.
std::string collectives_table_header(bool with_staging);

// One line per size of the outcome.
std::string collectives_table_rows(const StrategyOutcome& outcome, bool with_staging);

// Average bus bandwidth and bytes sent/received per rank.
std::string collectives_summary(const StrategyOutcome& outcome);

// nccl-tests' time column: 2 decimals below 100 us, 1 below 10 ms, else none.
std::string format_time_us(double time_us);

}  // namespace gradsync
