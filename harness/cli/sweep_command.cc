// The sweep launches one job per (model, input stage, worker count,
// strategy), one after another, each appending its record to <out>/train.jsonl and its output to
// <out>/logs/, and its attempt to <out>/sweep.jsonl (sweep_ledger.h). A
// configuration train.jsonl already holds is skipped (unless --rerun). A
// failed run is reported and recorded and the sweep goes on; the exit status
// says whether any failed. A stop (SIGINT, SIGTERM: Ctrl-C, scancel, the
// allocation's time limit) is passed on to the run in flight, which is
// recorded as stopped, and the sweep ends with 130. With --cluster the
// sweep first brings up an emulated cluster (cluster_session.h), launches
// every run across it and takes it down at the end, also when the sweep
// fails or is stopped. With --launcher srun each run is one job step of the
// allocation, its ranks placed by slurm_allocation.h.

#include "harness/cli/sweep_command.h"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "harness/cli/child_process.h"
#include "harness/cli/cluster_session.h"
#include "harness/cli/cluster_spec.h"
#include "harness/cli/command_scopes.h"
#include "harness/cli/fusion_flag.h"
#include "harness/cli/mpi_launch.h"
#include "harness/cli/project_script.h"
#include "harness/cli/report_command.h"
#include "harness/cli/slurm_allocation.h"
#include "harness/cli/sweep_ledger.h"
#include "harness/engine/train_plan.h"
#include "harness/results/input_text.h"
#include "harness/results/result_file.h"
#include "harness/results/strategy_options_json.h"
#include "harness/results/train_summary.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, by);)
    if (!part.empty()) parts.push_back(part);
  return parts;
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

// The allocation's nodes, as Slurm's own scontrol expands its node list
// ("node[01-04]"); its answer is kept in the logs.
std::vector<std::string> expand_nodelist(const std::string& nodelist, const std::string& log) {
  const int status = run_logged({"scontrol", "show", "hostnames", nodelist}, log);
  if (status != 0)
    throw std::runtime_error(fmt::format("scontrol show hostnames {}: exit {} (see {})", nodelist,
                                         status, log));
  std::ifstream in(log);
  std::vector<std::string> nodes;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) nodes.push_back(line);
  return nodes;
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

std::string first_error_line(const std::string& log) {
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.find("error") != std::string::npos) return line;
  return "see " + log;
}

// An external reference's run as it starts: its script (scripts/NAME above
// the binary, or where its variable says) and the script's arguments.
std::vector<std::string> external_command(const SweepRun& run, const std::string& self) {
  std::vector<std::string> argv = run.command;
  argv.front() = find_project_script(self, argv.front(), run.external->script_variable);
  return argv;
}

// The digest an external reference's run will record, as its script computes
// it (--print-config-digest, which also checks the arguments and that PyTorch
// is there); empty when the script refused, its reason then in `log`.
std::string external_digest(std::vector<std::string> argv, const std::string& log) {
  argv.push_back("--print-config-digest");
  if (run_logged(argv, log) != 0) return "";
  std::ifstream in(log);
  std::string digest;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) digest = line;
  return digest;
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
    const Placement placement = place_ranks(*allocation, run.workers, servers);
    run.launcher = srun_command(*allocation, placement, built_mpi_family());
    run.rank_hosts = placement.rank_hosts;
  }
}

}  // namespace

CLI::App* add_sweep_command(CLI::App& app, SweepOptions& o) {
  auto* cmd = app.add_subcommand("sweep", "Train over worker counts x strategies x models; "
                                          "one results directory and the efficiency table");
  cmd->add_option("--workers", o.workers, "worker counts, comma-separated");
  cmd->add_option("--strategy", o.strategies,
                  fmt::format("strategies, comma-separated (keep `{}` for the efficiency baseline)",
                              strategy_with_role(StrategyRole::baseline)));
  cmd->add_option("--models", o.models, "model:compute pairs, comma-separated (compute: cpu, emulated or cuda)");
  cmd->add_option("--input", o.inputs,
                  "input stages, comma-separated, each run's `train --input` (synthetic, "
                  "decode:TIME, read:SIZE@MBPS, jpeg[:QUALITY]); --input-threads and "
                  "--input-prefetch go in --train-args")
      ->type_name("LIST");
  cmd->add_option("--out", o.out, "results directory (created; records are appended)")->required();
  cmd->add_option("--launcher", o.launcher, "how to start each run")
      ->check(CLI::IsMember({"mpirun", "srun"}));
  cmd->add_option("--hostfile", o.hostfile, "mpirun hostfile, for several hosts");
  cmd->add_option("--cluster", o.cluster,
                  "run on an emulated cluster that the sweep brings up and takes down "
                  "(scripts/cluster.sh, root): \"HOSTS x SLOTS @ RATE[/DELAY][, mtu M]\", e.g. "
                  "\"4 x 2 @ 1gbit\", \"8 x 1 @ 250mbit, mtu 9000\"");
  cmd->add_option("--time-scale", o.time_scale,
                  "every run's `train --time-scale`: emulated compute K times slower, for links "
                  "shaped to RATE/K that stand for RATE (emulated models only)")
      ->type_name("K");
  cmd->add_option("--ps-server-nodes", o.ps_server_nodes,
                  "srun: the runs of a strategy with server shards get this many dedicated "
                  "server ranks (e.g. --ps-placement dedicated), each on a node of its own after "
                  "the workers' nodes")
      ->check(CLI::NonNegativeNumber)
      ->type_name("K");
  cmd->add_flag("--rerun", o.rerun,
                "run again the configurations the results directory already records (by default "
                "a sweep rerun into the same directory skips them)");
  cmd->add_option("--fusion-mb", o.fusion_mb,
                  "fusion thresholds, comma-separated, each a run of every strategy but the "
                  "baseline: MiB or auto (train's --fusion-mb), e.g. 4,16,64,auto")
      ->type_name("LIST");
  cmd->add_option("--train-args", o.train_args,
                  "more arguments for every `gradsync train`, e.g. \"--batch-size 16 --num-iters "
                  "5\"; a flag goes to the runs it acts on (a strategy's option to that strategy's)");
  return cmd;
}

std::vector<SweepRun> plan_sweep(const SweepOptions& o, const std::string& self,
                                 const SlurmAllocation* allocation) {
  std::vector<int> workers;
  for (const auto& w : split(o.workers, ',')) {
    std::size_t used = 0;
    int n = 0;
    try { n = std::stoi(w, &used); } catch (const std::exception&) { used = 0; }
    if (used != w.size() || n < 1)
      throw std::invalid_argument("--workers: '" + w + "' is not a positive whole number");
    workers.push_back(n);
  }
  if (!o.cluster.empty()) {
    const ClusterSpec spec = parse_cluster_spec(o.cluster);
    for (int n : workers)
      if (n > spec.hosts * spec.slots)
        throw std::invalid_argument(fmt::format("--workers {} does not fit on the --cluster's {}",
                                                n, describe(spec)));
    if (o.launcher != "mpirun" || !o.hostfile.empty())
      throw std::invalid_argument("--cluster makes its own hosts: it goes with neither "
                                  "--launcher srun nor --hostfile");
  }
  if (o.ps_server_nodes > 0 && o.launcher != "srun")
    throw std::invalid_argument(
        "--ps-server-nodes places server ranks on Slurm nodes of their own: it needs --launcher "
        "srun (with mpirun, give --train-args \"--ps-placement dedicated --ps-servers K\")");
  // gradsync's strategies, checked by the table, and external references in
  // between, in the order given.
  std::vector<std::string> names = split(o.strategies, ','), own;
  for (const auto& name : names)
    if (!find_external_reference(name)) own.push_back(name);
  const auto own_entries =
      own.empty() ? std::vector<const StrategyInfo*>{} : parse_strategy_list(join_names(own));
  std::vector<std::pair<const StrategyInfo*, const ExternalReference*>> strategies;
  for (std::size_t i = 0, next = 0; i < names.size(); ++i) {
    const ExternalReference* external = find_external_reference(names[i]);
    strategies.emplace_back(external ? nullptr : own_entries.at(next++), external);
    if (external && (o.launcher != "mpirun" || !o.hostfile.empty() || !o.cluster.empty()))
      throw std::invalid_argument(fmt::format(
          "--strategy {}: {} starts its own workers on this host alone: not with --launcher srun, "
          "--hostfile or --cluster",
          names[i], external->description));
  }
  const auto extra = split(o.train_args, ' ');
  // The input stages, each in its one spelling; synthetic adds no flag, so
  // its runs' commands (and digests) are those of a sweep without --input.
  std::vector<std::string> inputs;
  for (const auto& text : split(o.inputs, ',')) inputs.push_back(input_text(parse_input(text)));
  if (inputs.empty()) throw std::invalid_argument("--input: give at least one input stage");
  // The fusion axis: each value checked as train checks it; none given, one
  // run without the flag (so that a sweep without the axis keeps its digests).
  std::vector<std::string> fusions = split(o.fusion_mb, ',');
  for (const auto& f : fusions) parse_fusion_mb(f);
  for (const auto& word : extra) {
    if (!fusions.empty() && word.rfind("--fusion-mb", 0) == 0)
      throw std::invalid_argument(
          "--fusion-mb: give the thresholds here or in --train-args, not both");
    // The stage names the run's log and its ledger entry: it is the sweep's.
    if (word == "--input" || word.rfind("--input=", 0) == 0)
      throw std::invalid_argument(
          "--train-args: give the input stage with sweep --input, not in --train-args");
  }
  if (fusions.empty()) fusions.push_back("");
  std::vector<SweepRun> runs;
  for (const auto& spec : split(o.models, ',')) {
    const auto colon = spec.find(':');
    const std::string model = spec.substr(0, colon);
    const std::string compute =
        colon == std::string::npos ? to_string(ComputeMode::cpu) : spec.substr(colon + 1);
    const auto mode = find_compute_mode(compute);
    if (!mode)
      throw std::invalid_argument("--models: '" + spec + "': compute must be " + compute_modes_text());
    try {
      check_time_scale(o.time_scale, *mode);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--time-scale: " + std::string(e.what()) + " (--models " + spec +
                                  ")");
    }
    const std::string records = (std::filesystem::path(o.out) / "train.jsonl").string();
    for (const std::string& input : inputs)
      for (int n : workers)
        for (const auto& [entry, external] : strategies)
          for (const auto& fusion : fusions) {
            // The baseline and external references run once per input stage:
            // no buckets of gradsync's to fuse.
            const bool fused = entry && entry->role != StrategyRole::baseline;
            if (!fused && fusion != fusions.front()) continue;
            SweepRun run;
            run.model = model, run.compute = compute, run.workers = n, run.input = input;
            run.strategy = external ? std::string(external->name) : std::string(entry->name);
            if (fused) run.fusion_mb = fusion;
            run.log = (std::filesystem::path(o.out) / "logs" /
                       fmt::format("{}-{}-{}-np{}{}{}.log", model, compute, run.strategy, n,
                                   input_log_suffix(input),
                                   run.fusion_mb.empty() ? "" : "-fusion" + run.fusion_mb))
                          .string();
            if (external)
              plan_external_run(run, *external, spec, extra, records);
            else
              plan_train_run(run, *entry, o, self, allocation, extra, records);
            runs.push_back(std::move(run));
          }
  }
  if (runs.empty()) throw std::invalid_argument("the sweep is empty: give --models and --workers");
  return runs;
}

int run_sweep(const SweepOptions& o, const std::string& self) {
  const std::filesystem::path out(o.out), logs = out / "logs";
  std::filesystem::create_directories(logs);
  std::optional<SlurmAllocation> allocation;
  if (o.launcher == "srun") {
    allocation = slurm_allocation([](const char* name) { return std::getenv(name); },
                                  [&](const std::string& nodelist) {
                                    return expand_nodelist(nodelist, (logs / "nodes.txt").string());
                                  });
    std::cout << fmt::format("Slurm job {}: {} nodes x {} tasks{} ({})\n", allocation->job_id,
                             allocation->nodes.size(), allocation->tasks_per_node,
                             allocation->gpus_per_node
                                 ? fmt::format(", {} GPUs", allocation->gpus_per_node)
                                 : std::string(),
                             fmt::join(allocation->nodes, ","));
  }
  const auto runs = plan_sweep(o, self, allocation ? &*allocation : nullptr);
  // One BLAS thread per worker, so that n workers use n cores at every n
  // (unless the user chose otherwise).
  ::setenv("OPENBLAS_NUM_THREADS", "1", 0);
  const auto records_file = out / "train.jsonl";
  const auto ledger_file = out / "sweep.jsonl";
  std::vector<std::string> warnings;
  const auto done_before = done_configurations(records_file, warnings);
  for (const auto& w : warnings) std::cerr << "gradsync: warning: " << w << "\n";
  // A stop is passed on to the run in flight, so that it is recorded as
  // stopped and, with --cluster, the cluster still comes down.
  pass_stop_signals_to_children();
  std::unique_ptr<ClusterSession> cluster;
  if (!o.cluster.empty()) {
    const ClusterSpec spec = parse_cluster_spec(o.cluster);
    std::cout << "cluster: " << describe(spec) << " ... " << std::flush;
    cluster = std::make_unique<ClusterSession>(spec, self, (logs / "cluster.log").string());
    std::cout << "up, " << cluster->summary() << "\n";
  }
  // Every mpirun run starts through the project's own launcher, which takes
  // the hostfile from GRADSYNC_HOSTFILE (none: this host alone).
  std::vector<std::string> mpirun;
  if (o.launcher == "mpirun") {
    export_built_mpi();
    mpirun = cluster ? cluster->launcher()
                     : std::vector<std::string>{"bash", find_project_script(self, "mpirun.sh",
                                                                            "GRADSYNC_MPIRUN_SCRIPT")};
    if (o.hostfile.empty())
      ::unsetenv("GRADSYNC_HOSTFILE");
    else
      ::setenv("GRADSYNC_HOSTFILE", o.hostfile.c_str(), 1);
  }
  int failed = 0, skipped = 0;
  std::size_t done = 0;
  for (std::size_t i = 0; i < runs.size() && !stop_requested(); ++i, ++done) {
    SweepRun run = runs[i];
    std::cout << fmt::format("[{:>2}/{}] {:<10} {:<8} {:<13} x{}{}{} ... ", i + 1, runs.size(),
                             run.model, run.compute, run.strategy, run.workers,
                             run.input == "synthetic" ? "" : " input " + run.input,
                             run.fusion_mb.empty() ? "" : " fusion " + run.fusion_mb)
              << std::flush;
    if (run.external) {
      run.command = external_command(run, self);
      run.config_digest = external_digest(run.command, run.log);
    }
    if (const auto it = done_before.find(configuration_key(run.config_digest, run.ranks));
        !run.config_digest.empty() && it != done_before.end() && !o.rerun) {
      ++skipped;
      std::cout << "done before (" << it->second << "), skipped\n";
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> argv = run.launcher;
    if (o.launcher == "mpirun" && !run.external)
      argv.insert(argv.begin(), mpirun.begin(), mpirun.end());
    if (!run.rank_hosts.empty()) {
      const std::string hostfile = std::filesystem::path(run.log).replace_extension(".hosts").string();
      write_file_replacing(hostfile, hostfile_text(run.rank_hosts), "the ranks' hosts");
      ::setenv("SLURM_HOSTFILE", hostfile.c_str(), 1);
    }
    argv.insert(argv.end(), run.command.begin(), run.command.end());
    // An external reference whose script refused its arguments (or found no
    // PyTorch) has its reason in the log already.
    const int status = run.external && run.config_digest.empty() ? 2 : run_logged(argv, run.log);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    SweepAttempt attempt{run.model, run.compute, run.strategy, run.workers, run.ranks,
                         run.config_digest, "done", status, "", run.log, took, o.launcher,
                         allocation ? allocation->job_id : "", run.rank_hosts, argv};
    attempt.input = run.input;
    attempt.fusion_mb = run.fusion_mb;
    if (status != 0) {
      attempt.status = stop_requested() ? "stopped" : "failed";
      attempt.reason = first_error_line(run.log);
    }
    append_record(ledger_file, sweep_attempt_record(attempt));
    if (attempt.status == "stopped") {
      std::cout << fmt::format("stopped ({:.0f} s)\n", took);
      continue;
    }
    if (attempt.status == "failed") {
      ++failed;
      std::cout << fmt::format("FAILED (exit {}, {:.0f} s): {}\n", status, took, attempt.reason);
      continue;
    }
    const auto records = read_records(records_file);
    const auto summary = records.back().value.at("results").get<TrainSummary>();
    const std::string represented =
        o.time_scale != 1 ? fmt::format(" represented (measured x {})", o.time_scale) : "";
    std::cout << fmt::format("{:8.1f} img/sec total{}, exposed comm {:4.1f}% ({:.0f} s)\n",
                             summary.img_sec_mean * summary.workers * o.time_scale, represented,
                             100 * summary.exposed_comm_share, took);
  }
  std::cout << "\nRecords: " << records_file.string() << ", attempts: " << ledger_file.string()
            << ", logs: " << logs.string() << "\n\n";
  ReportOptions report;
  report.files = {records_file.string()};
  if (std::filesystem::exists(records_file)) run_report(report, std::cout);
  if (skipped)
    std::cout << fmt::format("\n{} of {} configurations were recorded before and skipped (--rerun "
                             "runs them again).\n",
                             skipped, runs.size());
  if (failed) std::cout << fmt::format("\n{} of {} runs failed; their logs say why.\n", failed, runs.size());
  if (stop_requested()) {
    std::cout << fmt::format("\nStopped during run {} of {}; run the same sweep again to finish "
                             "it.\n",
                             done, runs.size());
    return 130;
  }
  return failed ? 1 : 0;
}

}  // namespace gradsync
