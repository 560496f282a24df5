#pragma once
// Scaling efficiency, computed here and nowhere else (report's tables, its
// JSON form and through it the plots, sweep's closing table):
//   efficiency(N) = total img/sec at N workers / (N x total img/sec of the
//                   baseline at 1 worker),
// the baseline being the run of the table's baseline strategy (the one that
// synchronizes nothing) at one worker with the same workload. The workload
// includes the setup (workload.h), so a baseline measured at another time
// scale or on another cluster is never used: measured and represented
// throughput then give the same ratio. The run's own 1.96-sigma interval is
// carried onto the same scale: conf(N) / (N x baseline).
// An external reference (TrainRun::external: another framework's run, e.g.
// PyTorch DDP) computes with that framework, not with gradsync: its baseline
// is its own run at one worker, so that its efficiency measures how it
// scales, never how fast its compute is against gradsync's.

#include <optional>
#include <span>

#include "harness/results/train_runs.h"

namespace gradsync {

// The baseline strategy's run at one worker of `workload`, or nullptr.
const TrainRun* baseline_run(const TrainRunIndex& runs, const Workload& workload);
// The baseline of `run`: the one above, or for an external reference the same
// strategy's run at one worker of the same workload (nullptr when none).
const TrainRun* baseline_run(const TrainRunIndex& runs, const TrainRun& run);

struct Efficiency {
  double value = 0;  // a fraction of ideal: 1 = perfect linear scaling
  double conf = 0;   // the 1.96-sigma interval on the same scale
};

// Nothing when there is no baseline or it measured no throughput.
std::optional<Efficiency> scaling_efficiency(const TrainRun& run, const TrainRun* baseline);

}  // namespace gradsync
