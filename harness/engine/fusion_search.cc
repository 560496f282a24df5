// The search of fusion_search.h: a deduplicated log-2 grid, one refinement
// round of geometric midpoints around its best, a second look at the three
// best, the minimum of their mean scores.
#include "harness/engine/fusion_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "harness/engine/fusion_plan.h"

namespace gradsync {
namespace {

constexpr double kSmallestMb = 0.25;
constexpr std::size_t kLeaders = 3;  // candidates given a second look

using Plan = std::vector<std::vector<std::size_t>>;

Plan plan_of(std::span<const std::size_t> bytes, double mb) {
  std::vector<std::size_t> order(bytes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  return plan_buckets(order, bytes, FusionRule(mb));
}

}  // namespace

std::vector<double> fusion_grid(std::span<const std::size_t> bytes) {
  const double total_mb =
      double(std::accumulate(bytes.begin(), bytes.end(), std::size_t{0})) / (1024.0 * 1024.0);
  std::vector<double> grid;
  std::vector<Plan> plans;
  auto add = [&](double mb) {
    Plan plan = plan_of(bytes, mb);
    if (std::find(plans.begin(), plans.end(), plan) != plans.end()) return;
    plans.push_back(std::move(plan));
    grid.push_back(mb);
  };
  add(0);
  for (double mb = kSmallestMb;; mb *= 2) {
    add(mb);
    if (mb >= total_mb) break;
  }
  return grid;
}

FusionSearchResult search_fusion(std::span<const std::size_t> bytes,
                                 const std::function<double(double mb)>& measure) {
  FusionSearchResult result;
  std::vector<Plan> measured;  // the plan of each candidate, in result.candidates' order
  auto try_mb = [&](double mb) {
    Plan plan = plan_of(bytes, mb);
    if (std::find(measured.begin(), measured.end(), plan) != measured.end()) return;
    measured.push_back(std::move(plan));
    result.candidates.push_back({mb, measure(mb)});
  };
  // The better of two candidates: the faster, or at equal times the smaller.
  auto better = [](const FusionCandidate& a, const FusionCandidate& b) {
    return a.step_s < b.step_s || (a.step_s == b.step_s && a.mb < b.mb);
  };
  const std::vector<double> grid = fusion_grid(bytes);
  for (double mb : grid) try_mb(mb);
  const auto best = std::min_element(result.candidates.begin(), result.candidates.end(), better);
  const std::size_t at =
      std::size_t(best - result.candidates.begin());  // grid and candidates align
  const double centre = grid[at];
  if (centre > 0) {
    if (at > 0 && grid[at - 1] > 0) try_mb(std::sqrt(grid[at - 1] * centre));
    if (at + 1 < grid.size()) try_mb(std::sqrt(centre * grid[at + 1]));
  }
  // A second look at the leaders: the kLeaders best so far measured again,
  // smallest threshold first; each one's score is the mean of its two.
  std::vector<FusionCandidate> leaders = result.candidates;
  std::sort(leaders.begin(), leaders.end(), better);
  leaders.resize(std::min(leaders.size(), kLeaders));
  std::sort(leaders.begin(), leaders.end(),
            [](const FusionCandidate& a, const FusionCandidate& b) { return a.mb < b.mb; });
  for (FusionCandidate& leader : leaders) {
    const double again = measure(leader.mb);
    result.candidates.push_back({leader.mb, again});
    leader.step_s = (leader.step_s + again) / 2;
  }
  result.chosen_mb = std::min_element(leaders.begin(), leaders.end(), better)->mb;
  return result;
}

}  // namespace gradsync
