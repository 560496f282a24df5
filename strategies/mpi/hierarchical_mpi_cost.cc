// hierarchical-mpi's counts (strategies/core/cost.h), phase by phase as
// hierarchical_mpi.cc runs them, on the busiest rank's path: a rank holding a
// shard on the largest host (q ranks; l shards, the smallest host's ranks):
//
//  1. host reduce-scatter: it receives its part of n/l from the q - 1 others
//     and adds each (q - 1 messages and parts through its link in, q - 1
//     parts added), while its own parts go out;
//  2. across hosts: the l positions run ring-mpi's ring on their part over
//     the h hosts one after another (the turn, an empty message, passes
//     within the host between them), so a host's link carries l rings in
//     sequence: l x the ring's counts on n/l, and l - 1 turn messages;
//  3. host allgather: it sends its part to the q - 1 others (q - 1 messages
//     and parts out).
//
// Below kHierarchicalTreeBelowBytes the buffer is one shard: phase 1 brings
// the q - 1 others' whole buffers to the leader, which adds them, phase 2 is
// the leaders' tree-mpi over the hosts, phase 3 sends the result to the q - 1
// others. A part shorter than that (a short buffer's, or a shard of one just
// above it) goes in pieces of kEagerPieceBytes (host_piece_elements). A
// position's part of at most --short-allreduce bytes crosses the hosts by
// the latency path instead (short_allreduce.h), as its ring or tree takes
// it. The host phases run on the links within a node (`intra`), the rings
// or the tree on the links the job spans (`spanning`). One call.

#include <algorithm>

#include "strategies/core/partition.h"
#include "strategies/mpi/hierarchical_mpi.h"
#include "strategies/mpi/ring_mpi.h"
#include "strategies/mpi/short_allreduce.h"
#include "strategies/mpi/tree_mpi.h"

namespace gradsync {

AllreduceCounts hierarchical_terms(double bytes, int hosts, int per_host, int shards,
                                   double ring_segment_bytes, double tree_segment_bytes,
                                   std::size_t short_allreduce_bytes) {
  require_positive_count(hosts, "hierarchical_terms", "hosts");
  require_positive_count(per_host, "hierarchical_terms", "per_host");
  require_positive_count(shards, "hierarchical_terms", "shards");
  const std::uint64_t n = buffer_floats(bytes, "hierarchical_terms");
  if (n == 0 || hosts * per_host == 1) return {};
  const bool one_shard = n * kFloatBytes < kHierarchicalTreeBelowBytes;
  const int l = one_shard ? 1 : std::min(shards, per_host);
  const std::uint64_t part = even_part(n, l, 0).count;  // the largest
  const double others = per_host - 1;
  const double pieces =
      static_cast<double>(piece_count(part, host_piece_elements(part, sizeof(float))));
  AllreduceCounts c;
  c.intra = {.messages = 2 * others * pieces + (l - 1),
             .bytes = 2 * others * static_cast<double>(part) * kFloatBytes,
             .reduced = others * static_cast<double>(part) * kFloatBytes};
  const double part_bytes = static_cast<double>(part) * kFloatBytes;
  if (takes_short_path(part_bytes, hosts, short_allreduce_bytes)) {
    const CostTerms doubling = recursive_doubling_terms(part_bytes, hosts);
    for (int j = 0; j < l; ++j) c.spanning += doubling;
  } else if (one_shard) {
    c.spanning = binary_tree_terms(bytes, hosts, tree_segment_bytes);
  } else {
    const CostTerms ring = ring_terms(part_bytes, hosts, ring_segment_bytes);
    for (int j = 0; j < l; ++j) c.spanning += ring;
  }
  c.spanning.calls = 1;
  c.intra.calls = 0;
  return c;
}

AllreduceCounts hierarchical_mpi_counts(double bytes, const StrategyOptions& options,
                                        const WorkerPlacement& placement) {
  const int p = placement.workers;
  require_positive_count(p, "hierarchical_mpi_counts", "workers");
  const int per_host = std::min(p, options.hierarchical.ranks_per_host > 0
                                       ? options.hierarchical.ranks_per_host
                                       : placement.workers_per_node);
  const int hosts = (p + per_host - 1) / per_host;
  const int smallest = p - (hosts - 1) * per_host;
  return hierarchical_terms(bytes, hosts, per_host, smallest, double(options.ring.segment_bytes),
                            double(tree_segment_bytes(options.tree, placement.nodes() > 1)),
                            options.short_allreduce_bytes);
}

}  // namespace gradsync
