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
// segments cost less) and 32 KiB when they span hosts.
//
// Across hosts a tree node exchanges a segment with each of its tree links
// at once (up to three in tree-mpi, four in double-tree-mpi's two trees), and
// its neighbours' segments converge on its one port. What a node's links put
// on the wire together must pass in one burst of that port, or every segment
// waits behind the others (nothing is lost, the wait grows as the link
// slows). On the emulated cluster (8 hosts, MTU 9000, 16 MiB) double-tree-mpi
// took 2.0x its link time with 64 KiB segments at 250mbit and 2.15x with
// 128 KiB at 500mbit, but 1.02x with 32 KiB at 250mbit and at 500mbit;
// tree-mpi 1.18x with 64 KiB and 1.03x with 32 KiB at 500mbit (one run);
// 2 and 4 hosts did not change. Four links of 32 KiB stay within 128 KiB, a shallow switch port's
// share of buffer; 32 KiB is also below Open MPI's TCP eager limit
// (eager_segment.h), so a segment never waits for a rendezvous.
inline constexpr std::size_t kTreeSegmentOneHost = 256 * 1024;
inline constexpr std::size_t kTreeSegmentAcrossHosts = 32 * 1024;
static_assert(kTreeSegmentAcrossHosts <= kEagerSegmentBytes);
inline std::size_t tree_segment_bytes(const TreeMpiOptions& options, bool spans_hosts) {
  if (options.segment_bytes != 0) return options.segment_bytes;
  return spans_hosts ? kTreeSegmentAcrossHosts : kTreeSegmentOneHost;
}

std::unique_ptr<Strategy> make_tree_mpi(const World& world, const StrategyOptions& options);
std::span<const OptionFlag> tree_mpi_flags();

// The pipelined binary tree's counts (see tree_mpi.cc): heap order over p
// ranks, reduce and broadcast at once in segments of `segment_bytes`, the
// ranks filling nodes of `per_node` in rank order.
CostTerms binary_tree_terms(double bytes, int p, double segment_bytes, int per_node = 1);
// tree-mpi's cost: the tree over every worker, in tree_segment_bytes.
AllreduceCounts tree_mpi_counts(double bytes, const StrategyOptions& options,
                                const WorkerPlacement& placement);

}  // namespace gradsync
