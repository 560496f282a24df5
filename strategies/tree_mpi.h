#pragma once
// `tree-mpi`: see tree_mpi.cc for the algorithm and its cost.

#include <cstddef>
#include <memory>
#include <span>

#include "strategies/option_flag.h"
#include "strategies/strategy.h"

namespace gradsync {

struct TreeMpiOptions {
  // Elements move down and up the tree in segments of this size (a pipeline).
  std::size_t segment_bytes = 256 * 1024;
};

std::unique_ptr<Strategy> make_tree_mpi(const World& world, const StrategyOptions& options);
std::span<const OptionFlag> tree_mpi_flags();

}  // namespace gradsync
