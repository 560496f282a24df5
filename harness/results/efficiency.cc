#include "harness/results/efficiency.h"

#include <string>

#include "strategies/registry.h"

namespace gradsync {

const TrainRun* baseline_run(const TrainRunIndex& runs, const Workload& workload) {
  return runs.find(workload, std::string(strategy_with_role(StrategyRole::baseline)), 1);
}

const TrainRun* baseline_run(const TrainRunIndex& runs, const TrainRun& run) {
  if (run.external.empty()) return baseline_run(runs, run.workload);
  return runs.find(run.workload, run.strategy, 1);
}

std::optional<Efficiency> scaling_efficiency(const TrainRun& run, const TrainRun* baseline) {
  if (!baseline || baseline->total_img_sec() <= 0 || run.workers <= 0) return std::nullopt;
  const double ideal = run.workers * baseline->total_img_sec();
  return Efficiency{run.total_img_sec() / ideal, run.total_img_sec_conf() / ideal};
}

}  // namespace gradsync
