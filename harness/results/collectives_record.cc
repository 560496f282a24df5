#include "harness/results/collectives_record.h"

#include <cstdlib>

#include "harness/results/cluster_record.h"
#include "harness/results/result_file.h"
#include "harness/results/strategy_options_json.h"
#include "harness/sim/json_whole.h"
#include "strategies/core/engine.h"

namespace gradsync {

std::vector<std::string> StrategyOutcome::wrong_sizes() const {
  std::vector<std::string> out;
  for (const auto& row : rows)
    if (row.wrong_elements.value_or(0) > 0)
      out.push_back(std::to_string(row.size_bytes) + " B (" + std::to_string(*row.wrong_elements) +
                    " wrong)");
  return out;
}

std::string StrategyOutcome::first_disturbance() const {
  for (const auto& row : rows)
    if (!row.disturbance.empty()) return row.disturbance;
  return "";
}

std::string wrong_results_message(std::span<const StrategyOutcome> outcomes) {
  std::string message;
  for (const auto& outcome : outcomes) {
    const auto sizes = outcome.wrong_sizes();
    if (!sizes.empty()) {
      message += message.empty() ? "wrong allreduce results: " : "; ";
      message += outcome.strategy + " with " + std::to_string(outcome.workers) + " workers at ";
      for (std::size_t i = 0; i < sizes.size(); ++i) message += (i ? ", " : "") + sizes[i];
    }
    if (!outcome.account.failure.empty())
      message += (message.empty() ? "" : "; ") + outcome.strategy + ": " + outcome.account.failure;
  }
  return message;
}

nlohmann::json to_json(const SizeResult& row) {
  // The keys keep their names: "wrong" holds wrong_elements, "disturbed" disturbance.
  return {
      {"size_bytes", row.size_bytes},
      {"count", row.count},
      {"time_us", row.time_us},
      {"algbw_gbps", row.algbw_gbps},
      {"busbw_gbps", row.busbw_gbps},
      {"wrong", row.wrong_elements ? nlohmann::json(*row.wrong_elements) : nlohmann::json()},
      {"staging_us", row.staging_us ? nlohmann::json(*row.staging_us) : nlohmann::json()},
      {"disturbed", row.disturbance.empty() ? nlohmann::json() : nlohmann::json(row.disturbance)},
      {"path", row.path.empty() ? nlohmann::json() : nlohmann::json(row.path)},
  };
}

SizeResult size_result_from_json(const nlohmann::json& row) {
  SizeResult out;
  out.size_bytes = whole_number<std::uint64_t>(row.at("size_bytes"));
  out.count = whole_number<std::uint64_t>(row.at("count"));
  out.time_us = row.at("time_us").get<double>();
  out.algbw_gbps = row.at("algbw_gbps").get<double>();
  out.busbw_gbps = row.at("busbw_gbps").get<double>();
  // "wrong" and "disturbed" keep their names (to_json above).
  if (!row.at("wrong").is_null()) out.wrong_elements = whole_number<std::uint64_t>(row.at("wrong"));
  // Records written before device buffers existed have no staging_us.
  if (row.contains("staging_us") && !row["staging_us"].is_null())
    out.staging_us = row["staging_us"].get<double>();
  // Nor do records written before disturbed runs were told apart.
  if (row.contains("disturbed") && !row["disturbed"].is_null())
    out.disturbance = row["disturbed"].get<std::string>();
  // Nor path, before the MPI strategies had a latency path.
  if (row.contains("path") && !row["path"].is_null()) out.path = row["path"].get<std::string>();
  return out;
}

namespace {

// A run on a simulated engine (SMPI) is a prediction, as the cost model's
// records are: `simulated` true, and `engine` names the engine, its version
// and the platform the launcher wrote (cli/smpi_launch.h), which it passes
// in GRADSYNC_SMPI_PLATFORM.
void add_engine(nlohmann::json& record) {
  const EngineInfo engine = engine_info();
  if (!engine.simulated) return;
  record["simulated"] = true;
  nlohmann::json described = {{"name", engine.name}, {"version", engine.version}};
  if (const char* platform = std::getenv("GRADSYNC_SMPI_PLATFORM"))
    described["platform"] = nlohmann::json::parse(platform, nullptr, false);
  const SimulatedData data = simulated_data();
  described["shared_buffers"] = data.shared_buffers;
  described["reduce_bytes_per_s"] = data.reduce_bytes_per_s;
  record["engine"] = described;
}

}  // namespace

nlohmann::json collectives_record(const StrategyOutcome& outcome,
                                  const CollectivesRecordInputs& in) {
  nlohmann::json record = new_record("collectives");
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < outcome.rows.size(); ++i) {
    rows.push_back(to_json(outcome.rows[i]));
    if (i < outcome.wire.size()) rows.back()["wire"] = to_json(outcome.wire[i]);
  }
  nlohmann::json worker_ranks = nlohmann::json::array(), server_ranks = nlohmann::json::array();
  nlohmann::json per_rank = nlohmann::json::array();
  std::uint64_t sent = 0, received = 0;
  for (const auto& r : outcome.ranks) {
    (r.is_worker ? worker_ranks : server_ranks).push_back(r.rank);
    per_rank.push_back({{"rank", r.rank},
                        {"role", r.is_worker ? "worker" : "server"},
                        {"bytes_sent", r.traffic.bytes_sent},
                        {"bytes_received", r.traffic.bytes_received}});
    sent += r.traffic.bytes_sent;
    received += r.traffic.bytes_received;
  }
  nlohmann::json context = to_json(in.context);
  context["iters"] = in.settings.iters;
  context["warmup"] = in.settings.warmup_iters;
  context["check"] = in.settings.check_passes;  // the key keeps its name (-c/--check)
  record["strategy"] = outcome.strategy;
  record["strategy_options"] = to_json(in.strategy_options);
  record.update(outcome.account.fields);
  record["op"] = std::string(kBenchOp);
  record["datatype"] = std::string(kBenchDatatype);
  record["workers"] = outcome.workers;
  record["memory"] = std::string(to_string(outcome.memory));
  record["ranks"] = outcome.ranks.size();
  record["placement"] = {{"worker_ranks", worker_ranks}, {"server_ranks", server_ranks}};
  record["rows"] = rows;
  record["traffic"] = {{"per_rank", per_rank}, {"bytes_sent", sent}, {"bytes_received", received}};
  // Unchecked (-c 0): neither correct nor wrong. Disturbed (a rank stalled):
  // not to be trusted, whatever the sums.
  const std::string disturbance = outcome.first_disturbance();  // the key keeps "disturbed"
  record["correct"] = !disturbance.empty() || !outcome.account.failure.empty()
                          ? nlohmann::json(false)
                      : in.settings.check_passes > 0 ? nlohmann::json(outcome.wrong_sizes().empty())
                                                     : nlohmann::json();
  record["disturbed"] = disturbance.empty() ? nlohmann::json() : nlohmann::json(disturbance);
  record["context"] = context;
  if (in.cluster) record["cluster"] = cluster_json(*in.cluster, in.context.hostnames, std::nullopt);
  add_engine(record);
  return record;
}

}  // namespace gradsync
