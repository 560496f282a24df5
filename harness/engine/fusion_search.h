#pragma once
// `--fusion-mb auto`: which fusion threshold makes a step fastest, found by
// measuring a few. One pure function over a measure(threshold) callback, so
// that `train` (measure = a few real steps, agreed across workers) and the
// cost model (measure = the simulated step) run the same search.
//
// The algorithm. The candidates are 0 (no fusion: one allreduce per
// gradient) and the powers of two from 1/4 MiB up to the first power of two
// at or above the model's gradient bytes: below 1/4 MiB a bucket is a few
// small gradients and the per-call cost (latency, the communication thread's
// hand-off) dominates whatever it gains in overlap; at or above the total
// every threshold forms the same one bucket, so nothing above that power of
// two differs from it. Thresholds that form the same buckets (plan_buckets,
// the synchronizer's own rule, over the gradients' sizes in hand-over order)
// are one candidate, the smallest of them: measuring both would measure the
// same step twice. Each candidate is measured once, smallest first. Then one
// refinement round around the best: the geometric midpoints between it and
// each positive neighbour on the grid (e.g. 16 MiB best between 8 and 32:
// 11.3 and 22.6 MiB), each measured unless it forms the buckets of a threshold
// already measured. Then a second look at the leaders: the three best so far
// are measured again (smallest threshold first), and each one's score is the
// mean of its two. On two shared cores one measurement of a few steps
// varies by several percent, about as much as neighbouring thresholds
// differ near the best, so a single lucky measurement had been enough to
// win. The threshold chosen is the leader with the smallest mean score;
// ties go to the smaller threshold. Given the same
// measurements the result is the same, so workers that agree on the
// measurements (train takes the slowest worker's) choose alike.
//
// Cost: about log2(gradient MiB) + 8 measurements (ResNet-50, 98 MiB: at
// most 11 on the grid, 0 and 1/4 to 128 MiB, 2 refinements, 3 second looks;
// VGG-16, 528 MiB: at most 13, 2 and 3).
//
// Why not Bayesian optimization, as Horovod's autotuner (HOROVOD_AUTOTUNE)
// does for its fusion threshold and cycle time together: here the space has
// one dimension (the synchronizer has no cycle time: a bucket goes the moment
// it fills), step time against the threshold's logarithm is close to
// unimodal (too small: per-call costs; too large: no overlap), and the grid
// is small enough to measure whole in a few dozen steps. Enumerating it is
// simpler to trust, deterministic given the measurements, and cannot be
// misled by a surrogate model's prior on a few noisy points.

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace gradsync {

// Steps measured per candidate in `train` (after one discarded at the switch):
// the median of 3 ignores one disturbed step, and 3 keeps a search of ~16
// measurements to about 65 steps (66 for ResNet-50, 70-74 for VGG-16).
inline constexpr int kFusionSearchSteps = 3;

struct FusionCandidate {
  double mb = 0;      // threshold in MiB
  double step_s = 0;  // its score: seconds per step
};

struct FusionSearchResult {
  double chosen_mb = 0;
  std::vector<FusionCandidate> candidates;  // in the order measured (the leaders twice)
};

// The grid: 0, then the powers of two from 1/4 MiB to the first at or above
// the gradients' total, without thresholds that form the buckets of a smaller
// one. `bytes` are the gradients' sizes in the order they are handed over.
std::vector<double> fusion_grid(std::span<const std::size_t> bytes);

// Measures the grid, then the midpoints around its best, then the three
// best again (see above), and chooses the fastest leader. `measure(mb)` returns seconds per step at
// threshold mb.
FusionSearchResult search_fusion(std::span<const std::size_t> bytes,
                                 const std::function<double(double mb)>& measure);

}  // namespace gradsync
