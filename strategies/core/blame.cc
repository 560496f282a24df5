#include "strategies/core/blame.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <set>

namespace gradsync {

Blame judge_stall(int me, std::span<const int> my_waits,
                  const std::map<int, std::vector<int>>& told) {
  std::map<int, std::vector<int>> waits = told;
  waits[me].assign(my_waits.begin(), my_waits.end());

  // Breadth first from this rank along "waits for" edges: a rank that told
  // is followed; one that did not is where a chain ends.
  std::set<int> seen{me}, stopped;
  std::deque<int> next{me};
  while (!next.empty()) {
    const int rank = next.front();
    next.pop_front();
    for (int peer : waits[rank]) {
      if (!seen.insert(peer).second) continue;
      if (waits.contains(peer)) {
        next.push_back(peer);
      } else {
        stopped.insert(peer);
      }
    }
  }

  Blame blame;
  for (const auto& [rank, direct] : waits) blame.behind.push_back(rank);
  if (stopped.empty()) {  // a circle of waiting ranks: the lowest speaks
    blame.circle = true;
    blame.speaker = blame.behind.front();
    return blame;
  }
  blame.stopped.assign(stopped.begin(), stopped.end());
  // The lowest rank that waits for a stopped rank directly speaks: of every
  // rank that told, not only those this rank's chain passes, so that ranks
  // with other chains to the same stopped rank name the same speaker.
  for (const auto& [rank, direct] : waits) {
    if (std::any_of(direct.begin(), direct.end(),
                    [&](int peer) { return stopped.contains(peer); })) {
      blame.speaker = rank;
      break;
    }
  }
  return blame;
}

std::string ranks_text(std::span<const int> ranks) {
  return fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", fmt::join(ranks, ", "));
}

}  // namespace gradsync
