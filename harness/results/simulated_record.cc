#include "harness/results/simulated_record.h"

#include "harness/engine/train_plan.h"
#include "harness/results/result_file.h"
#include "harness/results/sha256.h"
#include "harness/results/strategy_options_json.h"
#include "harness/results/train_record.h"
#include "harness/results/train_summary.h"

namespace gradsync {
namespace {

// The band the cluster's validation puts around this projection
// (harness/sim/validation.h), or null when the strategy has none.
nlohmann::json band_json(const sim::Band& b) {
  if (!b.validated) return nullptr;
  return {{"low", b.low},
          {"high", b.high},
          {"beyond_validation", b.beyond_validation},
          {"validated_workers", b.entry->worker_counts},
          {"calibrated_workers", b.entry->calibrated_workers},
          {"median_abs_error", b.entry->median_abs_error},
          {"against", b.entry->against},
          {"text", b.text()}};
}

// The train summary a measured run of the case would carry: one timed step,
// the predicted one, and the input stage as train measures it.
TrainSummary simulated_summary(const SimulatedRun& s) {
  const sim::SimulationCase& c = s.run;
  const sim::StepPrediction& step = s.result.step;
  TrainSummary summary;
  summary.workers = c.placement.workers;
  summary.batch_size = c.batch;
  summary.img_sec_mean = s.result.img_sec_per_worker;
  summary.img_sec_per_worker = {summary.img_sec_mean};
  summary.step_mean_s = summary.step_median_s = summary.step_p90_s = summary.step_p99_s =
      step.step_s;
  summary.timed_steps = 1;
  summary.compute_s = step.forward_s + step.backward_s;
  summary.exposed_comm_s = step.exposed_comm_s;
  summary.allreduce_s = step.allreduce_s;
  summary.exposed_comm_share = step.exposed_comm_s / step.step_s;
  summary.gradient_bytes = std::size_t(step.gradient_bytes);
  summary.buckets_per_step = step.buckets.size();
  summary.memory = s.result.memory;
  if (c.input.active()) {
    // As train measures them: a loader thread's time per image (here the
    // stated cost over the core share it gets) and the capacity it gives,
    // threads / that time (= batch / batch time).
    const double per_image =
        s.result.input.batch_s * c.input.spec.threads / static_cast<double>(c.batch);
    summary.input = InputSummary{c.input.spec,           per_image,
                                 s.result.input.batch_s, c.input.spec.threads / per_image,
                                 s.result.input.wait_s,  s.result.input.wait_s / step.step_s};
  }
  return summary;
}

// The record's "simulation" object: what produced the projection.
nlohmann::json simulation_json(const SimulatedRun& s) {
  const sim::SimulationCase& c = s.run;
  const sim::StepPrediction& step = s.result.step;
  nlohmann::json buckets = nlohmann::json::array();
  for (const auto& b : step.buckets)
    buckets.push_back(
        {{"bytes", b.bytes}, {"ready_s", b.ready_s}, {"start_s", b.start_s}, {"end_s", b.end_s}});
  // The cluster by name, file and digest, not the description itself: a
  // description can be large (a long "description", many fits), and a sweep
  // of projections would carry it in every record.
  return {{"cluster_name", s.cluster.name},
          {"cluster_file", s.cluster_file},
          {"cluster_sha256", sha256_hex(sim::to_json(s.cluster).dump())},
          {"setup", s.twin ? nlohmann::json(nullptr) : nlohmann::json(s.setup)},
          {"placement",
           {{"workers", c.placement.workers},
            {"workers_per_node", c.placement.workers_per_node},
            {"nodes", c.placement.nodes()},
            {"server_hosts", c.placement.server_hosts}}},
          {"costed_as", s.result.costed_as},
          {"compute", s.result.compute_source},
          {"optimizer_s", step.optimizer_s},
          {"link_bytes_per_step", s.result.link_bytes_per_step
                                      ? nlohmann::json(*s.result.link_bytes_per_step)
                                      : nlohmann::json()},
          {"buckets", buckets},
          {"twin_of", s.twin ? nlohmann::json(s.twin->origin) : nlohmann::json(nullptr)},
          {"band", band_json(sim::band_for(s.cluster.validation, std::string(c.strategy->name),
                                           c.placement.workers))}};
}

// A --validate twin stands beside its measured record: its fusion search
// (so that reports pair the two under one label, "... fusion auto"), its
// cluster and its hosts.
void take_from_twin(nlohmann::json& record, const nlohmann::json& twin) {
  if (const auto sync = twin.find("sync");
      sync != twin.end() && sync->is_object() && sync->contains("fusion_search"))
    record["sync"]["fusion_search"] = sync->at("fusion_search");
  if (twin.contains("cluster")) record["cluster"] = twin.at("cluster");
  record["context"]["hosts"] = twin.at("context").at("hosts");
  record["context"]["hostnames"] = twin.at("context").at("hostnames");
}

}  // namespace

nlohmann::json simulated_record(const SimulatedRun& s, const RunContext& context) {
  const sim::SimulationCase& c = s.run;
  nlohmann::json record = new_record("train");
  record["simulated"] = true;
  record["strategy"] = c.strategy->name;
  record["strategy_options"] = to_json(c.options);
  record["model"] = c.model;
  add_sequence_length(c.model, c.sequence_length, record);
  record["compute"] = "emulated";
  record["precision"] = nullptr;
  record["gpu"] = nullptr;
  record["device_profile"] = {{"name", c.device_profile},
                              {"flops_per_second", c.flops_per_second},
                              {"emulate_img_per_sec", c.emulate_img_per_sec}};
  record["batch_size"] = c.batch;
  record["optimizer"] = to_string(c.optimizer);
  record["workers"] = c.placement.workers;
  record["ranks"] = job_ranks(*c.strategy, c.options, c.placement.workers);
  record["sync"] = {
      {"fusion_mb", s.result.fusion_mb}, {"overlap", c.overlap}, {"order", to_string(c.order)}};
  if (s.result.fusion_search) record["sync"]["fusion_search"] = to_json(*s.result.fusion_search);
  record["schedule"] = {
      {"warmup_batches", 0}, {"batches_per_iter", c.steps_per_iteration}, {"iters", 1}};
  record["time_scale"] = c.time_scale;
  const TrainSummary summary = simulated_summary(s);
  if (summary.input) record["input"] = input_json(*summary.input);
  record["results"] = results_json(summary);
  record["results"]["represented_img_sec_mean"] = summary.img_sec_mean * c.time_scale;
  record["results"]["represented_img_sec_conf"] = 0.0;
  record["memory"] = memory_json(summary.memory);
  record["correct"] = nullptr;
  record["context"] = to_json(context);
  record["simulation"] = simulation_json(s);
  if (s.twin) take_from_twin(record, s.twin->value);
  return record;
}

}  // namespace gradsync
