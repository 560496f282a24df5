#pragma once
// The collectives table of `gradsync report`: collectives records as one
// table, a row per message size and a column per (strategy, worker count,
// setup: runs on an emulated cluster are columns of their own, their header
// naming the cluster).

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "harness/engine/collectives.h"
#include "harness/results/report_table.h"
#include "harness/results/result_file.h"

namespace gradsync {

// One collectives record as the reports read it.
struct CollectivesRun {
  std::string strategy;
  int workers = 0;
  bool failed = false;     // `correct: false`: some size had wrong elements
  bool simulated = false;  // a cost-model prediction
  std::string setup;       // the emulated cluster it ran on (setup_of), "" on one machine
  std::vector<SizeResult> rows;
  // What the record's "nccl_algorithm" says NCCL ran ("TREE (pinned TREE)",
  // "unconfirmed (pinned TREE)"); empty for a strategy other than NCCL's.
  std::string nccl_algorithm;
};

// Throws std::runtime_error "file:line: incomplete collectives record (...)".
CollectivesRun read_collectives_run(const StoredRecord& record);

// A column of the table: strategy, workers, setup.
struct CollectivesColumn {
  std::string strategy;
  int workers = 0;
  std::string setup;
  auto operator<=>(const CollectivesColumn&) const = default;
};

// The table as a fold over collectives runs: what it keeps is a figure per
// column and size (the later run's), whatever the number of records.
class CollectivesColumns {
 public:
  void add(const CollectivesRun& run);
  // Throws std::invalid_argument for an unknown metric, std::runtime_error
  // when no run was added.
  ReportTable table(const std::string& metric) const;
  // Figures held: a column at a size each.
  std::size_t cells() const { return cells_; }

 private:
  std::vector<std::string> strategies_;  // in order of first appearance
  std::vector<CollectivesColumn> seen_;  // likewise
  std::map<CollectivesColumn, std::map<std::uint64_t, SizeResult>> results_;
  std::map<CollectivesColumn, std::string> nccl_algorithm_;  // the later run's, where told
  std::size_t cells_ = 0;
};

// The table of the collectives records (other kinds are skipped), with a
// note under it per NCCL column on the algorithm NCCL confirmed; where two
// records measured the same strategy, workers and size, the later one counts.
// Throws std::runtime_error naming the record ("file:line: ...") when one is
// incomplete, and when there are no collectives records at all.
ReportTable collectives_report(std::span<const StoredRecord> records, const std::string& metric);

}  // namespace gradsync
