#pragma once
// `hierarchical-mpi`: see hierarchical_mpi.cc for the algorithm and its cost.
// The leaders' ring and tree take ring-mpi's and tree-mpi's options.

#include <memory>
#include <span>

#include "strategies/core/option_flag.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_hierarchical_mpi(const World& world,
                                                const StrategyOptions& options);
std::span<const OptionFlag> hierarchical_mpi_flags();

}  // namespace gradsync
