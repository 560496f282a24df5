#pragma once
// `gradsync calibrate`'s fit: per strategy and link class, the four constants
// of harness/sim/collective_cost.h (per-call overhead o, per-message latency
// alpha, per-byte transfer beta, per-byte reduction gamma) that best explain
// measured allreduce times through the strategy's own counts
// (strategy_terms), by non-negative least squares on relative error
// (harness/sim/fit.h). A group whose data cannot tell two constants apart
// is refused with one line saying what to measure, except two cases that
// are folded into beta, which predicts the strategy as well over the sizes
// measured, and the fit says so: gamma when the data vary reduction and
// transfer together (a ring always does), and alpha when every message was a
// whole segment (no size below the segment was measured).

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/sim/cluster_model.h"
#include "harness/sim/strategy_cost.h"

namespace gradsync::sim {

// One measured allreduce time.
struct CalibrationPoint {
  std::string strategy;
  StrategyOptions options;
  Placement placement;
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
  std::vector<PointFit> points;  // every point used, grouped by fit
  std::vector<std::string> notes;  // what was left out and why
};

// Thrown when the data cannot identify a constant; the message is one line.
struct CalibrationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Calibration calibrate(std::span<const CalibrationPoint> points);

// A cluster model whose link-level constants come from `calibration` (the
// ring's fit where there is one, else the first fit on that class), its
// shape (nodes, workers per node) from the points, and whose gamma, when no
// fit could identify it, is `measured_reduce_bytes_per_s` (a reduction
// kernel timed on this machine).
ClusterModel calibrated_cluster(const Calibration& calibration,
                                std::span<const CalibrationPoint> points,
                                double measured_reduce_bytes_per_s, std::string name);

}  // namespace gradsync::sim
