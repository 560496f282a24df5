#include "harness/cli/simulate_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "harness/cli/fusion_flag.h"
#include "harness/cli/simulate_cases.h"
#include "harness/cli/simulate_studies.h"
#include "harness/cli/strategy_flags.h"
#include "harness/engine/median.h"
#include "harness/results/cluster_record.h"
#include "harness/results/input_text.h"
#include "harness/results/report_table.h"
#include "harness/results/result_file.h"
#include "harness/results/sim_inputs.h"
#include "harness/results/simulated_record.h"
#include "harness/results/size_parse.h"
#include "harness/results/strategy_options_json.h"
#include "harness/results/train_report.h"
#include "harness/results/train_text.h"
#include "harness/results/workload.h"
#include "harness/sim/simulation.h"
#include "models/model.h"
#include "models/zoo.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

using sim::ClusterModel;
using sim::SimulationCase;
using sim::SimulationResult;

// Mebibytes: whole ones from 100 on, else three significant digits.
std::string format_mib(double bytes) {
  const double mib = bytes / (1 << 20);
  return mib >= 100 ? fmt::format("{:.0f}", mib) : fmt::format("{:.3g}", mib);
}

// A measured run's strategy as the validation table shows it: its label and
// its own options and the shared ones that it ran with beyond the defaults
// (not the timeout), e.g. "ps-zmq (--ps-servers 2, --ps-placement dedicated)".
std::string run_label(const StrategyInfo& strategy, const StrategyOptions& options) {
  std::string changed;
  StrategyOptions base;
  base.timeout_s = options.timeout_s;
  for (const auto& [flag, value] : changed_option_values(options, base, strategy.name))
    changed += fmt::format("{}{} {}", changed.empty() ? "" : ", ", flag, value);
  return strategy_label(strategy, options) + (changed.empty() ? "" : " (" + changed + ")");
}

// The names --without takes: every mechanism's (cluster_model.h).
std::vector<std::string> mechanism_names() {
  std::vector<std::string> names;
  for (const auto& info : sim::kMechanisms) names.emplace_back(info.name);
  return names;
}

// How sure the projections of one strategy are, in one line: the band its
// validation on this cluster gives, and from which worker count on the
// projection is beyond it.
std::string band_line(const ClusterModel& cluster, const std::string& strategy, int most_workers) {
  // The band as it stands within validation, and where validation ends.
  const sim::Band b = sim::band_for(cluster.validation, strategy, 2);
  if (!b.validated)
    return fmt::format("{}: not validated on this cluster, no band (simulate --validate RUNS "
                       "--save-validation FILE adds one)",
                       strategy);
  const int validated_to = b.validated_to;
  return fmt::format("{} band: {}, against {}{}", strategy, b.text(), b.entry->against,
                     most_workers > validated_to
                         ? fmt::format("; above {} workers, beyond validation", validated_to)
                         : "");
}

// What each mechanism the cluster file states (cluster_model.h) costs: per
// model, strategy and worker count, the efficiency with every mechanism on,
// and how many points it gains with each one off in turn.
ReportTable explain_table(const SimulateOptions& options, const ClusterModel& cluster,
                          const std::vector<const StrategyInfo*>& strategies,
                          const std::vector<int>& workers) {
  // Each stated mechanism, and its parameter in its own unit.
  std::vector<std::pair<const char*, std::string>> stated;
  for (const auto& info : sim::kMechanisms)
    if (const sim::Sourced& s = cluster.mechanisms.*info.field; s.value > 0)
      stated.emplace_back(info.name, fmt::format("{:.3g} {}, {}", s.value * info.scale, info.unit,
                                                 s.source));
  ReportTable t;
  t.caption = stated.empty()
                  ? "What each mechanism costs: the cluster file states none (\"mechanisms\")"
                  : "What each mechanism costs: efficiency with every mechanism the cluster file "
                    "states, and the points each one takes (the efficiency without it, minus; "
                    "they interact: with a cycle, a faster link can leave the thread idle just "
                    "before a bucket, so a mechanism's points can be below 0)";
  t.header = {"model", "strategy", "workers", "efficiency"};
  for (const auto& [name, value] : stated) t.header.push_back(fmt::format("{} ({})", name, value));
  t.label_columns = 3;
  for (const auto& model : options.models) {
    const double base = sim::simulate(cluster, baseline_case(options, cluster, model)).step.step_s;
    for (const StrategyInfo* s : strategies)
      for (int n : workers) {
        if (n < 2) continue;
        SimulationCase c = base_case(options, cluster, model, *s, n);
        const double all = base / sim::simulate(cluster, c).step.step_s;
        std::vector<std::string> row = {model, std::string(s->name), std::to_string(n),
                                        fmt::format("{:.1f}%", 100 * all)};
        for (const auto& [name, value] : stated) {
          SimulationCase off = c;
          off.without.insert(name);
          const double without = base / sim::simulate(cluster, off).step.step_s;
          row.push_back(fmt::format("{:.1f}", 100 * (without - all)));
        }
        t.rows.push_back(std::move(row));
      }
  }
  return t;
}

// What the input stage costs a worker, alone on its node and with the node
// full: "input decode:2ms x1 thread prefetch 2, 2 ms per image, 2 cores per
// node: a batch of 32 takes 0.064 s alone, 0.128 s at 4 workers per node".
std::string input_line(sim::InputStage input, const ClusterModel& cluster, int batch,
                       int most_workers) {
  input = input.on_node(cluster.host_cores.value);
  const double image_s = input.image_seconds();
  const int full = std::min(most_workers, cluster.workers_per_node);
  std::string text = fmt::format("{}, {:.3g} ms per image{}: a batch of {} takes {:.4g} s alone",
                                 input_label(input.spec), image_s * 1e3,
                                 input.spec.kind == InputKind::read
                                     ? std::string()
                                     : fmt::format(", {} cores per node", input.host_cores),
                                 batch, sim::predict_input(input, batch, 1, 0).batch_s);
  if (full > 1)
    text += fmt::format(", {:.4g} s at {} workers per node",
                        sim::predict_input(input, batch, full, 0).batch_s, full);
  return text;
}

// The projection: every model x strategy x worker count, and the baseline
// at one worker for each model.
void project(const SimulateOptions& options, const ClusterModel& cluster,
             const RunContext& context, std::ostream& out) {
  const auto workers = parse_workers(options.workers);
  const auto strategies = chosen_strategies(options, cluster);
  const std::string setup = setup_label(options, cluster);
  std::vector<StoredRecord> records;
  std::map<std::string, std::string> costed, moved;
  std::vector<std::string> searched;  // --fusion-mb auto: each case's choice
  std::string compute;
  const auto start = std::chrono::steady_clock::now();
  for (const auto& model : options.models) {
    auto add = [&](const SimulationCase& c) {
      const SimulationResult r = sim::simulate(cluster, c);
      const std::string name(c.strategy->name);
      if (c.placement.workers > 1) costed[name] = r.costed_as;
      if (c.placement.workers > 1 && r.link_bytes_per_step)
        moved[name] = fmt::format("{} MiB per step at n={} ({})",
                                  format_mib(*r.link_bytes_per_step), c.placement.workers, model);
      compute = r.compute_source;
      if (r.fusion_search && !r.fusion_search->candidates.empty())
        searched.push_back(
            fmt::format("# fusion auto, {} {} n={}: {:.4g} MiB (predicted ms per step by MiB: {})",
                        model, name, c.placement.workers, r.fusion_search->chosen_mb,
                        fusion_candidates_text(*r.fusion_search)));
      records.push_back(stored(
          simulated_record({c, r, cluster, options.cluster_file, setup, nullptr}, context),
          records.size()));
    };
    add(baseline_case(options, cluster, model));
    for (const StrategyInfo* s : strategies)
      for (int n : workers) add(base_case(options, cluster, model, *s, n));
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << fmt::format("# gradsync simulate: {} runs on {} in {:.0f} ms\n", records.size(), setup,
                     elapsed * 1e3);
  out << fmt::format("# compute: {}\n", compute);
  if (const SimulationCase c = baseline_case(options, cluster, options.models.front());
      c.input.active())
    out << "# " << input_line(c.input, cluster, c.batch, workers.back()) << '\n';
  for (const StrategyInfo* s : strategies)
    if (const auto it = costed.find(std::string(s->name)); it != costed.end())
      out << fmt::format("# {}\n", it->second);
  for (const StrategyInfo* s : strategies)
    if (const auto it = moved.find(std::string(s->name)); it != moved.end())
      out << fmt::format("# {} through the busiest link: {}\n", s->name, it->second);
  for (const StrategyInfo* s : strategies)
    out << "# " << band_line(cluster, std::string(s->name), workers.back()) << '\n';
  for (const auto& line : searched) out << line << '\n';
  if (workers.back() > cluster.nodes * cluster.workers_per_node)
    out << fmt::format(
        "# note: up to {} workers, beyond the {} node(s) the file describes: a projection with "
        "the same per-node links\n",
        workers.back(), cluster.nodes);
  out << '\n';
  for (const auto& table : training_report(records)) out << to_markdown(table) << '\n';
  if (options.explain) out << to_markdown(explain_table(options, cluster, strategies, workers)) << '\n';
  if (!options.out.empty()) {
    append_all(options.out, records);
    out << fmt::format("Appended {} simulated records to {}\n", records.size(), options.out);
  }
}

// A measured `none` run at one worker: what a workload's compute (and its
// loader's time per image) is taken from.
bool measured_baseline_at_one(const nlohmann::json& v) {
  return v.value("kind", "") == "train" && !v.value("simulated", false) &&
         v.value("strategy", "") == strategy_with_role(StrategyRole::baseline) &&
         v.at("results").value("workers", 0) == 1;
}

// The measured compute of a workload: its `none` run at one worker.
std::map<Workload, sim::MeasuredCompute> measured_computes(std::span<const StoredRecord> records) {
  std::map<Workload, sim::MeasuredCompute> out;
  for (const auto& r : records) {
    const auto& v = r.value;
    if (!measured_baseline_at_one(v)) continue;
    const auto& res = v.at("results");
    const double compute = res.at("compute_s").get<double>();
    const double step = res.value("step_median_s", res.value("step_mean_s", compute));
    const double after = std::max(0.0, step - compute);
    out[workload_of(v)] = {compute, after,
                           fmt::format("measured: the none run at 1 worker ({}), {:.4g} s forward "
                                       "+ backward and {:.4g} s after it per step",
                                       r.origin, compute, after)};
  }
  return out;
}

// A loader's time per image where a workload's `none` run at one worker
// measured it (its loader alone on the host's cores, as the model's time
// per image on one core is meant), by workload.
std::map<Workload, double> measured_image_seconds(std::span<const StoredRecord> records) {
  std::map<Workload, double> out;
  for (const auto& r : records) {
    const auto& v = r.value;
    if (!measured_baseline_at_one(v) || !v.contains("input")) continue;
    out[workload_of(v)] = v.at("input").at("loader_s_per_image").get<double>();
  }
  return out;
}

void validate(const SimulateOptions& options, const ClusterModel& cluster,
              const RunContext& context, std::ostream& out) {
  const std::vector<StoredRecord> records = read_results(options.validate);
  const auto computes = measured_computes(records);
  const auto image_seconds = measured_image_seconds(records);
  ReportTable table;
  table.caption =
      "Measured against simulated: total img/sec of the setup each run represents; error = "
      "simulated / measured - 1";
  table.header = {"model", "setup", "strategy", "workers", "measured", "simulated", "error",
                  "exposed comm measured / simulated"};
  table.label_columns = 3;
  std::vector<StoredRecord> twins;
  std::vector<sim::ValidatedRun> validated;
  std::vector<double> errors;
  std::string worst;
  double worst_error = -1;
  std::map<std::string, std::string> costed;
  for (const auto& record : records) {
    const auto& v = record.value;
    if (v.value("kind", "") != "train" || v.value("simulated", false)) continue;
    SimulationCase c = simulation_case(record);
    const Workload workload = workload_of(v);
    const auto computed = computes.find(workload);
    if (computed != computes.end()) c.measured = computed->second;
    // jpeg's cost is measured: the run's own is contended at several
    // workers, one worker's is the loader alone.
    if (const auto alone = image_seconds.find(workload);
        c.input.spec.kind == InputKind::jpeg && alone != image_seconds.end())
      c.input.image_s = alone->second;
    const ClusterModel* model = &cluster;
    std::optional<ClusterModel> rescaled;
    if (v.contains("cluster") && v.at("cluster").is_object()) {
      const double rate = v.at("cluster").value("rate_bits_per_s", 0.0);
      const auto* fit = cluster.fits.empty() ? nullptr : &cluster.fits.front();
      const double calibrated = fit && fit->link_bits_per_s > 0
                                    ? fit->link_bits_per_s
                                    : cluster.inter.bandwidth_bits_per_s.value;
      if (rate > 0 && std::abs(rate / calibrated - 1) > 1e-6) {
        rescaled = sim::with_inter_bandwidth(
            cluster, cluster.inter.bandwidth_bits_per_s.value * rate / calibrated);
        model = &*rescaled;
      }
    }
    const SimulationResult r = sim::simulate(*model, c);
    const int n = c.placement.workers;
    const double measured = v.at("results").at("img_sec_mean").get<double>() * n * c.time_scale;
    const double simulated = r.img_sec_per_worker * n * c.time_scale;
    const double error = simulated / measured - 1;
    // One worker moves nothing: its twin is the compute profile, which for a
    // workload with a measured `none` run is that run's own time.
    const bool compute_only = n == 1;
    const std::string strategy = run_label(*c.strategy, c.options);
    if (!compute_only) {
      errors.push_back(std::abs(error));
      if (std::abs(error) > worst_error) {
        worst_error = std::abs(error);
        worst = fmt::format("{} {} at {} workers ({}): {:+.1f}%", workload.model, strategy, n,
                            workload.setup.empty() ? "one machine" : workload.setup, 100 * error);
      }
      costed[std::string(c.strategy->name) + (rescaled ? " (link rescaled)" : "")] = r.costed_as;
      validated.push_back({std::string(c.strategy->name), workload.model, n, error,
                           fmt::format("{} {} at {} workers", workload.model, strategy, n)});
    }
    table.rows.push_back(
        {workload.model, workload.setup.empty() ? "-" : workload.setup, strategy,
         std::to_string(n), fmt::format("{:.1f}", measured), fmt::format("{:.1f}", simulated),
         compute_only ? fmt::format("{:+.1f}% (compute only)", 100 * error)
                     : fmt::format("{:+.1f}%", 100 * error),
         fmt::format("{:.3f} / {:.3f} s", v.at("results").value("exposed_comm_s", 0.0),
                     r.step.exposed_comm_s)});
    twins.push_back(stored(simulated_record({c, r, *model, options.cluster_file, "", &record},
                                            context),
                           twins.size()));
  }
  if (table.rows.empty())
    throw std::runtime_error("--validate: no measured train records in the files");
  out << fmt::format("# gradsync simulate --validate: {} measured runs against {}\n",
                     table.rows.size(), options.cluster_file);
  for (const auto& [s, text] : costed) out << fmt::format("# {}\n", text);
  out << '\n' << to_markdown(table) << '\n';
  out << fmt::format(
      "Throughput error over the {} runs of 2 or more workers (1 worker is the compute alone): "
      "median |error| {:.1f}%, worst {}\n",
      errors.size(), 100 * median(errors), worst.empty() ? "-" : worst);
  report_validation(options, cluster,
                    sim::summarize_validation(
                        validated,
                        fmt::format("measured runs: {}", fmt::join(options.validate, ", "))),
                    out);
  if (!options.out.empty()) {
    append_all(options.out, twins);
    out << fmt::format("Appended {} simulated twins to {}\n", twins.size(), options.out);
  }
}

}  // namespace

CLI::App* add_simulate_command(CLI::App& app, SimulateOptions& options) {
  auto* cmd = app.add_subcommand(
      "simulate",
      "The cost model: one training step as events on a described cluster, for any worker count; "
      "--validate against measured runs, --crossover maps, --ps-server-hosts (BytePS)");
  cmd->add_option("--cluster", options.cluster_file,
                  "cluster file (from `gradsync calibrate`, or written by hand: "
                  "results/reference/clusters/)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--model", options.models, "models from `gradsync models` (comma-separated)")
      ->delimiter(',');
  cmd->add_option("--strategy", options.strategies,
                  "strategies of `gradsync strategies` (comma-separated); default: those that "
                  "reduce the cluster's own memory (host on a CPU cluster, device on a GPU one)")
      ->delimiter(',');
  cmd->add_option("--workers", options.workers,
                  "worker counts: a list (1,2,4,8) or powers of two in a range (1-4096)");
  cmd->add_option("--batch-size", options.batch_size, "images per worker per step")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--device", options.device, "device profile of the compute (`gradsync models`)");
  cmd->add_option("--emulate-img-per-sec", options.emulate_img_per_sec,
                  "compute at this single-worker rate instead of a device profile")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--fusion-mb", options.fusion_mb,
                  "fusion bucket threshold in MiB (0: no fusion), or auto: the threshold train's "
                  "--fusion-mb auto would choose, searched on the simulated step")
      ->type_name("auto|MiB");
  cmd->add_option("--overlap", options.overlap, "reduce buckets while backward runs")
      ->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--time-scale", options.time_scale,
                  "compute K times slower, as `train --time-scale` on an emulated cluster")
      ->check(CLI::Range(1.0, 1e9));
  cmd->add_option("--input", options.input,
                  "the input stage, as train takes it: synthetic, decode:TIME, read:SIZE@MBPS or "
                  "jpeg[:Q] (jpeg needs --input-image-ms)");
  cmd->add_option("--input-threads", options.input_threads, "loader threads per worker")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--input-prefetch", options.input_prefetch,
                  "batches the loaders hold ready ahead of the step (0: made on demand)")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--input-image-ms", options.input_image_ms,
                  "a loader's measured time per image on one core, instead of the stated cost "
                  "(train prints it on its input line)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--host-cores", options.host_cores,
                  "CPU cores of a node, which the loaders of its workers share (default: the "
                  "cluster file's host_cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--inter-bandwidth", options.inter_bandwidth,
                  "links between nodes at this rate instead of the file's (e.g. 100gbit); inter "
                  "fits' beta scale with it")
      ->type_name("RATE");
  cmd->add_option("--workers-per-node", options.workers_per_node,
                  "workers per node instead of the file's (e.g. 1: one worker per machine, its "
                  "GPUs' gradients summed locally first, as BytePS counts machines)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--ps-server-hosts", options.ps_server_hosts,
                  "compare each strategy with server shards on k dedicated server hosts (one shard "
                  "each) with the best allreduce, for each k (comma-separated)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--validate", options.validate,
                  "measured result files: simulate each train record's twin and print the errors")
      ->type_name("RESULTS");
  cmd->add_option("--save-validation", options.save_validation,
                  "with --validate or --published: write the cluster file again with each "
                  "strategy's errors as its validation, the band of every projection on it")
      ->type_name("FILE");
  cmd->add_option("--without", options.without,
                  fmt::format("switch off mechanisms the cluster file states (comma-separated): {}",
                              fmt::join(mechanism_names(), ", ")))
      ->delimiter(',')
      ->check(CLI::IsMember(mechanism_names()));
  cmd->add_flag("--explain", options.explain,
                "with a projection: what each mechanism of the cluster file costs, in points of "
                "efficiency, per strategy and worker count");
  cmd->add_option("--crossover", options.crossover,
                  "write the crossover map (fastest strategy per workers x inter-node "
                  "bandwidth) to this JSON file")
      ->type_name("FILE");
  cmd->add_option("--published", options.published,
                  "a published scaling table (CSV, results/reference/published-scaling.csv): "
                  "simulate every row on the cluster and print both efficiencies")
      ->type_name("CSV");
  cmd->add_option("--inter-bandwidths", options.inter_bandwidths,
                  "the crossover map's bandwidths (comma-separated)")
      ->delimiter(',');
  cmd->add_option("--out", options.out, "append the simulated records to this JSON Lines file")
      ->type_name("FILE");
  cmd->add_option("--setup", options.setup,
                  "what the projection's records stand for in tables (default: the cluster's name)");
  add_strategy_flags(*cmd, options.strategy_options);
  return cmd;
}

void run_simulate(const SimulateOptions& options, const std::vector<std::string>& command_line,
                  std::ostream& out) {
  parse_fusion_mb(options.fusion_mb);  // a malformed value is its one line before any work
  ClusterModel cluster = sim::read_cluster_model(options.cluster_file);
  if (!options.inter_bandwidth.empty())
    cluster = sim::with_inter_bandwidth(cluster, parse_bit_rate(options.inter_bandwidth));
  if (options.workers_per_node > 0) cluster.workers_per_node = options.workers_per_node;
  for (const auto& m : options.models) find_zoo_entry(m);
  if (options.host_cores > 0)
    cluster.host_cores = {double(options.host_cores), "assumed", "simulate --host-cores"};
  if (!options.models.empty()) {  // a stage the model cannot cost is refused before any output
    baseline_case(options, cluster, options.models.front())
        .input.on_node(cluster.host_cores.value)
        .check();
  }
  const RunContext context = simulation_context(command_line);
  if (!options.save_validation.empty() && options.validate.empty() && options.published.empty())
    throw std::invalid_argument("--save-validation needs --validate or --published: the errors it "
                                "saves come from measured runs or a published table");
  if (!options.validate.empty()) return validate(options, cluster, context, out);
  if (!options.crossover.empty()) return crossover(options, cluster, out);
  if (!options.published.empty()) return published(options, cluster, context, out);
  if (!options.ps_server_hosts.empty()) return server_hosts(options, cluster, context, out);
  project(options, cluster, context, out);
}

}  // namespace gradsync
