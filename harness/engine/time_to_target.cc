#include "harness/engine/time_to_target.h"

#include <algorithm>
#include <deque>
#include <numeric>

namespace gradsync {
namespace {

// One point of the loss curve: when it ended, and its loss.
struct CurvePoint {
  double end_s = 0;
  double loss = 0;
};

// Lockstep: step s of the run is step s of every worker, ending when the
// last of them ends it, at the mean of their losses.
std::vector<CurvePoint> lockstep_curve(std::span<const std::vector<LossNote>> notes) {
  std::size_t steps = notes.empty() ? 0 : notes.front().size();
  for (const auto& worker : notes) steps = std::min(steps, worker.size());
  std::vector<CurvePoint> curve(steps);
  for (std::size_t s = 0; s < steps; ++s) {
    for (const auto& worker : notes) {
      curve[s].end_s = std::max(curve[s].end_s, worker[s].end_s);
      curve[s].loss += worker[s].loss;
    }
    curve[s].loss /= double(notes.size());
  }
  return curve;
}

// Free-running: every worker's steps as they come, in time order (stable: a
// worker's own steps keep their order when they end at the same time).
std::vector<CurvePoint> merged_curve(std::span<const std::vector<LossNote>> notes) {
  std::vector<CurvePoint> curve;
  for (const auto& worker : notes)
    for (const LossNote& note : worker) curve.push_back({note.end_s, note.loss});
  std::stable_sort(curve.begin(), curve.end(),
                   [](const CurvePoint& a, const CurvePoint& b) { return a.end_s < b.end_s; });
  return curve;
}

}  // namespace

TimeToTarget time_to_target(std::span<const std::vector<LossNote>> notes, double target_loss,
                            int batch, Pace pace, int window_steps) {
  TimeToTarget result;
  result.target_loss = target_loss;
  result.window_steps = window_steps;
  const std::size_t workers = std::max<std::size_t>(1, notes.size());
  const bool lockstep = pace == Pace::lockstep;
  const std::vector<CurvePoint> curve = lockstep ? lockstep_curve(notes) : merged_curve(notes);
  // A lockstep point is a step of every worker; a free one a step of one.
  const std::uint64_t samples_per_point = std::uint64_t(batch) * (lockstep ? workers : 1);
  const std::size_t window = std::size_t(std::max(1, window_steps)) * (lockstep ? 1 : workers);
  std::deque<double> last;  // the window's losses, summed afresh each time (no drift)
  for (std::size_t i = 0; i < curve.size(); ++i) {
    last.push_back(curve[i].loss);
    if (last.size() > window) last.pop_front();
    result.seconds = curve[i].end_s;
    result.samples = std::uint64_t(i + 1) * samples_per_point;
    result.smoothed_loss = std::accumulate(last.begin(), last.end(), 0.0) / double(last.size());
    if (last.size() == window && result.smoothed_loss <= target_loss) {
      result.reached = true;
      return result;
    }
  }
  return result;
}

}  // namespace gradsync
