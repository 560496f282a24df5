#pragma once
// Tables of training records: scaling efficiency, throughput and the share of
// exposed communication, per model and strategy (rows) and worker count
// (columns). Efficiency is efficiency.h's: total img/sec at N workers / (N x
// img/sec of the baseline strategy's run at one worker, same workload).

#include <span>
#include <vector>

#include "harness/results/report_table.h"
#include "harness/results/result_file.h"
#include "harness/results/train_runs.h"

namespace gradsync {

// Empty when there are no train records. Where the same configuration was
// measured twice, the later record counts.
std::vector<ReportTable> training_report(std::span<const StoredRecord> records);

// The same from the latest runs of each side (TrainSides).
std::vector<ReportTable> training_report(std::span<const TrainRun> measured,
                                         std::span<const TrainRun> simulated);

}  // namespace gradsync
