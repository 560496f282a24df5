#pragma once
// What `gradsync report` keeps of its records, read as a stream: each table
// and the JSON document as a fold (train_runs.h, collectives_report.h,
// wire_report.h, report_json.h), so that what is held is a run per train
// configuration and a figure per collectives column and size, whatever the
// number of records. The tables and the document are those the whole-vector
// functions (training_report, collectives_report, wire_report, report_json)
// make of the same records, errors included: an error a record meets is
// kept and thrown where the whole-vector path would have met it.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/results/collectives_report.h"
#include "harness/results/first_error.h"
#include "harness/results/report_json.h"
#include "harness/results/report_table.h"
#include "harness/results/result_file.h"
#include "harness/results/train_report.h"
#include "harness/results/train_runs.h"
#include "harness/results/wire_report.h"

namespace gradsync {

// What a report holds at most: train runs and collectives figures together.
// A run keeps its record's context and cluster, a few KB (100,000 distinct
// train configurations took 0.9 GB with the JSON document), so the bound
// stays near 2 GB: past it the records are not one report's, whose tables
// would have hundreds of thousands of rows, and the report stops with a line
// naming the record where it went over rather than run out of memory.
inline constexpr std::size_t kMaxReportHeld = 250'000;

class ReportRecords {
 public:
  explicit ReportRecords(std::size_t max_held = kMaxReportHeld) : max_held_(max_held) {}

  // Throws std::runtime_error "file:line: ..." when the record takes what is
  // held past the bound.
  void add(const StoredRecord& record);

  // The tables of `report`: training's, the collectives table (when there
  // are collectives records, or no training table), the wire table.
  std::vector<ReportTable> tables(const std::string& metric) const;
  // `report --format json`.
  nlohmann::json json() const;

  // What is held: train runs and collectives figures (a column at a size).
  std::size_t held() const { return train_.runs() + wired_.runs().size() + columns_.cells(); }

 private:
  void add_collectives(const StoredRecord& record);

  StrategyNames strategies_;
  TrainSides train_;
  LatestTrainRuns wired_;  // the wire table's (has_wire_rows)
  bool has_collectives_ = false;
  CollectivesColumns columns_;
  FirstError columns_error_;
  CollectivesJson collectives_json_;
  CollectivesWire collectives_wire_;
  std::size_t max_held_;
};

}  // namespace gradsync
