#pragma once
// `hierarchical-mpi`: see hierarchical_mpi.cc for the algorithm and its cost.
// The leaders' ring and tree take ring-mpi's and tree-mpi's options.

#include <cstddef>
#include <memory>
#include <span>

#include "strategies/core/cost.h"
#include "strategies/core/option_flag.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"
#include "strategies/mpi/eager_segment.h"

namespace gradsync {

std::unique_ptr<Strategy> make_hierarchical_mpi(const World& world,
                                                const StrategyOptions& options);
std::span<const OptionFlag> hierarchical_mpi_flags();

// Below this many bytes the leaders use tree-mpi, at and above it ring-mpi.
inline constexpr std::size_t kHierarchicalTreeBelowBytes = 64 * 1024;

// Elements per message of a host phase's part of `count` elements of
// `element_bytes` each: a part shorter than kHierarchicalTreeBelowBytes goes
// in pieces under the shared-memory transport's eager limit
// (eager_segment.h), a longer one whole. The strategy and its counts both
// cut by it.
inline std::size_t host_piece_elements(std::size_t count, std::size_t element_bytes) {
  if (count * element_bytes < kHierarchicalTreeBelowBytes) return kEagerPieceBytes / element_bytes;
  return count;
}

// The counts of hierarchical-mpi over `hosts` hosts, the largest of
// `per_host` ranks and the smallest of `shards` (hierarchical_mpi_cost.cc):
// `intra` the host phases, `spanning` the rings (or the leaders' tree, or
// the latency path up to `short_allreduce_bytes` a part) across hosts.
AllreduceCounts hierarchical_terms(double bytes, int hosts, int per_host, int shards,
                                   double ring_segment_bytes, double tree_segment_bytes,
                                   std::size_t short_allreduce_bytes);
// hierarchical-mpi's cost: hosts are the placement's nodes, or with
// --hierarchical-ranks-per-host N emulated hosts of N consecutive workers.
AllreduceCounts hierarchical_mpi_counts(double bytes, const StrategyOptions& options,
                                        const WorkerPlacement& placement);

}  // namespace gradsync
