// `gradsync simulate validate RESULTS...`: every measured train record
// beside its simulated twin on the cluster. A twin is the record's own case
// (harness/results/sim_inputs.h) with its workload's measured compute, on the
// cluster rescaled to the link the run had when that differs from the
// calibration's; the errors per strategy become the cluster's validation
// with --save-validation (simulate_cases.h's report_validation).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

#include "harness/cli/simulate_cases.h"
#include "harness/cli/simulate_modes.h"
#include "harness/engine/median.h"
#include "harness/results/finite_cells.h"
#include "harness/results/report_table.h"
#include "harness/results/result_file.h"
#include "harness/results/sim_inputs.h"
#include "harness/results/simulated_record.h"
#include "harness/results/strategy_options_json.h"
#include "harness/results/workload.h"
#include "harness/sim/json_whole.h"
#include "harness/sim/simulation.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

using sim::ClusterModel;
using sim::SimulationCase;
using sim::SimulationResult;

// A measured run's strategy as the validation table shows it: its label and
// its own options and the shared ones that it ran with beyond the defaults
// (not the timeout), e.g. "ps-zmq (--ps-servers 2, --ps-placement dedicated)".
std::string measured_run_label(const StrategyInfo& strategy, const StrategyOptions& options) {
  std::string changed;
  StrategyOptions base;
  base.timeout_s = options.timeout_s;
  for (const auto& [flag, value] : changed_option_values(options, base, strategy.name))
    changed += fmt::format("{}{} {}", changed.empty() ? "" : ", ", flag, value);
  return strategy_label(strategy, options) + (changed.empty() ? "" : " (" + changed + ")");
}

// A measured `none` run at one worker: what a workload's compute (and its
// loader's time per image) is taken from.
bool measured_baseline_at_one(const nlohmann::json& v) {
  return v.value("kind", "") == "train" && !v.value("simulated", false) &&
         v.value("strategy", "") == strategy_with_role(StrategyRole::baseline) &&
         whole_number_or(v.at("results"), "workers", 0) == 1;
}

// What the twins take from the measurements, by workload: the compute of its
// `none` run at one worker, and that run's loader time per image (its loader
// alone on the host's cores, as the model's time per image on one core is
// meant).
struct MeasuredInputs {
  std::map<Workload, sim::MeasuredCompute> computes;
  std::map<Workload, double> image_seconds;
};

MeasuredInputs measured_inputs(std::span<const StoredRecord> records) {
  MeasuredInputs out;
  for (const auto& r : records) {
    const auto& v = r.value;
    if (!measured_baseline_at_one(v)) continue;
    const auto& res = v.at("results");
    const double compute = res.at("compute_s").get<double>();
    const double step = res.value("step_median_s", res.value("step_mean_s", compute));
    const double after = std::max(0.0, step - compute);
    out.computes[workload_of(v)] = {
        compute, after,
        fmt::format("measured: the none run at 1 worker ({}), {:.4g} s forward + backward and "
                    "{:.4g} s after it per step",
                    r.origin, compute, after)};
    if (v.contains("input"))
      out.image_seconds[workload_of(v)] = v.at("input").at("loader_s_per_image").get<double>();
  }
  return out;
}

// The record's case with its workload's measured compute; jpeg's cost is
// measured too: the run's own is contended at several workers, one worker's
// is the loader alone.
SimulationCase twin_case(const StoredRecord& record, const MeasuredInputs& measured) {
  SimulationCase c = simulation_case(record);
  const Workload workload = workload_of(record.value);
  if (const auto it = measured.computes.find(workload); it != measured.computes.end())
    c.measured_compute = it->second;
  if (const auto alone = measured.image_seconds.find(workload);
      c.input.spec.kind == InputKind::jpeg && alone != measured.image_seconds.end())
    c.input.image_s = alone->second;
  return c;
}

// The cluster at the link rate the run had (its record's emulated cluster),
// when that differs from the rate the cluster file was calibrated at.
std::optional<ClusterModel> rescaled_for(const nlohmann::json& v, const ClusterModel& cluster) {
  if (!v.contains("cluster") || !v.at("cluster").is_object()) return std::nullopt;
  const double rate = v.at("cluster").value("rate_bits_per_s", 0.0);
  const auto* fit = cluster.fits.empty() ? nullptr : &cluster.fits.front();
  const double calibrated = fit && fit->link_bits_per_s > 0
                                ? fit->link_bits_per_s
                                : cluster.inter.bandwidth_bits_per_s.value;
  if (!(rate > 0 && std::abs(rate / calibrated - 1) > 1e-6)) return std::nullopt;
  return sim::with_inter_bandwidth(cluster,
                                   cluster.inter.bandwidth_bits_per_s.value * rate / calibrated);
}

// The validation as it builds up, one measured run at a time.
struct ValidationTally {
  ReportTable table;
  std::vector<StoredRecord> twins;
  std::vector<sim::ValidatedRun> validated;
  std::vector<double> errors;  // |error| of the runs of 2 or more workers
  std::string worst;
  double worst_error = -1;
  std::map<std::string, std::string> costed;  // how each strategy was costed

  // One run and its twin. One worker moves nothing: its twin is the compute
  // profile, which for a workload with a measured `none` run is that run's
  // own time.
  void add(const StoredRecord& record, const SimulationCase& c, const SimulationResult& r,
           bool rescaled) {
    const auto& v = record.value;
    const Workload workload = workload_of(v);
    const int n = c.placement.workers;
    const double measured = v.at("results").at("img_sec_mean").get<double>() * n * c.time_scale;
    const double simulated = r.img_sec_per_worker * n * c.time_scale;
    const double error = simulated / measured - 1;
    const bool compute_only = n == 1;
    const std::string strategy = measured_run_label(*c.strategy, c.options);
    const std::string setup = workload.setup.empty() ? "one machine" : workload.setup;
    if (!compute_only) {
      errors.push_back(std::abs(error));
      if (std::abs(error) > worst_error) {
        worst_error = std::abs(error);
        worst = fmt::format("{} {} at {} workers ({}): {:+.1f}%", workload.model, strategy, n,
                            setup, 100 * error);
      }
      costed[std::string(c.strategy->name) + (rescaled ? " (link rescaled)" : "")] = r.costed_as;
      validated.push_back({std::string(c.strategy->name), workload.model, n, error,
                           fmt::format("{} {} at {} workers", workload.model, strategy, n)});
    }
    table.rows.push_back(
        {workload.model, workload.setup.empty() ? "-" : workload.setup, strategy, std::to_string(n),
         fmt::format("{:.1f}", measured), fmt::format("{:.1f}", simulated),
         fmt::format("{:+.1f}%{}", 100 * error, compute_only ? " (compute only)" : ""),
         fmt::format("{:.3f} / {:.3f} s", v.at("results").value("exposed_comm_s", 0.0),
                     r.step.exposed_comm_s)});
  }
};

}  // namespace

void validate(const SimulateOptions& options, const ClusterModel& cluster,
              const RunContext& context, std::ostream& out) {
  const std::vector<StoredRecord> records = read_results(options.validate_files);
  const MeasuredInputs measured = measured_inputs(records);
  ValidationTally tally;
  tally.table.caption =
      "Measured against simulated: total img/sec of the setup each run represents; error = "
      "simulated / measured - 1";
  tally.table.header = {"model",    "setup",     "strategy", "workers",
                        "measured", "simulated", "error",    "exposed comm measured / simulated"};
  tally.table.label_columns = 3;
  for (const auto& record : records) {
    const auto& v = record.value;
    if (v.value("kind", "") != "train" || v.value("simulated", false)) continue;
    const SimulationCase c = twin_case(record, measured);
    const std::optional<ClusterModel> rescaled = rescaled_for(v, cluster);
    const ClusterModel& model = rescaled ? *rescaled : cluster;
    const SimulationResult r = sim::simulate(model, c);
    tally.add(record, c, r, rescaled.has_value());
    tally.twins.push_back(
        stored(simulated_record({c, r, model, options.cluster_file, "", &record}, context),
               tally.twins.size()));
  }
  if (tally.table.rows.empty())
    throw std::runtime_error("simulate validate: no measured train records in the files");
  out << fmt::format("# gradsync simulate validate: {} measured runs against {}\n",
                     tally.table.rows.size(), options.cluster_file);
  for (const auto& [s, text] : tally.costed) out << fmt::format("# {}\n", text);
  out << '\n' << finite_markdown(tally.table) << '\n';
  out << fmt::format(
      "Throughput error over the {} runs of 2 or more workers (1 worker is the compute alone): "
      "median |error| {:.1f}%, worst {}\n",
      tally.errors.size(), 100 * median(tally.errors), tally.worst.empty() ? "-" : tally.worst);
  report_validation(options, cluster,
                    sim::summarize_validation(
                        tally.validated,
                        fmt::format("measured runs: {}", fmt::join(options.validate_files, ", "))),
                    out);
  if (!options.out.empty()) {
    append_all(options.out, tally.twins);
    out << fmt::format("Appended {} simulated twins to {}\n", tally.twins.size(), options.out);
  }
}

}  // namespace gradsync
