#pragma once
// `hierarchical-mpi`: see hierarchical_mpi.cc for the algorithm and its cost.
// The leaders' ring and tree take ring-mpi's and tree-mpi's options.

#include <memory>
#include <span>

#include "strategies/option_flag.h"
#include "strategies/strategy.h"

namespace gradsync {

struct HierarchicalMpiOptions {
  // 0: a host is the ranks that share memory (MPI_COMM_TYPE_SHARED). N > 0:
  // consecutive world ranks form emulated hosts of N ranks (the last one may
  // have fewer), so that the several-host path runs on one machine.
  int ranks_per_host = 0;
};

std::unique_ptr<Strategy> make_hierarchical_mpi(const World& world,
                                                const StrategyOptions& options);
std::span<const OptionFlag> hierarchical_mpi_flags();

}  // namespace gradsync
