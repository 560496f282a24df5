// The sweep launches the runs of its plan (sweep_plan.h) one after another,
// each appending its record to <out>/train.jsonl, its output to <out>/logs/
// and its attempt to <out>/sweep.jsonl (sweep_ledger.h). A configuration
// train.jsonl already holds is skipped (unless --rerun). A failed run is
// reported and recorded and the sweep goes on; the exit status says whether
// any failed. A stop (SIGINT, SIGTERM: Ctrl-C, scancel, the allocation's time
// limit) is passed on to the run in flight, which is recorded as stopped, and
// the sweep ends with 130. With --cluster the sweep first brings up an
// emulated cluster (cluster_session.h), launches every run across it and
// takes it down at the end, also when the sweep fails or is stopped. The
// sweep holds <out>'s lock throughout (results_lock.h): a second sweep into
// it is refused or, with --wait, waits and then skips what the first
// recorded; its own runs write under its lock. With
// --launcher srun each run is one job step of the allocation, its ranks
// placed by slurm_allocation.h.

#include "harness/cli/sweep_command.h"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include "harness/cli/child_process.h"
#include "harness/cli/cluster_session.h"
#include "harness/cli/cluster_spec.h"
#include "harness/cli/internal_error.h"
#include "harness/cli/mpi_launch.h"
#include "harness/cli/output_check.h"
#include "harness/cli/project_script.h"
#include "harness/cli/report_command.h"
#include "harness/cli/results_lock.h"
#include "harness/cli/slurm_allocation.h"
#include "harness/cli/sweep_ledger.h"
#include "harness/results/result_file.h"
#include "harness/results/train_summary.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

// The allocation's nodes, as Slurm's own scontrol expands its node list
// ("node[01-04]"); its answer is kept in the logs.
std::vector<std::string> expand_nodelist(const std::string& nodelist, const std::string& log) {
  const int status = run_logged({"scontrol", "show", "hostnames", nodelist}, log);
  if (status != 0)
    throw std::runtime_error(
        fmt::format("scontrol show hostnames {}: exit {} (see {})", nodelist, status, log));
  std::ifstream in(log);
  std::vector<std::string> nodes;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) nodes.push_back(line);
  return nodes;
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

// What every run of a sweep shares: its files, the configurations recorded
// before, and the launcher in front of an mpirun run's arguments.
struct SweepSession {
  const SweepOptions& options;
  const std::string& self;
  std::filesystem::path records_file, ledger_file;  // <out>/train.jsonl, <out>/sweep.jsonl
  std::map<std::string, std::string> done_before;   // sweep_ledger.h's done_configurations
  std::vector<std::string> mpirun;  // scripts/mpirun.sh or the cluster's; empty with srun
  std::string job_id;               // the Slurm job, "" with mpirun
};

enum class RunEnd { done, skipped, failed, stopped };

struct SweepTally {
  int failed = 0, skipped = 0;
  std::size_t passed = 0;  // runs the sweep got through, whatever their end
};

// --launcher srun: the allocation the sweep runs in, announced; none with mpirun.
std::optional<SlurmAllocation> sweep_allocation(const SweepOptions& o,
                                                const std::filesystem::path& logs) {
  if (o.launcher != "srun") return std::nullopt;
  SlurmAllocation allocation =
      slurm_allocation([](const char* name) { return std::getenv(name); },
                       [&](const std::string& nodelist) {
                         return expand_nodelist(nodelist, (logs / "nodes.txt").string());
                       });
  std::cout << fmt::format(
      "Slurm job {}: {} nodes x {} tasks{} ({})\n", allocation.job_id, allocation.nodes.size(),
      allocation.tasks_per_node,
      allocation.gpus_per_node ? fmt::format(", {} GPUs", allocation.gpus_per_node) : std::string(),
      fmt::join(allocation.nodes, ","));
  return allocation;
}

// --cluster: the emulated cluster, up; none without the flag.
std::unique_ptr<ClusterSession> start_cluster(const SweepOptions& o, const std::string& self,
                                              const std::filesystem::path& logs) {
  if (o.cluster.empty()) return nullptr;
  const ClusterSpec spec = parse_cluster_spec(o.cluster);
  std::cout << "cluster: " << describe(spec) << " ... " << std::flush;
  auto cluster = std::make_unique<ClusterSession>(spec, self, (logs / "cluster.log").string());
  std::cout << "up, " << cluster->summary() << "\n";
  return cluster;
}

// Every mpirun run starts through the project's own launcher (or the
// cluster's), which takes the hostfile from GRADSYNC_HOSTFILE (none: this
// host alone).
std::vector<std::string> mpirun_launcher(const SweepOptions& o, const std::string& self,
                                         const ClusterSession* cluster) {
  export_built_mpi();
  std::vector<std::string> launcher =
      cluster ? cluster->launcher()
              : std::vector<std::string>{
                    "bash", find_project_script(self, "mpirun.sh", "GRADSYNC_MPIRUN_SCRIPT")};
  if (o.hostfile.empty())
    ::unsetenv("GRADSYNC_HOSTFILE");
  else
    ::setenv("GRADSYNC_HOSTFILE", o.hostfile.c_str(), 1);
  return launcher;
}

// "[ 3/12] small-cnn  cpu      ring-mpi      x2 ... ", the line's start.
std::string progress_text(const SweepRun& run, std::size_t i, std::size_t total) {
  return fmt::format("[{:>2}/{}] {:<10} {:<8} {:<13} x{}{}{} ... ", i + 1, total, run.model,
                     run.compute, run.strategy, run.workers,
                     run.input == "synthetic" ? "" : " input " + run.input,
                     run.fusion_mb.empty() ? "" : " fusion " + run.fusion_mb);
}

// Runs one point and keeps its attempt in the ledger: "done", or "failed"
// or "stopped" with the first error line of its log.
SweepAttempt launch_run(const SweepSession& s, const SweepRun& run) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> argv = run.launcher;
  if (!run.external) argv.insert(argv.begin(), s.mpirun.begin(), s.mpirun.end());
  if (!run.rank_hosts.empty()) {
    const std::string hostfile =
        std::filesystem::path(run.log).replace_extension(".hosts").string();
    write_file_replacing(hostfile, hostfile_text(run.rank_hosts), "the ranks' hosts");
    ::setenv("SLURM_HOSTFILE", hostfile.c_str(), 1);
  }
  argv.insert(argv.end(), run.command.begin(), run.command.end());
  // An external reference whose script refused its arguments (or found no
  // PyTorch) has its reason in the log already.
  const int status = run.external && run.config_digest.empty() ? 2 : run_logged(argv, run.log);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SweepAttempt attempt{run.model, run.compute,       run.strategy, run.workers,
                       run.ranks, run.config_digest, "done",       status,
                       "",        run.log,           took,         s.options.launcher,
                       s.job_id,  run.rank_hosts,    argv};
  attempt.input = run.input;
  attempt.fusion_mb = run.fusion_mb;
  if (status != 0) {
    attempt.status = stop_requested() ? "stopped" : "failed";
    attempt.reason = first_error_line(run.log);
  }
  append_record(s.ledger_file, sweep_attempt_record(attempt));
  return attempt;
}

// A run that went through: the throughput and exposed communication its
// record (train.jsonl's last) holds.
std::string done_text(const SweepSession& s, double took) {
  const double k = s.options.time_scale;
  const auto records = read_records(s.records_file);
  const auto summary = records.back().value.at("results").get<TrainSummary>();
  const std::string represented = k != 1 ? fmt::format(" represented (measured x {})", k) : "";
  return fmt::format("{:8.1f} img/sec total{}, exposed comm {:4.1f}% ({:.0f} s)\n",
                     summary.img_sec_mean * summary.workers * k, represented,
                     100 * summary.exposed_comm_share, took);
}

// One point of the plan: skipped when recorded before (unless --rerun),
// else run, its end printed after the progress line.
RunEnd run_point(const SweepSession& s, SweepRun run) {
  if (run.external) {
    run.command = external_command(run, s.self);
    run.config_digest = external_digest(run.command, run.log);
  }
  if (const auto it = s.done_before.find(configuration_key(run.config_digest, run.ranks));
      !run.config_digest.empty() && it != s.done_before.end() && !s.options.rerun) {
    std::cout << "done before (" << it->second << "), skipped\n";
    return RunEnd::skipped;
  }
  const SweepAttempt attempt = launch_run(s, run);
  if (attempt.status == "stopped") {
    std::cout << fmt::format("stopped ({:.0f} s)\n", attempt.seconds);
    return RunEnd::stopped;
  }
  if (attempt.status == "failed") {
    std::cout << fmt::format("FAILED (exit {}, {:.0f} s): {}\n", attempt.exit_status,
                             attempt.seconds, attempt.reason);
    return RunEnd::failed;
  }
  std::cout << done_text(s, attempt.seconds);
  return RunEnd::done;
}

// Where everything went, the report of every record, and what was skipped,
// failed or left by a stop; the sweep's exit status.
int close_sweep(const SweepSession& s, const std::filesystem::path& logs, std::size_t runs,
                const SweepTally& tally) {
  enter_phase(Phase::reporting);
  std::cout << "\nRecords: " << s.records_file.string() << ", attempts: " << s.ledger_file.string()
            << ", logs: " << logs.string() << "\n\n";
  ReportOptions report;
  report.files = {s.records_file.string()};
  if (std::filesystem::exists(s.records_file)) run_report(report, std::cout);
  if (tally.skipped)
    std::cout << fmt::format(
        "\n{} of {} configurations were recorded before and skipped (--rerun "
        "runs them again).\n",
        tally.skipped, runs);
  if (tally.failed)
    std::cout << fmt::format("\n{} of {} runs failed; their logs say why.\n", tally.failed, runs);
  if (stop_requested()) {
    std::cout << fmt::format(
        "\nStopped during run {} of {}; run the same sweep again to finish "
        "it.\n",
        tally.passed, runs);
    return 130;
  }
  return tally.failed ? 1 : 0;
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
  cmd->add_option("--out", o.results_dir, "results directory (created; records are appended)")
      ->required();
  add_wait_flag(*cmd, o.wait);
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

int run_sweep(const SweepOptions& o, const std::string& self) {
  const std::filesystem::path out(o.results_dir), logs = out / "logs";
  std::filesystem::create_directories(logs);
  // One sweep at a time in a directory; its own runs write under its lock.
  const ResultsLock lock = lock_results_folder(out, "gradsync sweep", o.wait);
  if (lock.held()) ::setenv(kResultsLockVariable, lock.token().c_str(), 1);
  const std::optional<SlurmAllocation> allocation = sweep_allocation(o, logs);
  const auto runs = plan_sweep(o, self, allocation ? &*allocation : nullptr);
  // One BLAS thread per worker, so that n workers use n cores at every n
  // (unless the user chose otherwise).
  ::setenv("OPENBLAS_NUM_THREADS", "1", 0);
  SweepSession session{o, self, out / "train.jsonl", out / "sweep.jsonl"};
  session.job_id = allocation ? allocation->job_id : "";
  std::vector<std::string> warnings;
  session.done_before = done_configurations(session.records_file, warnings);
  for (const auto& w : warnings) std::cerr << "gradsync: warning: " << w << "\n";
  // A stop is passed on to the run in flight, so that it is recorded as
  // stopped and, with --cluster, the cluster still comes down (when
  // `cluster` goes, after the closing lines).
  pass_stop_signals_to_children();
  const std::unique_ptr<ClusterSession> cluster = start_cluster(o, self, logs);
  if (o.launcher == "mpirun") session.mpirun = mpirun_launcher(o, self, cluster.get());
  SweepTally tally;
  enter_phase(Phase::running_runs);
  for (std::size_t i = 0; i < runs.size() && !stop_requested(); ++i, ++tally.passed) {
    std::cout << progress_text(runs[i], i, runs.size()) << std::flush;
    const RunEnd end = run_point(session, runs[i]);
    tally.skipped += end == RunEnd::skipped;
    tally.failed += end == RunEnd::failed;
  }
  return close_sweep(session, logs, runs.size(), tally);
}

}  // namespace gradsync
