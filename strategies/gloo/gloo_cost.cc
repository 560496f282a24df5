// The gloo-* strategies' counts (strategies/core/cost.h), from Gloo's
// algorithms as the packaged version runs them:
//   gloo-ring: a reduce-scatter and allgather ring over p chunks, each sent
//     in segments of at most 1 MiB (AllreduceOptions' default segment):
//     the ring's counts;
//   gloo-ring-chunked: the same ring over 2p chunks, so a chunk's journey
//     is two messages of half the ring's chunk per step;
//   gloo-halving-doubling and gloo-bcube: recursive halving then doubling
//     of blocks (bcube in base 2 is the same exchange pattern), counted as
//     Rabenseifner's; at a p that is not a power of two Gloo folds blocks
//     of ranks its own way, and the fold is counted as Rabenseifner's.
// Every count is along a rank's path through its one link, as the ring's.
#include <algorithm>

#include "strategies/core/cost_forms.h"
#include "strategies/gloo/gloo.h"

namespace gradsync {
namespace {

constexpr double kRingSegmentBytes = 1 << 20;

}  // namespace

AllreduceCounts gloo_ring_counts(double bytes, const StrategyOptions&,
                                 const WorkerPlacement& placement) {
  return {.spanning = ring_terms(bytes, placement.workers, kRingSegmentBytes)};
}

AllreduceCounts gloo_ring_chunked_counts(double bytes, const StrategyOptions&,
                                         const WorkerPlacement& placement) {
  // Segments of half a chunk: two messages per chunk and step.
  const double half_chunk = bytes / (2.0 * placement.workers);
  return {.spanning =
              ring_terms(bytes, placement.workers, std::max(half_chunk, double(sizeof(float))))};
}

AllreduceCounts gloo_halving_doubling_counts(double bytes, const StrategyOptions&,
                                             const WorkerPlacement& placement) {
  return {.spanning = rabenseifner_terms(bytes, placement.workers)};
}

AllreduceCounts gloo_bcube_counts(double bytes, const StrategyOptions&,
                                  const WorkerPlacement& placement) {
  return {.spanning = rabenseifner_terms(bytes, placement.workers)};
}

}  // namespace gradsync
