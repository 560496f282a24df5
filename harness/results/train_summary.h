#pragma once
// What a training run measured, reduced over the workers: Horovod's figures
// (img/sec per worker with a 1.96-sigma interval, total img/sec), step-time
// percentiles of the slowest worker, and where the step went.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/time_to_target.h"
#include "harness/engine/train.h"
#include "strategies/core/world.h"

namespace gradsync {

// An active input stage (train --input) as the workers measured it, means
// over the workers; the record's "input" object (train_record.h).
struct InputSummary {
  InputSpec spec;
  double loader_s_per_image = 0;  // LoaderStats::seconds_per_image
  double loader_s_per_batch = 0;  // LoaderStats::seconds_per_batch
  // What the loader could deliver, img/sec per worker: threads / loader time
  // per image (its threads never idle); for read, whose threads take turns on
  // one link (their time per image includes those turns), the link's rate.
  double capacity_img_sec = 0;
  double wait_s = 0;      // exposed input per timed step: taking the batch blocked
  double wait_share = 0;  // wait_s / mean step time (as exposed_comm_share)
};

struct TrainSummary {
  int workers = 1;
  int batch_size = 0;
  std::vector<double> img_sec_per_worker;  // one per timed iteration
  double img_sec_mean = 0;                 // per worker
  double img_sec_conf = 0;                 // 1.96 x standard deviation, per worker
  double step_mean_s = 0, step_median_s = 0, step_p90_s = 0, step_p99_s = 0;  // slowest worker
  int timed_steps = 0;
  double compute_s = 0;       // forward + backward per step, mean over workers
  double exposed_comm_s = 0;  // per step: waiting for communication after backward
  double allreduce_s = 0;     // per step: inside the strategy, overlapped or not
  double staging_s = 0;       // per step: of allreduce_s, host<->device copies of a staged strategy
  double exposed_comm_share = 0;  // exposed_comm_s / mean step time
  double first_loss = 0, last_loss = 0;               // mean over workers
  std::size_t gradient_bytes = 0, buckets_per_step = 0;
  // The strategy's traffic per step and worker, the mean over workers; the
  // record's "traffic", not in "results".
  double bytes_sent_per_step = 0, bytes_received_per_step = 0;
  // What a worker holds of the model's state, the largest over workers
  // (shards differ by an element); the record's "memory".
  WorkerMemory memory;
  // Across workers at the end; nullopt when no check ran.
  std::optional<bool> parameters_identical;
  std::string mismatch;
  // The run's first disturbance (TrainOutcome::disturbance), empty when none;
  // the record's top-level "disturbed", so not in "results" below.
  std::string disturbance;
  // The loss or a parameter stopped being finite (TrainOutcome::nonfinite_failure),
  // empty when not; the record's top-level "nonfinite".
  std::string nonfinite_failure;
  // With --target-loss: when the smoothed loss reached it (time_to_target.h);
  // the record's "results.time_to_target", added by train_record.
  std::optional<TimeToTarget> time_to_target;
  // The servers owned the parameters (TrainOutcome::at_own_pace): each worker's
  // gradient steps, by worker; empty otherwise. Train's record puts them in
  // "ps_async" beside what the shards applied.
  std::vector<std::uint64_t> worker_gradient_steps;
  // With an active input stage; the record's "input", not in "results".
  std::optional<InputSummary> input;
  // --fusion-mb auto: what the search did (the same on every worker); the
  // record's "sync.fusion_search", added by train_record.
  std::optional<FusionSearchOutcome> fusion_search;
};

// What a bandwidth-optimal allreduce of the step's gradients sends from each
// worker: 2 (p-1)/p of them. The yardstick records put the strategy's own
// traffic beside (a sharded strategy's reduce-scatter and all-gather move it).
double allreduce_bytes_per_step(const TrainSummary& summary);

// Collective over `workers`: every worker passes its own outcome.
TrainSummary summarize(const TrainOutcome& outcome, const TrainSettings& settings,
                       const World& workers);

// The JSON form of a time to target ("results.time_to_target" of a train
// record): seconds and samples are null when the target was not reached,
// and smoothed_loss is then the last one (how far the loss got).
nlohmann::json to_json(const TimeToTarget& t);
// The same read back; null or absent (`json` null): none. Throws
// nlohmann::json's exception when a field is missing or of the wrong type.
std::optional<TimeToTarget> time_to_target_from_json(const nlohmann::json& json);

// Value at quantile q (0..1) of `values`, nearest rank; values need not be sorted.
double percentile(std::vector<double> values, double q);

// The JSON form, field for field (the "results" object of a train record).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TrainSummary, workers, batch_size, img_sec_per_worker,
                                   img_sec_mean, img_sec_conf, step_mean_s, step_median_s,
                                   step_p90_s, step_p99_s, timed_steps, compute_s, exposed_comm_s,
                                   allreduce_s, staging_s, exposed_comm_share, first_loss, last_loss,
                                   gradient_bytes, buckets_per_step, mismatch)

// The "results" object of a train record: the fields above, and
// "parameters_checked" with "parameters_identical" (null when not checked).
nlohmann::json results_json(const TrainSummary& summary);

// The record's "input" object (spec, threads, prefetch, loader_s_per_image,
// loader_s_per_batch, capacity_img_sec, wait_s, wait_share), for measured
// and simulated records alike.
nlohmann::json input_json(const InputSummary& input);

}  // namespace gradsync
