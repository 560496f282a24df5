// The sweep launches one job per (model, worker count, strategy), one after
// another, each appending its record to <out>/train.jsonl and its output to
// <out>/logs/. A failed run is reported and the sweep goes on; the exit
// status says whether any failed. With --cluster the sweep first brings up
// an emulated cluster (cluster_session.h), launches every run across it and
// takes it down at the end, also when the sweep fails or is stopped.

#include "harness/cli/sweep_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "strategies/registry.h"
#include "harness/cli/child_process.h"
#include "harness/cli/cluster_session.h"
#include "harness/cli/cluster_spec.h"
#include "harness/cli/report_command.h"
#include "harness/engine/cluster_join.h"
#include "harness/engine/train_plan.h"
#include "harness/results/result_file.h"
#include "harness/results/train_summary.h"

namespace gradsync {
namespace {

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, by);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

// What mpirun must pass on to every rank: run_sweep sets it for the runs.
const std::vector<std::string> kMpirunForwarded = {"-x", "OPENBLAS_NUM_THREADS"};

std::vector<std::string> launcher_prefix(const SweepOptions& o, int workers) {
  const std::string n = std::to_string(workers);
  if (o.launcher == "srun") return {"srun", "-n", n, "--mpi=pmix"};
  std::vector<std::string> args = {"mpirun", "-np", n, "--oversubscribe", "--bind-to", "none"};
  args.insert(args.end(), kMpirunForwarded.begin(), kMpirunForwarded.end());
  // On an emulated cluster every rank must see its description (cluster_join.h).
  if (std::getenv(kClusterEnv)) args.insert(args.end(), {"-x", kClusterEnv});
  if (::geteuid() == 0) args.push_back("--allow-run-as-root");
  if (o.hostfile.empty()) {
    for (const char* a : {"--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo",
                          "--mca", "oob_tcp_if_include", "lo"})
      args.push_back(a);
  } else {
    args.insert(args.end(), {"--hostfile", o.hostfile});
  }
  return args;
}

std::string first_error_line(const std::string& log) {
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.find("error") != std::string::npos) return line;
  return "see " + log;
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
  cmd->add_option("--out", o.out, "results directory (created; records are appended)")->required();
  cmd->add_option("--launcher", o.launcher, "how to start each run")
      ->check(CLI::IsMember({"mpirun", "srun"}));
  cmd->add_option("--hostfile", o.hostfile, "mpirun hostfile, for several hosts");
  cmd->add_option("--cluster", o.cluster,
                  "run on an emulated cluster that the sweep brings up and takes down "
                  "(scripts/cluster.sh, root): \"HOSTS x SLOTS @ RATE[/DELAY]\", e.g. \"4 x 2 @ 1gbit\"");
  cmd->add_option("--time-scale", o.time_scale,
                  "every run's `train --time-scale`: emulated compute K times slower, for links "
                  "shaped to RATE/K that stand for RATE (emulated models only)")
      ->type_name("K");
  cmd->add_option("--train-args", o.train_args,
                  "more arguments for every `gradsync train`, e.g. \"--batch-size 16 --num-iters 5\"");
  return cmd;
}

std::vector<SweepRun> plan_sweep(const SweepOptions& o, const std::string& self) {
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
  const auto strategies = parse_strategy_list(o.strategies);
  const auto extra = split(o.train_args, ' ');
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
    for (int n : workers)
      for (const auto& strategy : strategies) {
        SweepRun run{model, compute, strategy, n, launcher_prefix(o, n), {}, ""};
        run.log = (std::filesystem::path(o.out) / "logs" /
                   fmt::format("{}-{}-{}-np{}.log", model, compute, strategy, n)).string();
        run.command = {self, "train", "--model", model, "--compute", compute, "--strategy",
                       strategy, "--out", (std::filesystem::path(o.out) / "train.jsonl").string()};
        if (o.time_scale != 1)
          run.command.insert(run.command.end(), {"--time-scale", fmt::format("{}", o.time_scale)});
        run.command.insert(run.command.end(), extra.begin(), extra.end());
        runs.push_back(std::move(run));
      }
  }
  if (runs.empty()) throw std::invalid_argument("the sweep is empty: give --models and --workers");
  return runs;
}

int run_sweep(const SweepOptions& o, const std::string& self) {
  const auto runs = plan_sweep(o, self);
  // One BLAS thread per worker, so that n workers use n cores at every n
  // (unless the user chose otherwise).
  ::setenv("OPENBLAS_NUM_THREADS", "1", 0);
  std::filesystem::create_directories(std::filesystem::path(o.out) / "logs");
  const auto records_file = std::filesystem::path(o.out) / "train.jsonl";
  std::unique_ptr<ClusterSession> cluster;
  if (!o.cluster.empty()) {
    pass_stop_signals_to_children();  // so that a stopped sweep still takes the cluster down
    const ClusterSpec spec = parse_cluster_spec(o.cluster);
    std::cout << "cluster: " << describe(spec) << " ... " << std::flush;
    cluster = std::make_unique<ClusterSession>(
        spec, self, (std::filesystem::path(o.out) / "logs" / "cluster.log").string());
    std::cout << "up, " << cluster->summary() << "\n";
  }
  int failed = 0;
  std::size_t done = 0;
  for (std::size_t i = 0; i < runs.size() && !stop_requested(); ++i, ++done) {
    const SweepRun& run = runs[i];
    std::cout << fmt::format("[{:>2}/{}] {:<10} {:<8} {:<13} x{} ... ", i + 1, runs.size(), run.model,
                             run.compute, run.strategy, run.workers)
              << std::flush;
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> argv = run.launcher;
    if (cluster) {
      argv = cluster->launcher(run.workers);
      argv.insert(argv.end(), kMpirunForwarded.begin(), kMpirunForwarded.end());
    }
    argv.insert(argv.end(), run.command.begin(), run.command.end());
    const int status = run_logged(argv, run.log);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status != 0) {
      ++failed;
      std::cout << fmt::format("FAILED (exit {}, {:.0f} s): {}\n", status, took, first_error_line(run.log));
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
  std::cout << "\nRecords: " << records_file.string() << ", logs: "
            << (std::filesystem::path(o.out) / "logs").string() << "\n\n";
  ReportOptions report;
  report.files = {records_file.string()};
  if (std::filesystem::exists(records_file)) run_report(report, std::cout);
  if (failed) std::cout << fmt::format("\n{} of {} runs failed; their logs say why.\n", failed, runs.size());
  if (stop_requested()) {
    std::cout << fmt::format("\nStopped during run {} of {}.\n", done, runs.size());
    return 130;
  }
  return failed ? 1 : 0;
}

}  // namespace gradsync
