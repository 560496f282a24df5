#pragma once
// The collectives table of `gradsync report`: collectives records as one
// table, a row per message size and a column per (strategy, worker count,
// setup: runs on an emulated cluster are columns of their own, their header
// naming the cluster).

#include <span>
#include <string>
#include <vector>

#include "harness/engine/collectives.h"
#include "harness/results/report_table.h"
#include "harness/results/result_file.h"

namespace gradsync {

// One collectives record as the reports read it.
struct CollectivesRun {
  const StoredRecord* record = nullptr;
  std::string strategy;
  int workers = 0;
  bool failed = false;     // `correct: false`: some size had wrong elements
  bool simulated = false;  // a cost-model prediction
  std::string setup;       // the emulated cluster it ran on (setup_of), "" on one machine
  std::vector<SizeResult> rows;
};

// Throws std::runtime_error "file:line: incomplete collectives record (...)".
CollectivesRun read_collectives_run(const StoredRecord& record);

// The table of the collectives records (other kinds are skipped); where two
// records measured the same strategy, workers and size, the later one counts.
// Throws std::runtime_error naming the record ("file:line: ...") when one is
// incomplete, and when there are no collectives records at all.
ReportTable collectives_report(std::span<const StoredRecord> records, const std::string& metric);

}  // namespace gradsync
