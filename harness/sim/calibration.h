#pragma once
// `gradsync calibrate`'s fit: per strategy, --compression and link class,
// the constants of harness/sim/cost_params.h (per-call overhead o,
// per-message latency alpha, per-byte transfer beta, per-byte reduction
// gamma, contention delta) that best explain measured allreduce times
// through the strategy's own counts (its table entry's, strategy_counts),
// by non-negative least squares on relative error (harness/sim/fit.h). A
// group whose data cannot tell two constants apart is refused with one line
// saying what to measure, except where a constant moves in step with beta
// whatever is measured: then it is folded into beta, which predicts the
// strategy as well over the sizes measured, and the fit says so (the
// collinearity step, calibration_columns.h).

#include <functional>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/sim/cluster_model.h"
#include "harness/sim/strategy_cost.h"

namespace gradsync::sim {

// One measured allreduce time.
struct CalibrationPoint {
  const StrategyInfo* strategy = nullptr;
  StrategyOptions options;
  WorkerPlacement placement;
  double bytes = 0;
  double time_s = 0;
  double link_bits_per_s = 0;  // the emulated link's shaped rate; 0 when not known
  std::string origin;          // "file:line"
};

struct PointFit {
  const CalibrationPoint* point = nullptr;
  std::string link;
  double fitted_s = 0;
  double error() const { return (fitted_s - point->time_s) / point->time_s; }
};

struct Calibration {
  std::vector<StrategyFit> fits;
  std::vector<PointFit> points;    // every point used, grouped by fit
  std::vector<std::string> notes;  // what was left out and why
};

// Thrown when the data cannot identify a constant; the message is one line.
struct CalibrationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Groups the points by strategy, --compression, link class (and worker
// count, for a black box) and fits each group. Points the model cannot cost
// (uncosted_reason: --ps-mode async, test faults), of a strategy with its
// own model (NCCL's), of one worker or size 0, or of a strategy that moves
// nothing (`none`) are left out, each kind with a note.
Calibration calibrate(std::span<const CalibrationPoint> points);

// What the machine that runs `calibrate` measured, for what the fits cannot
// tell: how fast it adds fp32 bytes (gamma, when every fit folded it into
// beta), and by 16-bit format ("fp16", "bf16") how fast it casts and how
// much longer it takes to add a 16-bit byte.
struct LocalRates {
  double reduce_bytes_per_s = 0;
  struct Compression {
    double casts_bytes_per_s = 0;
    double sum_cost_ratio = 1;
  };
  std::map<std::string, Compression> compression_costs;
};

// The one ranking of fits as measures of their link, for the link's floor
// (calibrate) and the cluster's link constants (calibrated_cluster): fp32
// first, then fitted over every worker count (not a black box's), then of a
// strategy whose entry says its constants are the link's
// (StrategyCost::measures_links: a ring), then one flow per link (no incast
// in its data), then more points, then the smaller median error. Whether
// `a` ranks strictly above `b`.
bool measures_link_better(const StrategyFit& a, const StrategyFit& b);

// The best of the fits that `among` accepts by that ranking, the first of
// equals; nullptr when it accepts none.
const StrategyFit* best_link_fit(std::span<const StrategyFit> fits,
                                 const std::function<bool(const StrategyFit&)>& among);

// A cluster model whose link-level constants come from `calibration` (on
// each class, the best fit on it by best_link_fit; else the best other
// fit), its shape (nodes, workers per node) from the points, and what the
// fits cannot tell from `local`.
ClusterModel calibrated_cluster(const Calibration& calibration,
                                std::span<const CalibrationPoint> points, const LocalRates& local,
                                std::string name);

}  // namespace gradsync::sim
