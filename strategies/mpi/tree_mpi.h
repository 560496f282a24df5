#pragma once
// `tree-mpi`: see tree_mpi.cc for the algorithm and its cost.

#include <cstddef>
#include <memory>
#include <span>

#include "strategies/core/cost.h"
#include "strategies/core/option_flag.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"
#include "strategies/mpi/eager_segment.h"

namespace gradsync {

// The segment a tree runs with: --tree-segment when given, else 256 KiB when
// every rank is on one host (the shared-memory transport: fewer, larger
// segments cost less) and kEagerSegmentBytes when they span hosts
// (eager_segment.h: a larger one waits for a rendezvous behind the data).
inline constexpr std::size_t kTreeSegmentOneHost = 256 * 1024;
inline std::size_t tree_segment_bytes(const TreeMpiOptions& options, bool spans_hosts) {
  if (options.segment_bytes != 0) return options.segment_bytes;
  return spans_hosts ? kEagerSegmentBytes : kTreeSegmentOneHost;
}

std::unique_ptr<Strategy> make_tree_mpi(const World& world, const StrategyOptions& options);
std::span<const OptionFlag> tree_mpi_flags();

// The pipelined binary tree's counts (see tree_mpi.cc): heap order over p
// ranks, reduce and broadcast at once in segments of `segment_bytes`.
CostTerms binary_tree_terms(double bytes, int p, double segment_bytes);
// tree-mpi's cost: the tree over every worker, in tree_segment_bytes.
AllreduceCounts tree_mpi_counts(double bytes, const StrategyOptions& options,
                                const WorkerPlacement& placement);

}  // namespace gradsync
