// The sweep's plan in three steps: each axis is read and checked on its own
// (worker counts against the cluster and the launcher, strategies with the
// external references among them, input stages, fusion thresholds against
// --train-args), then model by model the axes are crossed in a fixed order
// (input stage, worker count, strategy, threshold), and each point becomes
// one run: gradsync's own `train` through the launcher, or an external
// reference's script.

#include "harness/cli/sweep_plan.h"

#include <fmt/core.h>

#include <filesystem>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "harness/cli/cluster_spec.h"
#include "harness/cli/command_scopes.h"
#include "harness/cli/fusion_flag.h"
#include "harness/cli/mpi_launch.h"
#include "harness/cli/split_list.h"
#include "harness/cli/sweep_command.h"
#include "harness/cli/sweep_ledger.h"
#include "harness/engine/train_plan.h"
#include "harness/results/input_text.h"
#include "harness/results/strategy_options_json.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

// A strategy of the sweep: one of gradsync's (its table entry) or an
// external reference.
struct SweepStrategy {
  const StrategyInfo* entry = nullptr;
  const ExternalReference* external = nullptr;
};

// The sweep's axes, each read and checked: what every model's runs cross.
struct SweepAxes {
  std::vector<int> workers;
  std::vector<SweepStrategy> strategies;
  std::vector<std::string> inputs;   // each in input_text's one spelling
  std::vector<std::string> fusions;  // "" alone: no --fusion-mb (train's default)
  std::vector<std::string> train_args;
};

// --workers, each a positive whole number.
std::vector<int> sweep_worker_counts(const std::string& list) {
  std::vector<int> workers;
  for (const auto& w : split_list(list, ',')) {
    std::size_t used = 0;
    int n = 0;
    try {
      n = std::stoi(w, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != w.size() || n < 1)
      throw std::invalid_argument("--workers: '" + w + "' is not a positive whole number");
    workers.push_back(n);
  }
  return workers;
}

// Whether the worker counts fit where they run (--cluster's slots), and
// which launcher goes with which flags.
void check_placement(const SweepOptions& o, const std::vector<int>& workers) {
  if (!o.cluster.empty()) {
    const ClusterSpec spec = parse_cluster_spec(o.cluster);
    for (int n : workers)
      if (n > spec.hosts * spec.slots)
        throw std::invalid_argument(
            fmt::format("--workers {} does not fit on the --cluster's {}", n, describe(spec)));
    if (o.launcher != "mpirun" || !o.hostfile.empty())
      throw std::invalid_argument(
          "--cluster makes its own hosts: it goes with neither "
          "--launcher srun nor --hostfile");
  }
  if (o.ps_server_nodes > 0 && o.launcher != "srun")
    throw std::invalid_argument(
        "--ps-server-nodes places server ranks on Slurm nodes of their own: it needs --launcher "
        "srun (with mpirun, give --train-args \"--ps-placement dedicated --ps-servers K\")");
}

// gradsync's strategies, checked by the table, and external references in
// between, in the order given; an external reference starts its own workers
// on this host, so it goes with mpirun alone.
std::vector<SweepStrategy> sweep_strategies(const SweepOptions& o) {
  std::vector<std::string> names = split_list(o.strategies, ','), own;
  for (const auto& name : names)
    if (!find_external_reference(name)) own.push_back(name);
  const auto own_entries =
      own.empty() ? std::vector<const StrategyInfo*>{} : parse_strategy_list(join_names(own));
  std::vector<SweepStrategy> strategies;
  for (std::size_t i = 0, next = 0; i < names.size(); ++i) {
    const ExternalReference* external = find_external_reference(names[i]);
    strategies.push_back({external ? nullptr : own_entries.at(next++), external});
    if (external && (o.launcher != "mpirun" || !o.hostfile.empty() || !o.cluster.empty()))
      throw std::invalid_argument(fmt::format(
          "--strategy {}: {} starts its own workers on this host alone: not with --launcher srun, "
          "--hostfile or --cluster",
          names[i], external->description));
  }
  return strategies;
}

// The input stages and the fusion thresholds, and the --train-args that
// would name either behind the sweep's back.
void read_stages_and_thresholds(const SweepOptions& o, SweepAxes& axes) {
  // The input stages, each in its one spelling; synthetic adds no flag, so
  // its runs' commands (and digests) are those of a sweep without --input.
  for (const auto& text : split_list(o.inputs, ','))
    axes.inputs.push_back(input_text(parse_input(text)));
  if (axes.inputs.empty()) throw std::invalid_argument("--input: give at least one input stage");
  // The fusion axis: each value checked as train checks it; none given, one
  // run without the flag (so that a sweep without the axis keeps its digests).
  axes.fusions = split_list(o.fusion_mb, ',');
  for (const auto& f : axes.fusions) parse_fusion_mb(f);
  for (const auto& word : axes.train_args) {
    if (!axes.fusions.empty() && word.rfind("--fusion-mb", 0) == 0)
      throw std::invalid_argument(
          "--fusion-mb: give the thresholds here or in --train-args, not both");
    // The stage names the run's log and its ledger entry: it is the sweep's.
    if (word == "--input" || word.rfind("--input=", 0) == 0)
      throw std::invalid_argument(
          "--train-args: give the input stage with sweep --input, not in --train-args");
  }
  if (axes.fusions.empty()) axes.fusions.push_back("");
}

SweepAxes sweep_axes(const SweepOptions& o) {
  SweepAxes axes;
  axes.workers = sweep_worker_counts(o.workers);
  check_placement(o, axes.workers);
  axes.strategies = sweep_strategies(o);
  axes.train_args = split_list(o.train_args, ' ');
  read_stages_and_thresholds(o, axes);
  return axes;
}

// A run's mpirun arguments before its command. The launcher that comes
// first (scripts/mpirun.sh, or `cluster.sh mpirun` on the sweep's own
// cluster) adds what the host, the hostfile or the cluster needs; on one
// host that is a network namespace with loopback alone. What mpirun must
// pass on to every rank (run_sweep sets it for the runs) is passed in the
// words of the MPI this binary was built with.
std::vector<std::string> mpirun_ranks(int ranks) {
  std::vector<std::string> args = {"-np", std::to_string(ranks)};
  const auto forwarded = forward_variables(built_mpi_family(), {"OPENBLAS_NUM_THREADS"});
  args.insert(args.end(), forwarded.begin(), forwarded.end());
  return args;
}

// With --ps-server-nodes K, the flags that give a strategy with server
// shards K of them on ranks of their own (its entry's set_servers, spelled
// as the command line takes it); none for the other strategies.
std::vector<std::string> dedicated_server_flags(const SweepOptions& o,
                                                const StrategyInfo& strategy) {
  std::vector<std::string> flags;
  if (o.ps_server_nodes == 0 || !strategy.set_servers) return flags;
  StrategyOptions options;
  strategy.set_servers(options, o.ps_server_nodes, /*dedicated=*/true);
  for (const auto& [flag, value] : changed_option_values(options))
    flags.insert(flags.end(), {flag, value});
  return flags;
}

// "-input-decode-2ms" for a run's log name; "" for synthetic input.
std::string input_log_suffix(const std::string& input) {
  if (input == "synthetic") return "";
  std::string suffix = "-input-" + input;
  for (char& c : suffix)
    if (c == ':' || c == '@' || c == '/') c = '-';
  return suffix;
}

// An external reference's run (external_reference.h): its script's command
// line, its own workers and no launcher; its digest is asked at run time.
void plan_external_run(SweepRun& run, const ExternalReference& external, const std::string& spec,
                       const std::vector<std::string>& extra, const std::string& records) {
  if (run.input != "synthetic")
    throw std::invalid_argument(fmt::format("--strategy {}: {} has no input stage (--input {})",
                                            external.name, external.description, run.input));
  if (run.compute != external.compute)
    throw std::invalid_argument(
        fmt::format("--strategy {} trains with {}'s own {} compute: --models {} is not {}",
                    external.name, external.description, external.compute, spec, external.compute));
  run.ranks = run.workers;
  run.external = &external;
  run.command = {std::string(external.script), "--model", run.model, "--compute", run.compute};
  run.command.insert(run.command.end(),
                     {"--workers", std::to_string(run.workers), "--out", records});
  run.command.insert(run.command.end(), extra.begin(), extra.end());
}

// A run of gradsync's own `train`: its ranks (dedicated servers included),
// command line (input stage and threshold when the sweep varies them, then
// --train-args), config digest and launcher.
void plan_train_run(SweepRun& run, const StrategyInfo& entry, const SweepOptions& o,
                    const std::string& self, const SlurmAllocation* allocation,
                    const std::vector<std::string>& extra, const std::string& records) {
  const std::vector<std::string> server_flags = dedicated_server_flags(o, entry);
  const int servers = server_flags.empty() ? 0 : o.ps_server_nodes;
  run.ranks = run.workers + servers;
  run.command = {self,        "train",      "--model",    run.model, "--compute",
                 run.compute, "--strategy", run.strategy, "--out",   records};
  if (o.time_scale != 1)
    run.command.insert(run.command.end(), {"--time-scale", fmt::format("{}", o.time_scale)});
  run.command.insert(run.command.end(), server_flags.begin(), server_flags.end());
  if (run.input != "synthetic") run.command.insert(run.command.end(), {"--input", run.input});
  if (!run.fusion_mb.empty()) run.command.insert(run.command.end(), {"--fusion-mb", run.fusion_mb});
  const auto acting = train_args_acting_on(run.command, extra);  // a strategy's flags to its runs
  run.command.insert(run.command.end(), acting.begin(), acting.end());
  try {
    run.config_digest = train_config_digest({run.command.begin() + 1, run.command.end()});
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--train-args: " + std::string(e.what()));
  }
  if (o.launcher == "mpirun") {
    run.launcher = mpirun_ranks(run.ranks);
  } else if (allocation) {
    const SlurmPlacement placement = place_ranks(*allocation, run.workers, servers);
    run.launcher = srun_command(*allocation, placement, built_mpi_family());
    run.rank_hosts = placement.rank_hosts;
  }
}

// One --models entry, "model:compute" (compute cpu when left out), its
// compute mode checked, and the time scale checked against it.
std::pair<std::string, std::string> sweep_model(const std::string& spec, double time_scale) {
  const std::string compute = model_spec_compute(spec);
  const auto mode = find_compute_mode(compute);
  if (!mode)
    throw std::invalid_argument("--models: '" + spec + "': compute must be " +
                                compute_modes_text());
  try {
    check_time_scale(time_scale, *mode);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--time-scale: " + std::string(e.what()) + " (--models " + spec +
                                ")");
  }
  return {spec.substr(0, spec.find(':')), compute};
}

// The point (model, input stage, workers, strategy, threshold) as one run,
// logged under <out>/logs/ by what makes it a configuration.
SweepRun point_run(const SweepOptions& o, const std::string& spec, const SweepAxes& axes,
                   SweepRun point, const SweepStrategy& strategy, const std::string& self,
                   const SlurmAllocation* allocation) {
  SweepRun run = std::move(point);
  run.strategy =
      strategy.external ? std::string(strategy.external->name) : std::string(strategy.entry->name);
  run.log = (std::filesystem::path(o.results_dir) / "logs" /
             fmt::format("{}-{}-{}-np{}{}{}.log", run.model, run.compute, run.strategy, run.workers,
                         input_log_suffix(run.input),
                         run.fusion_mb.empty() ? "" : "-fusion" + run.fusion_mb))
                .string();
  const std::string records = (std::filesystem::path(o.results_dir) / "train.jsonl").string();
  if (strategy.external)
    plan_external_run(run, *strategy.external, spec, axes.train_args, records);
  else
    plan_train_run(run, *strategy.entry, o, self, allocation, axes.train_args, records);
  return run;
}

}  // namespace

std::string model_spec_compute(const std::string& spec) {
  const auto colon = spec.find(':');
  return colon == std::string::npos ? to_string(ComputeMode::cpu) : spec.substr(colon + 1);
}

std::vector<SweepRun> plan_sweep(const SweepOptions& o, const std::string& self,
                                 const SlurmAllocation* allocation) {
  const SweepAxes axes = sweep_axes(o);
  std::vector<SweepRun> runs;
  for (const auto& spec : split_list(o.models, ',')) {
    SweepRun point;
    std::tie(point.model, point.compute) = sweep_model(spec, o.time_scale);
    for (const std::string& input : axes.inputs)
      for (int n : axes.workers)
        for (const SweepStrategy& strategy : axes.strategies)
          for (const auto& fusion : axes.fusions) {
            // The baseline and external references run once per input stage:
            // no buckets of gradsync's to fuse.
            const bool fused = strategy.entry && strategy.entry->role != StrategyRole::baseline;
            if (!fused && fusion != axes.fusions.front()) continue;
            point.input = input, point.workers = n, point.fusion_mb = fused ? fusion : "";
            runs.push_back(point_run(o, spec, axes, point, strategy, self, allocation));
          }
  }
  if (runs.empty()) throw std::invalid_argument("the sweep is empty: give --models and --workers");
  return runs;
}

}  // namespace gradsync
