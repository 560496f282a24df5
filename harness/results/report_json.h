#pragma once
// `gradsync report --format json`: every figure the plots draw, computed here
// so that the plots only draw (plots/gsplots reads it). One JSON document:
//   schema "gradsync.report", schema_version 1;
//   strategies: the strategy table in its order, {name, index, role
//     ("synchronizer", "baseline" or "reference"), in_table}, then the cost
//     model's model-only algorithms (role "model", in_table false), then
//     names the records use that neither knows (sorted, in_table false;
//     role "external" for an external reference's, e.g. PyTorch DDP's
//     ddp-gloo), so a reader orders, colours and recognises the baseline
//     without knowing names;
//   train: one row per workload x strategy x workers x measured/simulated
//     (the later record of a configuration counts): model, compute, batch,
//     strategy, workers, simulated, setup (workload.h: the cluster the run
//     represents, "time xK", or ""), time_scale, correct, failed, origin
//     ("file:line"), img_sec {mean, conf} in total img/sec as represented
//     (measured x time_scale), measured_img_sec {mean, conf} as measured,
//     efficiency {value, conf} as a
//     fraction (efficiency.h; against the baseline of its own side, measured
//     or simulated, else of the other side; null without one) and baseline
//     ("measured", "simulated" or null: whose baseline it is), band (a
//     simulated row's band from its cluster's validation: {low, high:
//     factors on img_sec and efficiency, beyond_validation}, else null),
//     exposed_comm_share, external (the framework of an external reference,
//     "pytorch-ddp", whose efficiency is against its own run at one worker;
//     null for gradsync's own), breakdown {compute_s, allreduce_s, exposed_comm_s,
//     step_mean_s, and input_wait_s with an input stage (train --input)} or null, hosts, timestamp,
//     device_profile, cluster (the record's cluster object with its "label", or null off a
//     cluster), wire (the record's wire truth, or null);
//   collectives: one entry per strategy x workers x measured/simulated x
//     setup, with its setup, cluster and rows by size (the later record of
//     a size counts): size_bytes, count, time_us, algbw_gbps, busbw_gbps,
//     wrong (null when unchecked), failed (wrong elements, or the record's
//     check failed), wire (or null), origin, hosts, timestamp.
// Records of no kind the report knows are skipped; no records at all give
// empty lists (the reader decides what it needs).

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "harness/results/collectives_report.h"
#include "harness/results/first_error.h"
#include "harness/results/result_file.h"
#include "harness/results/train_runs.h"

namespace gradsync {

inline constexpr const char* kReportSchema = "gradsync.report";
inline constexpr int kReportSchemaVersion = 1;

// The strategy table and the cost model's model-only algorithms, as the
// report's `strategies` list starts (also the crossover map's list, so a
// strategy has one colour in every figure).
nlohmann::json known_strategies_json();

// The `strategies` list as a fold over records: the names the records use
// that the table does not know. An error is kept until json() (first_error.h).
class StrategyNames {
 public:
  StrategyNames();
  void add(const nlohmann::json& record);
  nlohmann::json json() const;

 private:
  std::set<std::string> known_;
  std::map<std::string, bool> unknown_;  // name -> an external reference's
  FirstError error_;
};

// The `collectives` list as a fold over collectives records: a row per
// entry and size (the later record's), whatever the number of records.
class CollectivesJson {
 public:
  // `run` is read_collectives_run(record).
  void add(const StoredRecord& record, const CollectivesRun& run);
  // A record whose run could not be read.
  void fail(std::exception_ptr error) { error_.keep(error); }
  nlohmann::json json() const;

 private:
  using Column =
      std::tuple<std::string, int, bool, std::string>;  // strategy, workers, simulated, setup
  std::vector<Column> order_;
  std::map<Column, std::map<std::uint64_t, nlohmann::json>> rows_;
  std::map<Column, nlohmann::json> clusters_;
  FirstError error_;
};

// The document from the folds. Throws the first error a fold kept, in the
// order of the document's parts, and std::runtime_error naming the record
// when a run's wire truth is malformed.
nlohmann::json report_json(const StrategyNames& strategies, const TrainSides& train,
                           const CollectivesJson& collectives);

// Throws std::runtime_error naming the record ("file:line: ...") when one is
// incomplete.
nlohmann::json report_json(std::span<const StoredRecord> records);

}  // namespace gradsync
