// The gloo-* strategies' counts (strategies/core/cost.h), from Gloo's
// algorithms as the packaged version runs them (gloo/allreduce.cc for RING
// and BCUBE; the headers allreduce_ring_chunked.h and
// allreduce_halving_doubling.h for the older objects). Every count is along
// one rank's path through its link, as the ring's; where ranks play
// different parts (halving-doubling's blocks), the busiest rank's.
#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "strategies/core/cost_forms.h"
#include "strategies/gloo/gloo.h"

namespace gradsync {
namespace {

constexpr double kMaxSegmentBytes = 1 << 20;  // AllreduceOptions' default
constexpr double kChunkedMinFloats = 256;     // AllreduceRingChunked's least chunk

}  // namespace

// gloo::allreduce RING: a reduce-scatter and allgather ring whose buffer is
// cut into a multiple of p segments of at most 1 MiB, and never fewer than
// 2p (two per rank, so that one is in flight while the other is summed).
AllreduceCounts gloo_ring_counts(double bytes, const StrategyOptions&,
                                 const WorkerPlacement& placement) {
  const int p = placement.workers;
  require_positive_count(p, "gloo_ring_counts", "p");
  if (p == 1 || bytes <= 0) return {};
  const double segments = std::ceil(std::max(std::ceil(bytes / kMaxSegmentBytes), 2.0 * p) / p) * p;
  const double segment = std::ceil(bytes / segments / kFloatBytes) * kFloatBytes;
  return {.spanning = ring_terms(bytes, p, segment)};
}

// AllreduceRingChunked: the same ring over 2p chunks of at least 256
// elements, so a rank's chunk goes as two messages per step.
AllreduceCounts gloo_ring_chunked_counts(double bytes, const StrategyOptions&,
                                         const WorkerPlacement& placement) {
  const int p = placement.workers;
  require_positive_count(p, "gloo_ring_chunked_counts", "p");
  const double half_chunk = std::max(
      std::ceil(buffer_floats(bytes, "gloo_ring_chunked_counts") / (2.0 * p)), kChunkedMinFloats);
  return {.spanning = ring_terms(bytes, p, half_chunk * kFloatBytes)};
}

// AllreduceHalvingDoubling: p is cut into binary blocks, one per set bit of
// p (7 = 4 + 2 + 1). Within a block of b ranks, recursive halving (a half,
// a quarter, ... down to 1/b of the buffer) then doubling back; a block
// hands its reduced 1/b to the next larger block before the allgather and
// takes the sums back after, and receives the next smaller block's the same
// way. The busiest rank sends 2(b-1)/b of the buffer within its block plus
// 1/b to each neighbouring block; every hand-over adds a message each way to
// the path of the largest block, which waits for the chain.
AllreduceCounts gloo_halving_doubling_counts(double bytes, const StrategyOptions&,
                                             const WorkerPlacement& placement) {
  const int p = placement.workers;
  require_positive_count(p, "gloo_halving_doubling_counts", "p");
  const double n = buffer_floats(bytes, "gloo_halving_doubling_counts");
  if (p == 1 || n == 0) return {};
  const unsigned largest = std::bit_floor(static_cast<unsigned>(p));
  const double chunk = std::ceil(n / largest);  // the unit every block's pieces are made of
  const int blocks = std::popcount(static_cast<unsigned>(p));
  double sent = 0, reduced = 0;
  for (unsigned b = largest; b > 0; b >>= 1) {
    if (!(static_cast<unsigned>(p) & b)) continue;
    const double piece = chunk * (largest / b);  // what a rank of the block holds reduced
    const bool larger = b != largest;
    const bool smaller = (static_cast<unsigned>(p) & (b - 1)) != 0;
    sent = std::max(sent, 2 * (b - 1) * piece + (larger ? piece : 0) + (smaller ? piece : 0));
    reduced = std::max(reduced, (b - 1) * piece + (smaller ? piece : 0));
  }
  return {.spanning = {.calls = 1,
                       .messages = 2.0 * std::countr_zero(largest) + 2.0 * (blocks - 1),
                       .bytes = sent * kFloatBytes,
                       .reduced = reduced * kFloatBytes}};
}

// gloo::allreduce BCUBE: p factored into groups of 2 and, for what is left
// once no factor of 2 remains, one group of that size (12 = 2 x 2 x 3). In
// each group step a rank sends each of the group's g-1 others 1/g of what
// it holds, and keeps 1/g summed; then the allgather retraces the steps.
// Each way, a rank sends (p-1)/p of the buffer in all, whatever p is.
AllreduceCounts gloo_bcube_counts(double bytes, const StrategyOptions&,
                                  const WorkerPlacement& placement) {
  const int p = placement.workers;
  require_positive_count(p, "gloo_bcube_counts", "p");
  const double n = buffer_floats(bytes, "gloo_bcube_counts");
  if (p == 1 || n == 0) return {};
  std::vector<int> groups;
  int left = p;
  for (; left % 2 == 0; left /= 2) groups.push_back(2);
  if (left > 1) groups.push_back(left);
  double held = n, sent = 0, messages = 0;
  for (const int g : groups) {
    const double piece = std::ceil(held / g);
    sent += (g - 1) * piece;
    messages += g - 1;
    held = piece;
  }
  return {.spanning = {.calls = 1,
                       .messages = 2 * messages,
                       .bytes = 2 * sent * kFloatBytes,
                       .reduced = sent * kFloatBytes}};
}

}  // namespace gradsync
