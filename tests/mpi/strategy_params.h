#pragma once
// Shared by the multi-rank tests parameterized over strategies: the names of
// every strategy usable in this build, and a GoogleTest name for each.

#include <string>
#include <vector>

#include "registry.h"

namespace gradsync::testing {

inline std::vector<std::string> usable_strategies() {
  std::vector<std::string> names;
  for (const auto& info : strategy_table())
    if (info.availability().usable) names.emplace_back(info.name);
  return names;
}

// "ring-mpi" -> "ring_mpi": test names allow letters, digits and underscores.
inline std::string test_name(std::string name) {
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

}  // namespace gradsync::testing
