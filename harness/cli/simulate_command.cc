// `gradsync simulate MODE`: the modes' flags, the checks that every flag
// given acts on the mode, and the cluster each mode runs on.
//
// Each mode takes the groups of flags that act on it (the cluster, its
// links, a workload, a step, the records), so that a flag of another mode is
// refused by the parse (flag_scope.h words it). Flags that act only with
// some values of others (--device beside --emulate-img-per-sec, the input
// stage's threads without a stage, a strategy's option without that
// strategy, --without a mechanism the cluster file does not state) are
// refused after it.

#include "harness/cli/simulate_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "harness/cli/choice_flag.h"
#include "harness/cli/flag_scope.h"
#include "harness/cli/fusion_flag.h"
#include "harness/cli/number_flag.h"
#include "harness/cli/output_check.h"
#include "harness/cli/simulate_cases.h"
#include "harness/cli/simulate_modes.h"
#include "harness/cli/strategy_flags.h"
#include "harness/engine/train_plan.h"
#include "harness/results/input_text.h"
#include "harness/results/size_parse.h"
#include "harness/sim/simulation.h"
#include "models/zoo.h"

namespace gradsync {
namespace {

// Every numeric flag of simulate and the range that makes sense for it
// (docs/guide/cost-model.md, "Ranges"); the cluster file's own numbers keep
// the same bounds (sim/cluster_model.cc).
constexpr NumberRule kSimulateFlagRules[] = {
    {"--workers-per-node", true, 1, 1024, ""},
    {"--host-cores", true, 1, 1e5, ""},
    {"--batch-size", true, 1, 1e6, ""},
    // 0: the device profile's compute; below 0.001 img/s a step outlasts a double.
    {"--emulate-img-per-sec", false, 1e-3, 1e7, "img/s", false, true},
    {"--time-scale", false, 1, 1e9, ""},
    {"--input-threads", true, 1, 1024, ""},
    {"--input-prefetch", true, 0, 64, ""},
    {"--input-image-ms", false, 0, 1e6, "ms"},
    {"--hosts", true, 1, 1e6, ""},
};

CLI::Validator flag_rule(std::string_view flag) {
  return number_rule(rule_named(kSimulateFlagRules, flag));
}

// The names --without takes: every mechanism's (cluster_model.h).
std::vector<std::string> mechanism_names() {
  std::vector<std::string> names;
  for (const auto& info : sim::kMechanisms) names.emplace_back(info.name);
  return names;
}

// A mode: its own subcommand of `simulate`, refusing what it does not take,
// and the cluster file every mode runs on.
CLI::App* add_simulate_mode(CLI::App& simulate, const std::string& name,
                            const std::string& description, SimulateOptions& o) {
  CLI::App* mode = simulate.add_subcommand(name, description);
  mode->allow_extras(false);
  mode->add_option("--cluster", o.cluster_file,
                   "cluster file (from `gradsync calibrate`, or written by hand: "
                   "results/reference/clusters/)")
      ->required()
      ->type_name("FILE");
  return mode;
}

void add_inter_bandwidth_flag(CLI::App& mode, SimulateOptions& o) {
  mode.add_option("--inter-bandwidth", o.inter_bandwidth,
                  "links between nodes at this rate instead of the file's (e.g. 100gbit); inter "
                  "fits' beta scale with it")
      ->type_name("RATE");
}

void add_workers_per_node_flag(CLI::App& mode, SimulateOptions& o) {
  mode.add_option("--workers-per-node", o.workers_per_node,
                  "workers per node instead of the file's (e.g. 1: one worker per machine, its "
                  "GPUs' gradients summed locally first, as BytePS counts machines)")
      ->check(flag_rule("--workers-per-node"));
}

void add_host_cores_flag(CLI::App& mode, SimulateOptions& o) {
  mode.add_option("--host-cores", o.host_cores,
                  "CPU cores of a node, which the loaders of its workers share (default: the "
                  "cluster file's host_cores)")
      ->check(flag_rule("--host-cores"));
}

// What runs: the models, strategies, worker counts and the compute.
void add_workload_flags(CLI::App& mode, SimulateOptions& o) {
  mode.add_option("--model", o.models, "models from `gradsync models` (comma-separated)")
      ->delimiter(',');
  mode.add_option("--strategy", o.strategies,
                  "strategies of `gradsync strategies` (comma-separated); default: those that "
                  "reduce the cluster's own memory (host on a CPU cluster, device on a GPU one)")
      ->delimiter(',');
  mode.add_option("--workers", o.workers,
                  "worker counts: a list (1,2,4,8) or powers of two in a range (1-4096)");
  mode.add_option("--batch-size", o.batch_size, "samples (images, sequences) per worker per step")
      ->check(flag_rule("--batch-size"));
  mode.add_option("--seq-len", o.sequence_length,
                  "token models: positions per sample (default: the model's own, see `gradsync "
                  "models`)")
      ->type_name("T");
  mode.add_option("--device", o.device, "device profile of the compute (`gradsync models`)");
  mode.add_option("--emulate-img-per-sec", o.emulate_img_per_sec,
                  "compute at this single-worker rate instead of a device profile")
      ->check(flag_rule("--emulate-img-per-sec"));
}

// How one step runs: fusion, overlap, the input stage, the mechanisms, and
// the strategies' options that the cost model reads.
void add_step_flags(CLI::App& mode, SimulateOptions& o) {
  mode.add_option("--fusion-mb", o.fusion_mb,
                  "fusion bucket threshold in MiB (0: no fusion), or auto: the threshold train's "
                  "--fusion-mb auto would choose, searched on the simulated step")
      ->type_name("auto|MiB");
  mode.add_option("--overlap", o.overlap, "reduce buckets while backward runs")
      ->check(CLI::IsMember({"on", "off"}));
  add_choice_flag(mode, "--sync-order", o.sync_order, kSyncOrders,
                  "the order buckets are reduced in, as train takes it: arrival, or forward (the "
                  "next forward's first layers first, that forward waiting layer by layer)");
  mode.add_option("--num-batches-per-iter", o.steps_per_iteration,
                  "steps per timed iteration, as train takes it: forward order settles after each "
                  "iteration's last")
      ->check(CLI::PositiveNumber);
  mode.add_option("--time-scale", o.time_scale,
                  "compute K times slower, as `train --time-scale` on an emulated cluster")
      ->check(flag_rule("--time-scale"));
  mode.add_option("--input", o.input,
                  "the input stage, as train takes it: synthetic, decode:TIME, read:SIZE@MBPS or "
                  "jpeg[:Q] (jpeg needs --input-image-ms)");
  mode.add_option("--input-threads", o.input_threads,
                  "with an input stage: loader threads per worker")
      ->check(flag_rule("--input-threads"));
  mode.add_option("--input-prefetch", o.input_prefetch,
                  "with an input stage: batches the loaders hold ready ahead of the step (0: made "
                  "on demand)")
      ->check(flag_rule("--input-prefetch"));
  mode.add_option("--input-image-ms", o.input_image_ms,
                  "with an input stage: a loader's measured time per image on one core, instead "
                  "of the stated cost (train prints it on its input line)")
      ->check(flag_rule("--input-image-ms"));
  add_host_cores_flag(mode, o);
  mode.add_option("--without", o.without,
                  fmt::format("switch off mechanisms the cluster file states (comma-separated): {}",
                              fmt::join(mechanism_names(), ", ")))
      ->delimiter(',')
      ->check(CLI::IsMember(mechanism_names()));
  add_strategy_flags(mode, o.strategy_options, StrategyFlagSet::costed);
}

void add_out_flag(CLI::App& mode, SimulateOptions& o, const std::string& what) {
  mode.add_option("--out", o.out, "append " + what + " to this JSON Lines file")->type_name("FILE");
  add_wait_flag(mode, o.wait);
}

void add_setup_flag(CLI::App& mode, SimulateOptions& o) {
  mode.add_option("--setup", o.setup,
                  "what the records stand for in tables (default: the cluster's name)");
}

void add_save_validation_flag(CLI::App& mode, SimulateOptions& o) {
  mode.add_option("--save-validation", o.save_validation,
                  "write the cluster file again with each strategy's errors as its validation, "
                  "the band of every projection on it")
      ->type_name("FILE");
}

}  // namespace

namespace {

// The old spelling, one flag per mode (`simulate --validate FILE`): refused
// with the new one, so that a script fails at once and says how to mend it.
struct OldSpelling {
  std::string_view flag, usage;
};
constexpr OldSpelling kOldSpellings[] = {
    {"--validate", "gradsync simulate validate --cluster FILE RESULTS..."},
    {"--published", "gradsync simulate published --cluster FILE TABLE"},
    {"--crossover", "gradsync simulate crossover --cluster FILE --model M --map FILE"},
    {"--ps-server-hosts", "gradsync simulate server-hosts --cluster FILE --hosts K,..."},
};

// The mode given, or the one line that says how to give it: `simulate`
// itself takes no flag, so whatever it was given is the old spelling or a
// flag before its mode.
const CLI::App& chosen_mode(const CLI::App& simulate) {
  const std::vector<std::string> extras = simulate.remaining();
  for (const std::string& extra : extras)
    for (const OldSpelling& old : kOldSpellings)
      if (extra.substr(0, extra.find('=')) == old.flag)
        throw std::invalid_argument(
            fmt::format("simulate {} is now a mode of its own: {} (see gradsync simulate --help)",
                        old.flag, old.usage));
  const std::vector<CLI::App*> chosen = simulate.get_subcommands();
  if (chosen.empty())
    throw std::invalid_argument(
        "simulate needs a mode first: gradsync simulate project|validate|published|crossover|"
        "server-hosts --cluster FILE ... (a projection is gradsync simulate project; see "
        "gradsync simulate --help)");
  if (!extras.empty())
    throw std::invalid_argument(
        fmt::format("simulate: {} goes after the mode: gradsync simulate {} {} ...", extras.front(),
                    chosen.front()->get_name(), extras.front()));
  return *chosen.front();
}

// The flags a mode takes that act only with some values of its others.
std::vector<FlagScope> simulate_flag_scopes(const SimulateOptions& o, const std::string& mode) {
  const InputSpec input = parse_input(o.input);
  const bool stage = input.kind != InputKind::synthetic;
  const bool cpu_work = input.kind == InputKind::decode || input.kind == InputKind::jpeg;
  const std::string with_input = fmt::format("simulate {} --input {}", mode, o.input);
  const std::string needs_stage =
      "is for an input stage (--input decode:TIME, read:SIZE@MBPS or jpeg)";
  return {
      {"--device", !(o.emulate_img_per_sec > 0),
       fmt::format("simulate {} --emulate-img-per-sec {}", mode, o.emulate_img_per_sec),
       "is for compute on a device profile, which --emulate-img-per-sec replaces"},
      {"--input-threads", stage, with_input, needs_stage},
      {"--input-prefetch", stage, with_input, needs_stage},
      {"--input-image-ms", stage, with_input, needs_stage},
      // validate's runs bring their own stages.
      {"--host-cores", cpu_work || mode == "validate", with_input,
       "is for an input stage of CPU work (--input decode:TIME or jpeg)"},
  };
}

// --without a mechanism the cluster file does not state switches off nothing.
void refuse_idle_without(const SimulateOptions& o, const sim::ClusterModel& cluster) {
  for (const auto& info : sim::kMechanisms)
    if (std::find(o.without.begin(), o.without.end(), info.name) != o.without.end() &&
        !((cluster.mechanisms.*info.field).value > 0))
      throw std::invalid_argument(fmt::format(
          "--without {} does not apply to simulate {} --cluster {}: it is for a cluster file that "
          "states {} (its \"mechanisms\")",
          info.name, o.mode->get_name(), o.cluster_file, info.name));
}

// The cluster file with the flags' changes, every model and the input stage
// checked before any output.
sim::ClusterModel prepared_cluster(const SimulateOptions& options) {
  parse_fusion_mb(options.fusion_mb);  // a malformed value is its one line before any work
  sim::ClusterModel cluster = sim::read_cluster_model(options.cluster_file);
  if (!options.inter_bandwidth.empty())
    cluster = sim::with_inter_bandwidth(
        cluster, flag_bit_rate("--inter-bandwidth", options.inter_bandwidth));
  if (options.workers_per_node > 0) cluster.workers_per_node = options.workers_per_node;
  for (const auto& m : options.models) {
    find_zoo_entry(m);
    if (options.sequence_length == 0) continue;
    try {  // a length the model cannot take, or a model that takes no tokens
      describe_model(m, options.sequence_length);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("--seq-len: {}", e.what()));
    }
  }
  if (options.host_cores > 0)
    cluster.host_cores = {double(options.host_cores), "assumed", "simulate --host-cores"};
  refuse_idle_without(options, cluster);
  if (!options.models.empty()) {  // a stage the model cannot cost is refused before any output
    baseline_case(options, cluster, options.models.front())
        .input.on_node(cluster.host_cores.value)
        .check();
  }
  return cluster;
}

// What a projection takes, project's and server-hosts': the cluster's links,
// the workload, the step and the records.
void add_projection_flags(CLI::App& mode, SimulateOptions& o) {
  add_inter_bandwidth_flag(mode, o);
  add_workers_per_node_flag(mode, o);
  add_workload_flags(mode, o);
  add_step_flags(mode, o);
  add_out_flag(mode, o, "the simulated records");
  add_setup_flag(mode, o);
}

void add_project_mode(CLI::App& simulate, SimulateOptions& o) {
  auto* mode =
      add_simulate_mode(simulate, "project",
                        "Project models x strategies x worker counts on the cluster: efficiency, "
                        "throughput and exposed communication, each with its band",
                        o);
  add_projection_flags(*mode, o);
  add_choice_flag(*mode, "--optimizer", o.optimizer, kUpdateRules,
                  "the optimizer whose state each worker holds in the memory table, as train "
                  "takes it: sgd (one velocity per parameter) or adamw (two moments)");
  mode->add_flag("--explain", o.explain,
                 "what each mechanism of the cluster file costs, in points of efficiency, per "
                 "strategy and worker count");
}

// validate's twins are its records' own cases: only the cluster's links and
// cores come from flags.
void add_validate_mode(CLI::App& simulate, SimulateOptions& o) {
  auto* mode =
      add_simulate_mode(simulate, "validate",
                        "Simulate each measured train record's twin and print the errors, per "
                        "run and per strategy",
                        o);
  mode->add_option("results", o.validate_files, "measured result files (JSON Lines)")
      ->required()
      ->type_name("RESULTS");
  add_inter_bandwidth_flag(*mode, o);
  add_host_cores_flag(*mode, o);
  add_save_validation_flag(*mode, o);
  add_out_flag(*mode, o, "the simulated twins");
}

// published's rows name their model, strategy, GPUs, batch and rate.
void add_published_mode(CLI::App& simulate, SimulateOptions& o) {
  auto* mode = add_simulate_mode(simulate, "published",
                                 "Simulate every row of a published scaling table and print both "
                                 "efficiencies",
                                 o);
  mode->add_option("table", o.published_table,
                   "the published table (CSV, results/reference/published-scaling.csv)")
      ->required()
      ->type_name("TABLE");
  add_inter_bandwidth_flag(*mode, o);
  add_step_flags(*mode, o);
  add_save_validation_flag(*mode, o);
  add_out_flag(*mode, o, "the simulated records");
  add_setup_flag(*mode, o);
}

// crossover sets the link between nodes itself, one map row per bandwidth.
void add_crossover_mode(CLI::App& simulate, SimulateOptions& o) {
  auto* mode =
      add_simulate_mode(simulate, "crossover",
                        "The fastest strategy per worker count x inter-node bandwidth, and its "
                        "margin: the crossover map",
                        o);
  add_workers_per_node_flag(*mode, o);
  add_workload_flags(*mode, o);
  add_step_flags(*mode, o);
  mode->add_option("--map", o.crossover_map, "write the crossover map to this JSON file")
      ->required()
      ->type_name("FILE");
  mode->add_option("--inter-bandwidths", o.inter_bandwidths,
                   "the map's bandwidths between nodes (comma-separated)")
      ->delimiter(',');
}

void add_server_hosts_mode(CLI::App& simulate, SimulateOptions& o) {
  auto* mode =
      add_simulate_mode(simulate, "server-hosts",
                        "A strategy with server shards on k dedicated server hosts against the "
                        "best allreduce, for each k (BytePS's comparison)",
                        o);
  mode->add_option("--hosts", o.server_hosts,
                   "the server host counts k to compare (comma-separated), one shard each")
      ->required()
      ->delimiter(',')
      ->check(flag_rule("--hosts"));
  add_projection_flags(*mode, o);
}

}  // namespace

CLI::App* add_simulate_command(CLI::App& app, SimulateOptions& o) {
  auto* cmd = app.add_subcommand(
      "simulate",
      "The cost model: one training step as events on a described cluster, for any worker "
      "count; one mode per job (gradsync simulate MODE --help)");
  cmd->allow_extras();  // the old spelling, refused in its own words (check_simulate_command)
  add_project_mode(*cmd, o);
  add_validate_mode(*cmd, o);
  add_published_mode(*cmd, o);
  add_crossover_mode(*cmd, o);
  add_server_hosts_mode(*cmd, o);
  return cmd;
}

void check_simulate_command(const CLI::App& simulate, const SimulateOptions& options) {
  const CLI::App& mode = chosen_mode(simulate);
  refuse_out_of_scope(mode, simulate_flag_scopes(options, mode.get_name()));
}

void run_simulate(const CLI::App& simulate, SimulateOptions options,
                  const std::vector<std::string>& command_line, std::ostream& out) {
  options.mode = &chosen_mode(simulate);
  const std::string mode = options.mode->get_name();
  const sim::ClusterModel cluster = prepared_cluster(options);
  const RunContext context = simulation_context(command_line);
  if (mode == "validate") return validate(options, cluster, context, out);
  if (mode == "crossover") return crossover(options, cluster, out);
  if (mode == "published") return published(options, cluster, context, out);
  if (mode == "server-hosts") return server_hosts(options, cluster, context, out);
  project(options, cluster, context, out);
}

}  // namespace gradsync
