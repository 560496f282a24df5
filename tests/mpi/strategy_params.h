#pragma once
// Shared by the multi-rank tests parameterized over strategies: the names of
// every strategy usable in this build, and a GoogleTest name for each.

#include <string>
#include <vector>

#include "strategies/registry.h"
#include "tests/unit/device_test_support.h"

namespace gradsync::testing {

// Host-memory strategies only: the NCCL ones need a GPU per rank, and
// gpu_strategies_test.cc runs them where there are enough.
inline std::vector<std::string> usable_strategies() {
  std::vector<std::string> names;
  for (const auto& info : strategy_table())
    if (info.memory == MemoryKind::host && info.availability().usable) names.emplace_back(info.name);
  return names;
}

// Why `strategy` cannot run on this job's GPUs (empty: it can), the same on
// every rank; collective.
inline std::string no_gpus_for(const World& world, const std::string& strategy) {
  return gpu_per_rank(world, gpu_need(find_strategy(strategy), {}, world.rank())).why;
}

// Worker `rank`'s input at element i: a small integer (-8..8), so that every
// sum over workers is exact in float and results compare with ==.
inline float exact_input(int rank, std::size_t i) {
  return static_cast<float>(static_cast<int>((rank * 31 + i * 7) % 17) - 8);
}

inline float exact_sum(int workers, std::size_t i) {
  float sum = 0;
  for (int r = 0; r < workers; ++r) sum += exact_input(r, i);
  return sum;
}

// "ring-mpi" -> "ring_mpi": test names allow letters, digits and underscores.
inline std::string test_name(std::string name) {
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

}  // namespace gradsync::testing
