#include "harness/results/train_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "harness/results/efficiency.h"
#include "harness/results/train_runs.h"
#include "strategies/registry.h"

namespace gradsync {

std::vector<ReportTable> training_report(std::span<const StoredRecord> records) {
  // Every train record counts here, measured or simulated alike.
  const std::vector<TrainRun> runs =
      latest_train_runs(records, [](const TrainRun&) { return true; });
  // (workload, strategy) rows and worker-count columns, in order of first appearance.
  std::vector<std::pair<Workload, std::string>> rows;
  std::vector<int> worker_counts;
  for (const auto& run : runs) {
    const std::pair key{run.workload, run.strategy};
    if (std::find(rows.begin(), rows.end(), key) == rows.end()) rows.push_back(key);
    if (std::find(worker_counts.begin(), worker_counts.end(), run.workers) == worker_counts.end())
      worker_counts.push_back(run.workers);
  }
  if (rows.empty()) return {};
  std::sort(worker_counts.begin(), worker_counts.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.model, a.first.compute) < std::tie(b.first.model, b.first.compute);
  });
  // Runs on an emulated cluster or at a time scale name what they stand for.
  const bool any_setup = std::any_of(rows.begin(), rows.end(),
                                     [](const auto& row) { return !row.first.setup.empty(); });
  const bool any_scaled = std::any_of(runs.begin(), runs.end(),
                                      [](const TrainRun& run) { return run.time_scale != 1; });

  auto table = [&](std::string caption, auto cell) {
    ReportTable t;
    t.caption = std::move(caption);
    t.header = {"model", "compute", "batch", "strategy"};
    if (any_setup) t.header.push_back("setup");
    t.label_columns = t.header.size();
    for (int n : worker_counts) t.header.push_back(fmt::format("n={}", n));
    for (const auto& [workload, strategy] : rows) {
      std::vector<std::string> row = {workload.model, workload.compute,
                                      std::to_string(workload.batch), strategy};
      if (any_setup) row.push_back(workload.setup.empty() ? "-" : workload.setup);
      for (int n : worker_counts) {
        const TrainRun* run = find_run(runs, workload, strategy, n);
        row.push_back(run ? cell(*run) + (run->failed ? " (FAILED CHECK)" : "") : "-");
      }
      t.rows.push_back(std::move(row));
    }
    return t;
  };

  const std::string baseline(strategy_with_role(StrategyRole::baseline));
  return {
      table(
          fmt::format("Scaling efficiency: total img/sec at n workers / (n x img/sec of `{}` at 1 "
                      "worker)",
                      baseline),
          [&](const TrainRun& run) {
            const auto efficiency = scaling_efficiency(run, baseline_run(runs, run.workload));
            if (!efficiency) return fmt::format("n/a (no `{}` at n=1)", baseline);
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
}

}  // namespace gradsync
