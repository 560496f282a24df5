#include "harness/results/train_record.h"

#include <fmt/core.h>

#include "harness/results/cluster_record.h"
#include "harness/results/result_file.h"

namespace gradsync {

namespace {

// The record's "traffic" (results/README.md).
void add_traffic(const TrainSummary& summary, nlohmann::json& record) {
  record["traffic"] = {{"bytes_sent_per_step", summary.bytes_sent_per_step},
                       {"bytes_received_per_step", summary.bytes_received_per_step},
                       {"allreduce_bytes_per_step", allreduce_bytes_per_step(summary)}};
}

}  // namespace

nlohmann::json memory_json(const WorkerMemory& held) {
  return {{"parameters_bytes", held.parameters_bytes},
          {"gradients_bytes", held.gradients_bytes},
          {"optimizer_bytes", held.optimizer_bytes},
          {"gathered_bytes", held.gathered_bytes},
          {"total_bytes", held.total_bytes()}};
}

void add_sequence_length(const std::string& model, int sequence_length, nlohmann::json& record) {
  if (const ModelInfo info = describe_model(model, sequence_length); info.sequence_length > 0)
    record["sequence_length"] = info.sequence_length;
}

nlohmann::json train_record(const TrainPlan& plan, const nlohmann::json& strategy_options,
                            const TrainSummary& summary, int ranks, const RunContext& context,
                            const GpuChoice& gpu, const TrainOnCluster* on_cluster) {
  const TrainSettings& s = plan.settings;
  const ModelOptions& m = s.model_options;
  nlohmann::json record = new_record("train");
  record["strategy"] = plan.strategy->name;
  record["strategy_options"] = strategy_options;
  record["model"] = s.model;
  add_sequence_length(s.model, m.sequence_length, record);
  record["compute"] = to_string(m.compute);
  record["precision"] =
      m.compute == ComputeMode::cuda ? nlohmann::json(to_string(m.precision)) : nlohmann::json();
  record["gpu"] = gpu.name.empty() ? nlohmann::json() : nlohmann::json(gpu.name);
  // Only when a GPU was used: CPU runs' records stay as they were.
  if (!gpu.placement.empty())
    record["gpu_placement"] = {{"ordinal", gpu.ordinal}, {"source", gpu.placement}};
  record["device_profile"] = m.compute == ComputeMode::emulated
                                 ? nlohmann::json{{"name", m.profile.name},
                                                  {"flops_per_second", m.profile.flops_per_second},
                                                  {"emulate_img_per_sec", m.emulate_img_per_sec},
                                                  {"implied_img_sec", implied_img_per_sec(s)}}
                                 : nlohmann::json();
  record["batch_size"] = s.batch_size;
  record["workers"] = summary.workers;
  record["ranks"] = ranks;
  // fusion_mb: the threshold of the timed steps (auto: the one chosen).
  record["sync"] = {{"fusion_mb", summary.fusion_search ? summary.fusion_search->search.chosen_mb
                                                        : s.sync.fusion_mb},
                    {"overlap", s.sync.overlap},
                    {"order", to_string(s.sync.order)}};
  if (const auto& search = summary.fusion_search) {
    nlohmann::json& out = record["sync"]["fusion_search"] = to_json(search->search);
    out["steps"] = search->steps;
    if (!search->skip_reason.empty())
      out["skipped"] = search->skip_reason;  // the key keeps its name
  }
  // The optimizer's settings under its rule's name: "sgd" or "adamw".
  const OptimizerOptions& o = s.optimizer;
  nlohmann::json rule = {{"base_lr", o.base_lr}};
  if (o.rule == UpdateRule::adamw)
    rule.update({{"beta1", o.beta1}, {"beta2", o.beta2}, {"eps", o.eps}});
  else
    rule["momentum"] = o.momentum;
  rule.update({{"weight_decay", o.weight_decay}, {"warmup_steps", o.warmup_steps}});
  record["optimizer"] = to_string(o.rule);
  record[to_string(o.rule)] = rule;
  record["schedule"] = {{"warmup_batches", s.warmup_batches},
                        {"batches_per_iter", s.batches_per_iter},
                        {"iters", s.iters}};
  record["time_scale"] = m.time_scale;
  record["results"] = results_json(summary);
  record["results"]["represented_img_sec_mean"] = summary.img_sec_mean * m.time_scale;
  record["results"]["represented_img_sec_conf"] = summary.img_sec_conf * m.time_scale;
  if (summary.time_to_target) record["results"]["time_to_target"] = to_json(*summary.time_to_target);
  add_traffic(summary, record);
  record["memory"] = memory_json(summary.memory);
  // Only with an active input stage: synthetic runs' records stay as before.
  if (summary.input) record["input"] = input_json(*summary.input);
  record["straggler"] = s.straggler.rank < 0 ? nlohmann::json()
                                             : nlohmann::json{{"rank", s.straggler.rank},
                                                              {"factor", s.straggler.factor}};
  // Disturbed (a rank stalled, or a step outlasted --timeout): not to be
  // trusted, whatever the parameters.
  // Not finite: the figures are of a diverged run.
  record["correct"] = !summary.disturbance.empty() || !summary.nonfinite_failure.empty()
                          ? nlohmann::json(false)
                      : summary.parameters_identical ? nlohmann::json(*summary.parameters_identical)
                                                     : nlohmann::json();
  // The keys keep their names: "disturbed" holds disturbance, "nonfinite" nonfinite_failure.
  record["disturbed"] =
      summary.disturbance.empty() ? nlohmann::json() : nlohmann::json(summary.disturbance);
  if (!summary.nonfinite_failure.empty()) record["nonfinite"] = summary.nonfinite_failure;
  record["context"] = to_json(context);
  if (on_cluster) {
    record["cluster"] = cluster_json(on_cluster->cluster, context.hostnames, m.time_scale);
    record["wire"] = to_json(on_cluster->wire);
  }
  return record;
}

nlohmann::json to_json(const FusionSearchResult& search) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const FusionCandidate& c : search.candidates)
    candidates.push_back({{"mb", c.mb}, {"step_s", c.step_s}});
  return {{"chosen_mb", search.chosen_mb}, {"candidates", candidates}};
}

nlohmann::json timeline_info(const TrainPlan& plan, int workers,
                             std::span<const std::string> command_line) {
  const TrainSettings& s = plan.settings;
  std::string command;
  for (const auto& word : command_line) command += (command.empty() ? "" : " ") + word;
  return {{"model", s.model},
          {"compute", to_string(s.model_options.compute)},
          {"strategy", plan.strategy->name},
          {"fusion_mb", s.sync.fusion_mb},
          {"overlap", s.sync.overlap},
          {"sync_order", to_string(s.sync.order)},
          {"batch_size", s.batch_size},
          {"workers", workers},
          {"warmup_batches", s.warmup_batches},
          {"traced_steps", plan.timeline_steps == 0
                               ? "all, warm-up included"
                               : fmt::format("the first {} after warm-up", plan.timeline_steps)},
          {"time_origin", "ts is microseconds since a barrier after the parameter broadcast"},
          {"threads",
           fmt::format("tid {}: compute (main) thread, tid {}: communication thread, tid {} on: "
                       "input loader threads (train --input)",
                       kComputeThread, kCommunicationThread, kFirstLoaderThread)},
          {"command", command}};
}

}  // namespace gradsync
