#include "harness/cli/sweep_ledger.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <stdexcept>

#include "harness/cli/run_config.h"
#include "harness/cli/train_command.h"
#include "harness/results/result_file.h"
#include "harness/results/run_context.h"
#include "harness/sim/json_whole.h"

namespace gradsync {

std::string train_config_digest(const std::vector<std::string>& train_argv) {
  // The same command line as main builds, parsed the same way: the digest is
  // then the one every rank of that run computes and records.
  CLI::App app{"gradsync", "gradsync"};
  app.option_defaults()->always_capture_default();
  TrainFlags flags;
  StrategyOptions strategy_options;
  CLI::App* train = add_train_command(app, flags, strategy_options);
  std::vector<std::string> reversed(train_argv.rbegin(), train_argv.rend());  // CLI11's order
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw std::invalid_argument(e.what());
  }
  return agreed_config(effective_options(*train)).digest;
}

std::string configuration_key(const std::string& config_digest, int ranks) {
  return fmt::format("{} on {} ranks", config_digest, ranks);
}

std::map<std::string, std::string> done_configurations(const std::filesystem::path& records,
                                                       std::vector<std::string>& warnings) {
  if (!std::filesystem::exists(records)) return {};
  ReadOutcome outcome = read_results_tolerant({records.string()});
  warnings.insert(warnings.end(), outcome.bad_lines.begin(), outcome.bad_lines.end());
  return done_configurations(outcome.records);
}

std::map<std::string, std::string> done_configurations(std::span<const StoredRecord> records) {
  std::map<std::string, std::string> done;
  for (const StoredRecord& record : records) {
    const nlohmann::json& v = record.value;
    if (v.value("kind", "") != "train" || !v.contains("context") || !v.contains("ranks")) continue;
    const std::string digest = v["context"].value("config_digest", "");
    if (digest.empty() || !v["ranks"].is_number_integer()) continue;
    done.emplace(configuration_key(digest, v["ranks"].get<int>()), record.origin);
  }
  return done;
}

nlohmann::json sweep_attempt_record(const SweepAttempt& a) {
  nlohmann::json record = new_record("sweep");
  record["model"] = a.model;
  record["compute"] = a.compute;
  record["strategy"] = a.strategy;
  record["workers"] = a.workers;
  record["ranks"] = a.ranks;
  record["config_digest"] = a.config_digest;
  record["status"] = a.status;
  record["exit_status"] = a.exit_status;
  record["reason"] = a.reason;
  record["log"] = a.log;
  record["seconds"] = a.seconds;
  record["launcher"] = a.launcher;
  if (!a.slurm_job.empty()) record["slurm_job"] = a.slurm_job;
  if (!a.rank_hosts.empty()) record["rank_hosts"] = a.rank_hosts;
  record["command"] = a.command;
  if (!a.input.empty() && a.input != "synthetic") record["input"] = a.input;
  if (!a.fusion_mb.empty()) record["fusion_mb"] = a.fusion_mb;
  record["timestamp"] = utc_now();
  return record;
}

std::vector<std::string> failed_configurations(const std::vector<nlohmann::json>& sweep_records) {
  // The last attempt of each configuration, in first-seen order.
  std::vector<std::string> order;
  std::map<std::string, const nlohmann::json*> last;
  for (const nlohmann::json& v : sweep_records) {
    const std::string key =
        configuration_key(v.value("config_digest", ""), whole_number_or(v, "ranks", 0));
    if (!last.count(key)) order.push_back(key);
    last[key] = &v;
  }
  std::vector<std::string> failed;
  for (const std::string& key : order) {
    const nlohmann::json& v = *last[key];
    if (v.value("status", "") != "failed") continue;
    const std::string input = v.value("input", "");
    const std::string fusion = v.value("fusion_mb", "");
    failed.push_back(fmt::format(
        "{} {} {} x{}{}{}: exit {}: {}", v.value("model", "?"), v.value("compute", "?"),
        v.value("strategy", "?"), whole_number_or(v, "workers", 0),
        input.empty() ? "" : " input " + input, fusion.empty() ? "" : " fusion " + fusion,
        whole_number_or(v, "exit_status", 0), v.value("reason", "")));
  }
  return failed;
}

}  // namespace gradsync
