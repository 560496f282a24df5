#pragma once
// `gradsync simulate MODE`: the cost model's predictions on a described
// cluster (a cluster file, harness/sim/cluster_model.h), one mode per job,
// each taking only the flags that act on it:
//   project      --model, --strategy, --workers (to 4,096 and beyond): the
//                tables `report` prints, records with --out; --explain: what
//                each mechanism of the cluster file costs;
//   validate     RESULTS...: every measured train record beside its simulated
//                twin, the error per point, the median and the worst, per
//                strategy too; with --save-validation FILE, the cluster file
//                again with those errors as its `validation` (the band of
//                every projection on it, harness/sim/validation.h);
//   published    TABLE: every row of a published scaling table
//                (results/reference/published-scaling.csv) simulated on the
//                cluster, its efficiency beside the published one;
//   crossover    --map FILE: for workers x --inter-bandwidths, the fastest
//                strategy and its margin, as JSON for the crossover map;
//   server-hosts --hosts LIST: ps-zmq on k dedicated server hosts against the
//                best allreduce (BytePS's comparison), and the k it needs.
// The old spelling (`simulate --validate FILE`, ...) is refused in one line
// that names the new one (docs/guide/cost-model.md).

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "harness/engine/optimizer.h"
#include "harness/engine/synchronizer.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

struct SimulateOptions {
  std::string cluster_file;
  std::vector<std::string> models{"resnet50"};
  std::vector<std::string> strategies;  // empty: every one the cluster can run
  std::string workers = "1-1024";
  int batch_size = 32;
  int sequence_length = 0;  // token models: positions per sample (0: the model's own)
  UpdateRule optimizer = UpdateRule::sgd;  // whose state the memory projection holds
  std::string device = "v100";
  double emulate_img_per_sec = 0;
  std::string fusion_mb = "64";  // MiB, or auto (fusion_flag.h)
  std::string overlap = "on";
  SyncOrder sync_order = SyncOrder::arrival;
  int steps_per_iteration = 10;  // train's --num-batches-per-iter
  double time_scale = 1;
  // The input stage (harness/sim/input_stage.h): --input, its threads and
  // prefetch as train takes them, a measured time per image (jpeg, or to
  // replace the stated cost) and the cores of a node.
  std::string input = "synthetic";
  int input_threads = 1;
  int input_prefetch = 2;
  double input_image_ms = 0;
  int host_cores = 0;                 // 0: the cluster file's
  std::string inter_bandwidth;        // empty: the cluster file's
  int workers_per_node = 0;           // 0: the cluster file's
  std::vector<int> server_hosts;      // server-hosts --hosts
  std::vector<std::string> validate_files;  // validate's result files
  std::string save_validation;  // validate's or published's errors into a copy of the cluster file
  std::string crossover_map;    // crossover --map
  std::string published_table;  // published's table
  std::vector<std::string> inter_bandwidths{"1gbit", "10gbit", "25gbit", "100gbit"};
  std::string out;
  bool wait = false;                 // --wait: for --out's folder's other writer (results_lock.h)
  std::string setup;                 // the label of the records; default: the cluster's name
  std::vector<std::string> without;  // mechanisms switched off (cluster_model.h's names)
  bool explain = false;              // project: a table of what each mechanism costs
  StrategyOptions strategy_options;
  // The mode's subcommand, chosen on the command line (run_simulate sets it):
  // what the refusals of flags that do not act name.
  const CLI::App* mode = nullptr;
};

// `simulate` and its modes, each with its own flags.
CLI::App* add_simulate_command(CLI::App& app, SimulateOptions& options);

// After the parse: the mode chosen, and no flag given that does not act on
// it. Throws std::invalid_argument (one line) otherwise, the old spelling's
// naming the new one.
void check_simulate_command(const CLI::App& simulate, const SimulateOptions& options);

// Runs the chosen mode. Throws std::runtime_error / std::invalid_argument
// (one line) on bad input.
void run_simulate(const CLI::App& simulate, SimulateOptions options,
                  const std::vector<std::string>& command_line, std::ostream& out);

}  // namespace gradsync
