#include "harness/cli/collectives_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "harness/cli/number_flag.h"
#include "harness/cli/size_flag.h"
#include "harness/cli/strategy_flags.h"
#include "harness/engine/agreement.h"
#include "harness/engine/cluster_join.h"
#include "harness/engine/errors.h"
#include "harness/results/cluster_record.h"
#include "harness/results/collectives_record.h"
#include "harness/results/collectives_table.h"
#include "harness/results/result_file.h"
#include "harness/results/run_context.h"
#include "strategies/core/engine.h"
#include "strategies/core/local_gpu.h"
#include "strategies/core/smpi_allreduce_choice.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

void print(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

// "# gradsync collectives: allreduce, minBytes ... validation ...", the MPI
// library that mpi-allreduce measures and every strategy bootstraps over,
// and a "#  Rank  0 Pid 1234 on host" line per world rank, as nccl-tests
// starts.
std::string preamble(const CollectivesOptions& options, std::span<const std::string> pids,
                     std::span<const std::string> hostnames, const std::string& mpi_library) {
  const std::string step = options.step_factor > 1 ? fmt::format("{}(factor)", options.step_factor)
                                                   : fmt::format("{}(bytes)", options.step_bytes);
  std::string out = fmt::format(
      "# gradsync collectives: allreduce, minBytes {} maxBytes {} step: {} warmup iters: {} "
      "iters: {} validation: {} ranks: {}\n# MPI library: {}\n#\n",
      options.min_bytes, options.max_bytes, step, options.warmup_iters, options.iters,
      options.check_passes, pids.size(), mpi_library);
  for (std::size_t rank = 0; rank < pids.size(); ++rank)
    out += fmt::format("#  Rank {:>2} Pid {:>6} on {:>10}\n", rank, pids[rank], hostnames[rank]);
  return out + "#\n";
}

// What one rank knows after a strategy ran, as JSON for the allgather.
nlohmann::json rank_report(Strategy& strategy, std::span<const std::uint64_t> sizes,
                           const BenchSettings& settings) {
  nlohmann::json mine = {{"worker", strategy.is_worker()}};
  if (strategy.is_worker()) {
    auto rows = benchmark_allreduce(strategy, sizes, settings);
    mine["workers"] = strategy.peers().size();
    if (settings.wire) {
      mine["wire"] = nlohmann::json::array();
      for (const auto& row : rows) mine["wire"].push_back(wire_sample_json(row.own_wire));
    }
    if (strategy.peers().rank() == 0) {
      mine["rows"] = nlohmann::json::array();
      for (const auto& row : rows) mine["rows"].push_back(to_json(row));
    }
  } else {
    strategy.serve();
  }
  const Traffic traffic = strategy.traffic();
  mine["account"] = strategy.account();
  mine["bytes_sent"] = traffic.bytes_sent;
  mine["bytes_received"] = traffic.bytes_received;
  return mine;
}

// Wire truth of each size, from every rank's report: the workers' samples
// (ranks that only serve took none).
std::vector<WireTruth> wire_per_size(const std::vector<nlohmann::json>& reports,
                                     const std::vector<std::string>& hostnames, std::size_t sizes,
                                     int iters) {
  std::vector<std::vector<std::optional<WireSample>>> samples(
      sizes, std::vector<std::optional<WireSample>>(reports.size()));
  for (std::size_t rank = 0; rank < reports.size(); ++rank) {
    const nlohmann::json& report = reports[rank];
    if (!report.contains("wire")) continue;
    for (std::size_t i = 0; i < sizes; ++i)
      samples[i][rank] = wire_sample_from_json(report["wire"].at(i));
  }
  std::vector<WireTruth> wire;
  for (const auto& by_rank : samples)
    wire.push_back({"allreduce", iters, wire_by_host(hostnames, by_rank)});
  return wire;
}

}  // namespace

CLI::App* add_collectives_command(CLI::App& app, CollectivesOptions& options,
                                  StrategyOptions& strategy_options) {
  auto* cmd = app.add_subcommand(
      "collectives", "Allreduce benchmark over strategies, with nccl-tests' flags and columns");
  add_size_flag(*cmd, "-b,--minbytes", options.min_bytes, "smallest message size");
  add_size_flag(*cmd, "-e,--maxbytes", options.max_bytes, "largest message size");
  auto* step = add_size_flag(*cmd, "-i,--stepbytes", options.step_bytes,
                             "increment between sizes, when -f is 1");
  cmd->add_option("-f,--stepfactor", options.step_factor,
                  "multiply the size by this between sizes (above 1; 1: step by -i)")
      ->excludes(step);
  cmd->add_option("-n,--iters", options.iters, "timed iterations per size");
  cmd->add_option("-w,--warmup_iters", options.warmup_iters, "untimed iterations before them");
  cmd->add_option("-c,--check", options.check_passes,
                  "correctness passes per size on inputs with exact sums (0: no check)");
  cmd->add_option("-d,--datatype", options.datatype, "element type (float only)");
  cmd->add_option("-o,--op", options.op, "reduction (sum only)");
  cmd->add_option("--strategy", options.strategies,
                  "comma-separated strategies to run, in order (see `gradsync strategies`)");
  cmd->add_option("--memory", options.memory,
                  "where the buffers live: host, device (this rank's GPU; host strategies are "
                  "staged through pinned memory, the copies shown as stage(us)), or auto (device "
                  "for the strategies that reduce device memory only, host for the rest)")
      ->type_name("auto|host|device");
  cmd->add_option("--json", options.json_path,
                  "append one result record per strategy to this JSON Lines file")
      ->type_name("FILE");
  cmd->add_option("--engine", options.engine,
                  "native: run here, under mpirun; smpi: run the SMPI build under SimGrid's "
                  "smpirun, --workers ranks on a platform written from --cluster; model: the "
                  "cost model's time for --workers on --cluster")
      ->check(CLI::IsMember({"native", "smpi", "model"}));
  cmd->add_option("--cluster", options.cluster_file,
                  "with --engine smpi or model: the cluster file (gradsync.cluster)")
      ->type_name("FILE");
  // Up to ten million ranks, as simulate's --workers (0: not given).
  cmd->add_option("--workers", options.workers, "with --engine smpi or model: ranks to simulate")
      ->check(number_rule({"--workers", true, 0, 1e7, ""}));
  cmd->add_option("--topology", options.topology.kind,
                  "with --engine smpi: switch (one non-blocking switch) or fat-tree (two levels)")
      ->type_name("switch|fat-tree");
  cmd->add_option("--hosts-per-leaf", options.topology.hosts_per_leaf,
                  "fat-tree: nodes per leaf switch (0: 16, or all nodes when fewer)");
  cmd->add_option("--oversubscription", options.topology.oversubscription,
                  "fat-tree: a leaf's downlinks over its uplinks (1: non-blocking)");
  cmd->add_option("--mtu", options.topology.mtu,
                  "with --engine smpi: the links' MTU, for TCP's framing share of the line rate "
                  "(unless the cluster file states achieved_fraction)");
  cmd->add_option("--selector", options.selector,
                  "with --engine smpi: whose algorithm choice mpi-allreduce follows, as SimGrid "
                  "implements it: ompi (Open MPI's), mpich (MPICH's), or one of SimGrid's "
                  "allreduce algorithms (rab_rdb, rdb, lr, redbcast, ...) for every size")
      ->type_name("ompi|mpich|ALGORITHM")
      ->check([](const std::string& name) {
        return is_smpi_allreduce_selector(name)
                   ? std::string()
                   : "not ompi, mpich or one of SimGrid's allreduce algorithms (" +
                         fmt::format("{}", fmt::join(smpi_allreduce_algorithms(), ", ")) + ")";
      });
  cmd->add_option(
         "--smpi-binary", options.smpi_binary,
         "with --engine smpi: the SMPI build's gradsync (default: build-smpi/bin/gradsync)")
      ->type_name("PATH");
  cmd->add_option("--platform-dir", options.platform_dir,
                  "with --engine smpi: write platform.xml and hostfile here and keep them")
      ->type_name("DIR");
  cmd->add_flag("--shared-buffers", options.shared_buffers,
                "under SMPI: buffers of 64 KiB and more shared by every simulated rank, so that "
                "memory does not grow with ranks (their data is meaningless: needs -c 0)");
  cmd->add_option("--reduce-rate", options.reduce_bytes_per_s,
                  "under SMPI: bytes per second every reduction is charged at on the simulated "
                  "clock (a cluster file's reduce_bytes_per_s; 0: free)")
      ->type_name("BYTES/S")
      ->check(number_rule({"--reduce-rate", false, 0, 1e15, "B/s"}));
  add_strategy_flags(*cmd, strategy_options);
  return cmd;
}

StrategyOutcome run_strategy(const std::string& name, const StrategyFactory& build,
                             const World& world, std::span<const std::uint64_t> sizes,
                             const BenchSettings& settings, const AccountMerge& merge) {
  nlohmann::json mine;
  {
    auto strategy = build(world);
    mine = rank_report(*strategy, sizes, settings);
  }  // workers close their strategy here, which is what ends the servers' serve()
  StrategyOutcome outcome;
  outcome.strategy = name;
  std::vector<nlohmann::json> reports;
  for (const auto& text : world.allgather(mine.dump()))
    reports.push_back(nlohmann::json::parse(text));
  std::vector<std::string> parts;
  for (const auto& report : reports) parts.push_back(report.at("account").get<std::string>());
  if (merge) outcome.account = merge(parts);
  for (int rank = 0; rank < world.size(); ++rank) {
    const nlohmann::json& report = reports[rank];
    const bool worker = report.at("worker").get<bool>();
    outcome.ranks.push_back({rank,
                             worker,
                             {report.at("bytes_sent").get<std::uint64_t>(),
                              report.at("bytes_received").get<std::uint64_t>()}});
    if (worker) outcome.workers = report.at("workers").get<int>();
    if (report.contains("rows"))
      for (const auto& row : report["rows"]) outcome.rows.push_back(size_result_from_json(row));
  }
  if (settings.wire)
    outcome.wire = wire_per_size(reports, world.hostnames(), sizes.size(), settings.iters);
  return outcome;
}

void run_collectives(const CollectivesPlan& plan, const CollectivesOptions& options,
                     const StrategyOptions& strategy_options,
                     std::span<const std::string> command_line, const AgreedConfig& config) {
  if (engine_info().simulated)
    set_simulated_data({options.shared_buffers, options.reduce_bytes_per_s, options.selector});
  World world(MPI_COMM_WORLD, harness_timeout(strategy_options.timeout_s));
  const bool printer = world.rank() == 0;
  const auto cluster = join_cluster(world);
  const auto pids = world.allgather(std::to_string(::getpid()));
  std::optional<RunContext> context;
  if (printer) {
    context = collect_run_context(world, command_line, config);
    print(preamble(options, pids, world.hostnames(), context->mpi_library) +
          (cluster ? cluster_text(cluster->description, cluster->path, 1, "# ") : "") +
          collectives_table_header(plan.any_device()));
  }
  std::vector<StrategyOutcome> outcomes;
  for (std::size_t i = 0; i < plan.strategies.size(); ++i) {
    const StrategyInfo& entry = *plan.strategies[i];
    const MemoryKind memory = plan.memory[i];
    std::optional<WireMeter> wire;
    if (cluster) wire = wire_meter(*cluster, world, entry, strategy_options);
    const BenchSettings settings{options.iters, options.warmup_iters, options.check_passes, memory,
                                 wire ? &*wire : nullptr};
    const StrategyFactory factory = [&](const World& w) {
      if (memory == MemoryKind::device)
        select_local_gpu(w, gpu_need(entry, strategy_options, w.rank()));
      return make_strategy(entry, w, strategy_options, memory);
    };
    const AccountMerge merge = [&](std::span<const std::string> parts) {
      return merge_account(entry, parts, {.options = &strategy_options});
    };
    outcomes.push_back(
        run_strategy(std::string(entry.name), factory, world, plan.sizes, settings, merge));
    outcomes.back().memory = memory;
    if (!printer) continue;
    print(collectives_table_rows(outcomes.back(), plan.any_device()));
    if (!options.json_path.empty())
      append_record(
          options.json_path,
          collectives_record(outcomes.back(), {settings, strategy_options, *context,
                                               cluster ? &cluster->description : nullptr}));
  }
  if (printer) {
    std::string summaries = "#\n";
    for (const auto& outcome : outcomes) summaries += collectives_summary(outcome);
    print(summaries + "#\n");
  }
  if (const auto wrong = wrong_results_message(outcomes); !wrong.empty())
    throw AgreedError(wrong, 1);
}

}  // namespace gradsync
