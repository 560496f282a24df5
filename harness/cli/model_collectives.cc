#include "harness/cli/model_collectives.h"

#include <cstdio>

#include "harness/engine/collectives.h"
#include "harness/results/collectives_record.h"
#include "harness/results/collectives_table.h"
#include "harness/results/result_file.h"
#include "harness/results/run_context.h"
#include "harness/sim/strategy_cost.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

// One strategy's rows: each size's allreduce as the model costs it.
StrategyOutcome costed_outcome(const sim::BucketCoster& coster, const StrategyInfo& strategy,
                               const CollectivesPlan& plan, int workers) {
  StrategyOutcome outcome;
  outcome.strategy = std::string(strategy.name);
  outcome.workers = workers;
  for (const std::uint64_t bytes : plan.sizes) {
    SizeResult row;
    row.size_bytes = bytes;
    row.count = bytes / sizeof(float);
    const double seconds = coster.seconds(static_cast<double>(bytes));
    row.time_us = seconds * 1e6;
    row.algbw_gbps = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
    row.busbw_gbps = row.algbw_gbps * bus_factor(workers);
    outcome.rows.push_back(row);
  }
  return outcome;
}

// Where `ranks` ranks run, as SMPI's hostfile places them (smpi_hostfile:
// `per_node` to a node, in rank order): dedicated parameter-server ranks
// come first, so they fill the first nodes, and the workers the rest. (With
// servers that do not fill whole nodes SMPI puts workers on the last
// server node; the model gives the servers whole nodes.)
WorkerPlacement placement_of(const StrategyInfo& strategy, const StrategyOptions& options,
                             int ranks, int per_node) {
  const int servers = strategy.dedicated_servers ? strategy.dedicated_servers(options) : 0;
  const int workers = ranks - servers;
  const int server_nodes = (servers + per_node - 1) / per_node;
  return {workers, std::min(workers, per_node), server_nodes};
}

}  // namespace

int run_collectives_on_model(const CollectivesOptions& options,
                             const StrategyOptions& strategy_options,
                             std::span<const std::string> command_line) {
  check_simulated_job(options);
  const sim::ClusterModel cluster = sim::read_cluster_model(options.cluster_file);
  const CollectivesPlan plan = plan_collectives(options, strategy_options, options.workers);
  const RunContext context = simulation_context(command_line);
  const BenchSettings settings{0, 0, 0};  // nothing ran, nothing was checked
  std::string out = collectives_table_header(false);
  for (const StrategyInfo* strategy : plan.strategies) {
    const WorkerPlacement placement = placement_of(*strategy, strategy_options, options.workers,
                                                   cluster.workers_per_node);
    const sim::BucketCoster coster(cluster, *strategy, strategy_options, placement);
    const StrategyOutcome outcome = costed_outcome(coster, *strategy, plan, placement.workers);
    out += collectives_table_rows(outcome, false);
    if (options.json_path.empty()) continue;
    nlohmann::json record = collectives_record(outcome, {settings, strategy_options, context});
    record["simulated"] = true;
    record["engine"] = {{"name", "model"},
                        {"costed_as", coster.costed_as()},
                        {"platform",
                         {{"cluster_name", cluster.name},
                          {"cluster_file", options.cluster_file},
                          {"nodes", placement.nodes() + placement.server_hosts},
                          {"workers_per_node", placement.workers_per_node}}}};
    append_record(options.json_path, record);
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace gradsync
