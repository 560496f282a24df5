#include "harness/results/train_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "harness/results/choice_table.h"
#include "harness/results/efficiency.h"
#include "harness/results/train_grid.h"
#include "harness/results/train_runs.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

std::string percent(double share) { return fmt::format("{:.1f}%", 100 * share); }

bool any_run(const TrainGrid& grid, const std::function<bool(const TrainRun&)>& test) {
  return std::ranges::any_of(grid.rows, [&](const TrainRow& row) {
    return std::ranges::any_of(row.runs, [&](const TrainRun* run) { return run && test(*run); });
  });
}

// Measured and simulated runs are two sets, each with its own baseline.
ReportTable efficiency_table(const TrainGrid& grid, std::span<const TrainRun> measured,
                             std::span<const TrainRun> simulated) {
  const std::string baseline(strategy_with_role(StrategyRole::baseline));
  const TrainRunIndex measured_runs(measured), simulated_runs(simulated);
  return train_table(
      grid,
      fmt::format("Scaling efficiency: total img/sec at n workers / (n x img/sec of `{}` at 1 "
                  "worker)",
                  baseline),
      [&](const TrainRun& run) {
        const auto efficiency = scaling_efficiency(
            run, baseline_run(run.simulated ? simulated_runs : measured_runs, run));
        if (!efficiency)
          return fmt::format("n/a (no `{}` at n=1)",
                             run.external.empty() ? baseline : run.strategy);
        return percent(efficiency->value);
      });
}

ReportTable throughput_table(const TrainGrid& grid) {
  const bool any_scaled = any_run(grid, [](const TrainRun& run) { return run.time_scale != 1; });
  return train_table(grid,
                     any_scaled ? "Throughput: total img/sec on n workers (+- 1.96 sigma), "
                                  "represented: measured x the time scale of the setup"
                                : "Throughput: total img/sec on n workers (+- 1.96 sigma)",
                     [](const TrainRun& run) {
                       return fmt::format("{:.1f} +-{:.1f}", run.represented_total_img_sec(),
                                          run.represented_total_img_sec_conf());
                     });
}

// With an input stage (train --input): the share of the step spent waiting
// for the batch; none with synthetic input.
std::optional<double> input_wait_share(const TrainRun& run) {
  if (!run.breakdown || !run.breakdown->input_wait_s || !(run.breakdown->step_mean_s > 0))
    return std::nullopt;
  return *run.breakdown->input_wait_s / run.breakdown->step_mean_s;
}

// Time to target loss, for the measured runs made with --target-loss: the
// rows with a run that has one (simulated runs never do). The target is
// named in the caption when every measured run had the same, else in each
// cell. Nothing when no measured run had one.
std::optional<ReportTable> time_to_target_table(TrainGrid grid,
                                                std::span<const TrainRun> measured) {
  std::vector<double> targets;
  for (const TrainRun& run : measured)
    if (run.time_to_target &&
        std::ranges::find(targets, run.time_to_target->target_loss) == targets.end())
      targets.push_back(run.time_to_target->target_loss);
  if (targets.empty()) return std::nullopt;
  std::erase_if(grid.rows, [](const TrainRow& row) {
    return std::ranges::none_of(row.runs,
                                [](const TrainRun* run) { return run && run->time_to_target; });
  });
  // The note on external references, only when one of their rows is left
  // (the reference script has no --target-loss).
  if (std::ranges::none_of(grid.rows, &TrainRow::is_external)) grid.externals.clear();
  const bool one_target = targets.size() == 1;
  return train_table(
      grid,
      fmt::format("Time to target loss{}: seconds from the first step until the loss (mean over "
                  "the last {} steps of every worker) first reached it, and the samples trained "
                  "by then; not reached: the loss it ended at",
                  one_target ? fmt::format(" {:.6g}", targets.front()) : "", kTargetWindowSteps),
      [&](const TrainRun& run) -> std::optional<std::string> {
        const auto& t = run.time_to_target;
        if (!t) return std::nullopt;
        const std::string to = one_target ? "" : fmt::format("to {:.6g}: ", t->target_loss);
        return t->reached ? fmt::format("{}{:.2f} s, {} samples", to, t->seconds, t->samples)
                          : fmt::format("{}not reached ({:.4f})", to, t->smoothed_loss);
      });
}

}  // namespace

std::vector<ReportTable> training_report(std::span<const StoredRecord> records) {
  TrainSides sides;
  for (const auto& record : records) sides.add(record);
  return training_report(sides.measured(), sides.simulated());
}

std::vector<ReportTable> training_report(std::span<const TrainRun> measured,
                                         std::span<const TrainRun> simulated) {
  const TrainGrid grid = train_grid(measured, simulated);
  if (grid.rows.empty()) return {};
  std::vector<ReportTable> tables = {
      efficiency_table(grid, measured, simulated), throughput_table(grid),
      train_table(grid, "Exposed communication: share of the step spent waiting after backward",
                  [](const TrainRun& run) { return percent(run.exposed_comm_share); })};
  if (any_run(grid, [](const TrainRun& run) { return input_wait_share(run).has_value(); }))
    tables.push_back(train_table(
        grid,
        "Exposed input: share of the step spent waiting for its batch (- : synthetic input, free)",
        [](const TrainRun& run) -> std::optional<std::string> {
          const auto share = input_wait_share(run);
          if (!share) return std::nullopt;
          return percent(*share);
        }));
  if (any_run(grid, [](const TrainRun& run) { return run.memory_bytes.has_value(); }))
    tables.push_back(train_table(
        grid,
        "Memory per worker: MiB of the model's state it holds (parameters, gradients, optimizer "
        "state, gathered buffers; activations not counted)",
        [](const TrainRun& run) -> std::optional<std::string> {
          if (!run.memory_bytes) return std::nullopt;
          return fmt::format("{:.1f}", *run.memory_bytes / 1048576.0);
        }));
  if (auto target = time_to_target_table(grid, measured)) tables.push_back(std::move(*target));
  for (ReportTable& choice : choice_tables(grid, measured, simulated))
    tables.push_back(std::move(choice));
  return tables;
}

}  // namespace gradsync
