#pragma once
// The wire table of `gradsync report`: for every run on an emulated cluster
// (the later record of a configuration counting), per host, the bytes its
// link put on and took off the wire per step (train) or per allreduce at the
// largest size measured (collectives), beside the bytes the strategies on
// that host counted, and link / counted. Above 1: protocol headers,
// acknowledgements and control traffic; below 1: bytes between ranks of one
// host, which shared memory carried and no link saw. Counts a strategy
// computes from its algorithm's formula (traffic_is_computed) are marked
// "*", with a note under the table.

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "harness/results/collectives_report.h"
#include "harness/results/first_error.h"
#include "harness/results/report_table.h"
#include "harness/results/result_file.h"
#include "harness/results/train_runs.h"
#include "harness/results/wire_record.h"

namespace gradsync {

// The train runs the table has rows for: measured, with wire truth.
bool has_wire_rows(const TrainRun& run);

// The table's collectives rows as a fold over collectives records: one entry
// per strategy, worker count and setup (the later record's), in the order of
// their last record. An error is kept until entries() (first_error.h).
class CollectivesWire {
 public:
  // `run` is read_collectives_run(record).
  void add(const StoredRecord& record, const CollectivesRun& run);
  // A record whose run could not be read.
  void fail(std::exception_ptr error) { error_.keep(error); }

  struct Entry {
    std::tuple<std::string, int, std::string> run;  // strategy, workers, setup
    std::string label;
    WireTruth wire;
    bool traffic_computed = false;  // traffic_is_computed of its record
  };
  // Throws the first error a record met, as wire_report.
  const std::vector<Entry>& entries() const {
    error_.rethrow();
    return entries_;
  }

 private:
  std::vector<Entry> entries_;
  FirstError error_;
};

// Whether a train or collectives record's traffic counts are computed from
// the algorithm's formula, not counted: its "traffic_source", or, in a
// record from before that field, its strategy's table entry.
bool traffic_is_computed(const nlohmann::json& record, std::string_view strategy);

// The table of the latest train runs that has_wire_rows, then of the
// collectives entries; nothing when neither has a row. Throws
// std::runtime_error naming the record when a run's wire truth is malformed.
std::optional<ReportTable> wire_report(std::span<const TrainRun> wired_runs,
                                       const CollectivesWire& collectives);

// Nothing when no record carries wire truth. Throws std::runtime_error
// naming the record when one is malformed.
std::optional<ReportTable> wire_report(std::span<const StoredRecord> records);

}  // namespace gradsync
