#pragma once
// Train records as the reports read them: one TrainRun per record, and the
// latest run of each (workload, strategy, workers), where a later record of
// the same configuration replaces an earlier one. A run holds what the
// reports read of its record, not the record, so that a report over a
// stream of records keeps one run per configuration and no more.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "harness/engine/time_to_target.h"
#include "harness/results/first_error.h"
#include "harness/results/latest_by_key.h"
#include "harness/results/result_file.h"
#include "harness/results/workload.h"

namespace gradsync {

// Where the step time went, seconds per step (the breakdown figure draws it).
struct StepBreakdown {
  double compute_s = 0, allreduce_s = 0, exposed_comm_s = 0, step_mean_s = 0;
  // Exposed input (the record's input.wait_s); absent with synthetic input.
  std::optional<double> input_wait_s;
};

struct TrainRun {
  // The record it was read from, its origin and the fields the reports read
  // beyond the run's own (report_fields): shared, not copied, with the run.
  std::shared_ptr<const StoredRecord> record;
  Workload workload;
  std::string strategy;
  int workers = 0;
  double img_sec_mean = 0, img_sec_conf = 0;  // per worker, as measured (conf: 1.96 sigma)
  double time_scale = 1;                      // emulated compute slowed by this (1: not)
  double exposed_comm_share = 0;              // of the step, waiting after backward
  bool failed = false;                        // its correctness check failed
  bool simulated = false;                     // a cost-model prediction
  // An external reference (the record's "external", e.g. "pytorch-ddp": another
  // framework's run on the same workload, scripts/ddp-reference.py); empty for
  // gradsync's own runs. Its compute is that framework's, so its efficiency is
  // taken against its own run at one worker (efficiency.h).
  std::string external;
  // The input stage's label (input_label: "input decode:2ms x1 thread
  // prefetch 2"), part of the workload's setup; empty for synthetic input.
  std::string input_label;
  std::optional<StepBreakdown> breakdown;      // absent when the record lacks a figure of it
  std::optional<TimeToTarget> time_to_target;  // run with --target-loss
  std::optional<double> fusion_chosen_mb;      // run with --fusion-mb auto: the threshold chosen
  // What a worker held of the model's state (the record's memory.total_bytes);
  // absent from records written before it was recorded.
  std::optional<double> memory_bytes;

  // Total img/sec on `workers` workers and its 1.96-sigma interval, as measured.
  double total_img_sec() const { return img_sec_mean * workers; }
  double total_img_sec_conf() const { return img_sec_conf * workers; }
  // The same for the setup the run represents: measured x time scale.
  double represented_total_img_sec() const { return total_img_sec() * time_scale; }
  double represented_total_img_sec_conf() const { return total_img_sec_conf() * time_scale; }
};

// The strategy a report names a record's run by: its entry's label for its
// "strategy_options" (registry.h), e.g. "ps-zmq async" or "ps-zmq ssp K=2"
// for servers that own the parameters, so that they stand beside synchronous
// ps-zmq, not over it; the bare name for a strategy this build lacks. A run
// at another fusion threshold than the default adds it (" fusion 16M",
// " no fusion"), and a run that searched for one " fusion auto" (the
// baseline neither: it sends no buckets), so that runs at different
// thresholds stand side by side, not over each other.
std::string strategy_label(const nlohmann::json& record);

// The threshold a --fusion-mb auto run's search chose (its "sync.fusion_mb");
// none for a run given its threshold, or where nothing was searched.
std::optional<double> fusion_chosen_mb(const nlohmann::json& record);

// A train record's "external": the framework that made it ("pytorch-ddp"),
// or "" for gradsync's own (absent or null). Throws nlohmann::json's
// exception when it is there but not a string.
std::string external_of(const nlohmann::json& record);

// What a run keeps of its train record: the origin, and of the value the
// fields report --format json and the wire table read (correct, context,
// cluster, time_scale, device_profile, wire, simulation's band and placement).
StoredRecord report_fields(const StoredRecord& record);

// Throws std::runtime_error "file:line: incomplete train record (...)" when a
// field the reports need is missing.
TrainRun read_train_run(const StoredRecord& record);

// The latest run of each configuration offered, in the order each
// configuration first appeared: a fold over a stream of runs, holding one
// run per configuration.
class LatestTrainRuns {
 public:
  // Keeps `run`, in place of an earlier run of its configuration if any.
  void add(TrainRun run) {
    auto key = std::tuple{run.workload, run.strategy, run.workers};  // before run moves
    runs_.put(key, std::move(run));
  }
  const std::vector<TrainRun>& runs() const { return runs_.values(); }

 private:
  LatestByKey<std::tuple<Workload, std::string, int>, TrainRun> runs_;
};

// The latest runs of a stream's train records, measured and simulated apart
// (each side its own baseline): a run per configuration and side. An error
// is kept until a side is read (first_error.h).
class TrainSides {
 public:
  // Reads a train record's run into its side; records of other kinds are
  // skipped. Returns the run, or nothing for another kind or an error.
  std::optional<TrainRun> add(const StoredRecord& record);
  const std::vector<TrainRun>& measured() const {
    error_.rethrow();
    return measured_.runs();
  }
  const std::vector<TrainRun>& simulated() const {
    error_.rethrow();
    return simulated_.runs();
  }
  // Runs held, both sides.
  std::size_t runs() const { return measured_.runs().size() + simulated_.runs().size(); }

 private:
  LatestTrainRuns measured_, simulated_;
  FirstError error_;
};

// The latest run of each configuration among the train records `keep`
// accepts, in the order each configuration first appeared.
std::vector<TrainRun> latest_train_runs(std::span<const StoredRecord> records,
                                        const std::function<bool(const TrainRun&)>& keep);

// The runs of a set by configuration (workload, strategy, worker count),
// for a report that looks up every configuration of every row: a lookup
// in log time, where a scan of the set would make the report quadratic in
// its configurations. The first run of a configuration is the one found.
// Holds pointers into the runs, which must outlive it.
class TrainRunIndex {
 public:
  explicit TrainRunIndex(std::span<const TrainRun> runs);
  // The run of this configuration, or nullptr.
  const TrainRun* find(const Workload& workload, const std::string& strategy, int workers) const;

 private:
  std::map<std::tuple<Workload, std::string, int>, const TrainRun*> runs_;
};

}  // namespace gradsync
