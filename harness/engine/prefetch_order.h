#pragma once
// Prefetch as FSDP's: the units a pass (a forward or a backward) asks for,
// in order, recorded, and the order the pass followed the step before, by
// which asking for the n-th unit names the (n+1)-th to gather early. One
// rule for the fully sharded worker (fully_sharded_replica.h), which records
// its passes, and the cost model's play of its step (harness/sim/), which
// knows the order from the graph.

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace gradsync {

struct PrefetchOrder {
  std::vector<std::size_t> asked;   // this pass, so far
  std::vector<std::size_t> before;  // the order the pass follows (the step before's)

  // Records `unit` when it differs from the last one asked; returns the unit
  // the order asks for next, if this pass still follows it.
  std::optional<std::size_t> ask(std::size_t unit) {
    if (!asked.empty() && asked.back() == unit) return std::nullopt;
    asked.push_back(unit);
    const std::size_t n = asked.size();
    if (n < before.size() && before[n - 1] == unit) return before[n];
    return std::nullopt;
  }
  // The pass ended: what it asked is the order the next one follows.
  void next_step() {
    before = std::move(asked);
    asked.clear();
  }
};

}  // namespace gradsync
