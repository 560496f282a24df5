#include "harness/results/train_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "harness/results/efficiency.h"
#include "harness/results/train_runs.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

// Time to target loss, for the measured runs made with --target-loss: the
// rows of `make_table` (a caption and a cell per run) that have one. The
// target is named in the caption when every run had the same, else in each
// cell. Nothing when no run had one.
template <typename MakeTable>
std::optional<ReportTable> time_to_target_table(std::span<const TrainRun> measured,
                                                MakeTable make_table) {
  std::vector<double> targets;
  for (const TrainRun& run : measured)
    if (run.time_to_target &&
        std::find(targets.begin(), targets.end(), run.time_to_target->target_loss) == targets.end())
      targets.push_back(run.time_to_target->target_loss);
  if (targets.empty()) return std::nullopt;
  const bool one_target = targets.size() == 1;
  const int window = kTargetWindowSteps;
  ReportTable t = make_table(
      fmt::format("Time to target loss{}: seconds from the first step until the loss (mean over "
                  "the last {} steps of every worker) first reached it, and the samples trained "
                  "by then; not reached: the loss it ended at",
                  one_target ? fmt::format(" {:.6g}", targets.front()) : "", window),
      [&](const TrainRun& run) -> std::string {
        const auto& t = run.time_to_target;
        if (!t) return "-";
        const std::string to = one_target ? "" : fmt::format("to {:.6g}: ", t->target_loss);
        return t->reached ? fmt::format("{}{:.2f} s, {} samples", to, t->seconds, t->samples)
                          : fmt::format("{}not reached ({:.4f})", to, t->smoothed_loss);
      });
  // Rows of runs without a target (or simulated ones, which have none) go;
  // "-" marks a missing one, also with " (FAILED CHECK)" after it.
  std::erase_if(t.rows, [&](const std::vector<std::string>& row) {
    return std::all_of(row.begin() + std::ptrdiff_t(t.label_columns), row.end(),
                       [](const std::string& cell) { return cell.starts_with("-"); });
  });
  // The note on external references, only when one of their rows is left
  // (the reference script has no --target-loss).
  if (std::none_of(t.rows.begin(), t.rows.end(), [](const std::vector<std::string>& row) {
        return row[3].find(" (external)") != std::string::npos;
      }))
    t.notes.clear();
  return t;
}

}  // namespace

std::vector<ReportTable> training_report(std::span<const StoredRecord> records) {
  // Measured and simulated runs are two sets, each with its own baseline;
  // a simulated row sits under its measured twin, labelled as simulated.
  const std::vector<TrainRun> measured =
      latest_train_runs(records, [](const TrainRun& r) { return !r.simulated; });
  const std::vector<TrainRun> simulated =
      latest_train_runs(records, [](const TrainRun& r) { return r.simulated; });
  auto runs_of = [&](bool sim) -> const std::vector<TrainRun>& { return sim ? simulated : measured; };
  // (workload, strategy, simulated) rows and worker-count columns, in order of first appearance.
  std::vector<std::tuple<Workload, std::string, bool>> rows;
  std::vector<int> worker_counts;
  for (const auto* set : {&measured, &simulated})
    for (const auto& run : *set) {
      const std::tuple key{run.workload, run.strategy, run.simulated};
      if (std::find(rows.begin(), rows.end(), key) == rows.end()) {
        const auto twin =
            std::find(rows.begin(), rows.end(), std::tuple{run.workload, run.strategy, false});
        rows.insert(run.simulated && twin != rows.end() ? twin + 1 : rows.end(), key);
      }
      if (std::find(worker_counts.begin(), worker_counts.end(), run.workers) == worker_counts.end())
        worker_counts.push_back(run.workers);
    }
  if (rows.empty()) return {};
  std::sort(worker_counts.begin(), worker_counts.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    const Workload &x = std::get<0>(a), &y = std::get<0>(b);
    return std::tie(x.model, x.compute) < std::tie(y.model, y.compute);
  });
  // Runs on an emulated cluster or at a time scale name what they stand for.
  const bool any_setup = std::any_of(rows.begin(), rows.end(), [](const auto& row) {
    return !std::get<0>(row).setup.empty();
  });
  const bool any_scaled = std::any_of(measured.begin(), measured.end(),
                                      [](const TrainRun& run) { return run.time_scale != 1; }) ||
                          std::any_of(simulated.begin(), simulated.end(),
                                      [](const TrainRun& run) { return run.time_scale != 1; });

  // External references (another framework's runs, e.g. PyTorch DDP) stand
  // in the same table, their rows marked and a note under every table.
  std::vector<std::pair<std::string, std::string>> externals;  // strategy, framework
  for (const auto* set : {&measured, &simulated})
    for (const auto& run : *set)
      if (!run.external.empty() &&
          std::find(externals.begin(), externals.end(), std::pair{run.strategy, run.external}) ==
              externals.end())
        externals.emplace_back(run.strategy, run.external);
  auto external_of = [&](const std::string& strategy) -> const std::string* {
    for (const auto& [name, framework] : externals)
      if (name == strategy) return &framework;
    return nullptr;
  };

  auto table = [&](std::string caption, auto cell) {
    ReportTable t;
    t.caption = std::move(caption);
    t.header = {"model", "compute", "batch", "strategy"};
    if (any_setup) t.header.push_back("setup");
    t.label_columns = t.header.size();
    for (int n : worker_counts) t.header.push_back(fmt::format("n={}", n));
    for (const auto& [workload, strategy, sim] : rows) {
      const std::string shown = external_of(strategy) ? strategy + " (external)" : strategy;
      std::vector<std::string> row = {workload.model, workload.compute,
                                      std::to_string(workload.batch),
                                      sim ? shown + " (simulated)" : shown};
      if (any_setup) row.push_back(workload.setup.empty() ? "-" : workload.setup);
      for (int n : worker_counts) {
        const TrainRun* run = find_run(runs_of(sim), workload, strategy, n);
        const std::string chosen = run && run->fusion_chosen_mb
                                       ? fmt::format(" (chose {:.4g}M)", *run->fusion_chosen_mb)
                                       : "";
        row.push_back(run ? cell(*run) + chosen + (run->failed ? " (FAILED CHECK)" : "") : "-");
      }
      t.rows.push_back(std::move(row));
    }
    for (const auto& [name, framework] : externals)
      t.notes.push_back(fmt::format(
          "(external) `{}` is an external reference ({}): its compute is that framework's own, "
          "not gradsync's, so compare it by scaling efficiency and exposed communication, not by "
          "img/sec; its efficiency is against its own run at 1 worker.",
          name, framework));
    return t;
  };

  const std::string baseline(strategy_with_role(StrategyRole::baseline));
  std::vector<ReportTable> tables = {
      table(
          fmt::format("Scaling efficiency: total img/sec at n workers / (n x img/sec of `{}` at 1 "
                      "worker)",
                      baseline),
          [&](const TrainRun& run) {
            const auto efficiency =
                scaling_efficiency(run, baseline_run(runs_of(run.simulated), run));
            if (!efficiency)
              return fmt::format("n/a (no `{}` at n=1)",
                                 run.external.empty() ? baseline : run.strategy);
            return fmt::format("{:.1f}%", 100 * efficiency->value);
          }),
      table(any_scaled ? "Throughput: total img/sec on n workers (+- 1.96 sigma), represented: "
                         "measured x the time scale of the setup"
                       : "Throughput: total img/sec on n workers (+- 1.96 sigma)",
            [](const TrainRun& run) {
              return fmt::format("{:.1f} +-{:.1f}", run.represented_total_img_sec(),
                                 run.represented_total_img_sec_conf());
            }),
      table("Exposed communication: share of the step spent waiting after backward",
            [](const TrainRun& run) { return fmt::format("{:.1f}%", 100 * run.exposed_share); }),
  };
  // With an input stage (train --input): the share of the step spent
  // waiting for the batch, beside the exposed communication.
  const auto input_wait = [](const TrainRun& run) -> std::optional<double> {
    if (!run.breakdown || !run.breakdown->input_wait_s || !(run.breakdown->step_mean_s > 0))
      return std::nullopt;
    return *run.breakdown->input_wait_s / run.breakdown->step_mean_s;
  };
  if (std::ranges::any_of(measured, [&](const TrainRun& r) { return input_wait(r).has_value(); }) ||
      std::ranges::any_of(simulated, [&](const TrainRun& r) { return input_wait(r).has_value(); }))
    tables.push_back(table(
        "Exposed input: share of the step spent waiting for its batch (- : synthetic input, free)",
        [&](const TrainRun& run) {
          const auto share = input_wait(run);
          return share ? fmt::format("{:.1f}%", 100 * *share) : std::string("-");
        }));
  if (auto target = time_to_target_table(measured, table)) tables.push_back(std::move(*target));
  return tables;
}

}  // namespace gradsync
