// `gradsync simulate project`: every model x strategy x worker count on the
// cluster, and the baseline at one worker for each model, as the tables
// `report` prints; the lines above them say how each strategy was costed,
// how much it moves, how sure each projection is (its band) and where the
// projection goes beyond the cluster file; --explain adds what each
// mechanism of the cluster file costs.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "harness/cli/fusion_flag.h"
#include "harness/cli/simulate_cases.h"
#include "harness/cli/simulate_modes.h"
#include "harness/results/finite_cells.h"
#include "harness/results/input_text.h"
#include "harness/results/report_table.h"
#include "harness/results/result_file.h"
#include "harness/results/simulated_record.h"
#include "harness/results/train_report.h"
#include "harness/results/train_text.h"
#include "harness/sim/simulation.h"
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

// How sure the projections of one strategy are, in one line: the band its
// validation on this cluster gives, and from which worker count on the
// projection is beyond it.
std::string band_line(const ClusterModel& cluster, const std::string& strategy, int most_workers) {
  // The band as it stands within validation, and where validation ends.
  const sim::Band b = sim::band_for(cluster.validation, strategy, 2);
  if (!b.validated)
    return fmt::format(
        "{}: not validated on this cluster, no band (simulate validate --cluster "
        "FILE RUNS --save-validation FILE adds one)",
        strategy);
  const int validated_to = b.validated_to_workers;
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
      stated.emplace_back(info.name,
                          fmt::format("{:.3g} {}, {}", s.value * info.scale, info.unit, s.source));
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

}  // namespace

void project(const SimulateOptions& options, const ClusterModel& cluster, const RunContext& context,
             std::ostream& out) {
  const auto workers = parse_workers(options.workers);
  const auto strategies = chosen_strategies(options, cluster);
  refuse_idle_strategy_flags(options, strategies, joined_strategy_names(strategies));
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
      records.push_back(
          stored(simulated_record({c, r, cluster, options.cluster_file, setup, nullptr}, context),
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
  for (const auto& table : training_report(records)) out << finite_markdown(table) << '\n';
  if (options.explain)
    out << finite_markdown(explain_table(options, cluster, strategies, workers)) << '\n';
  if (!options.out.empty()) {
    append_all(options.out, records);
    out << fmt::format("Appended {} simulated records to {}\n", records.size(), options.out);
  }
}

}  // namespace gradsync
