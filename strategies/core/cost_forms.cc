#include "strategies/core/cost_forms.h"

#include <algorithm>
#include <bit>

#include "strategies/core/partition.h"

namespace gradsync {

// The counts (strategies/core/cost.h). The buffer is cut into p chunks
// (even_part), each chunk into segments; every rank sends one chunk per step
// for 2(p-1) steps, and step k+1 forwards what step k received, so the
// largest chunk's journey round the ring is the critical path: 2(p-1) chunk
// sends of ceil(chunk / segment) messages each, through every link direction
// one after another, and p-1 additions of it (the reduce-scatter half).
// Thakur et al. (2005): 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma.
CostTerms ring_terms(double bytes, int p, double segment_bytes) {
  require_positive_count(p, "ring_terms", "p");
  const std::uint64_t n = buffer_floats(bytes, "ring_terms");
  const std::uint64_t segment = segment_floats(segment_bytes, "ring_terms");
  if (p == 1 || n == 0) return {};
  const std::uint64_t chunk = even_part(n, p, 0).count;  // the first part is the largest
  const double steps = 2.0 * (p - 1);
  return {.calls = 1,
          .messages = steps * static_cast<double>(piece_count(chunk, segment)),
          .bytes = steps * static_cast<double>(chunk) * kFloatBytes,
          .reduced = (p - 1) * static_cast<double>(chunk) * kFloatBytes};
}

namespace {

bool splits_by_node(int p, int per_node) {
  return per_node > 1 && std::has_single_bit(static_cast<unsigned>(p)) &&
         std::has_single_bit(static_cast<unsigned>(per_node)) && p % per_node == 0 && p > per_node;
}

}  // namespace

NodeStep step_by_node(unsigned distance, int p, int per_node) {
  if (!splits_by_node(p, per_node)) return {};
  if (distance < static_cast<unsigned>(per_node)) return {.inside = true};
  return {.inside = false, .sharing = static_cast<double>(per_node)};
}

// Recursive halving-doubling, unsegmented (Thakur et al. 2005, section
// 4.4): log2 p' exchanges each way of halves, quarters, ... of the buffer,
// the largest with the nearest rank; a p that is not a power of two adds a
// fold in and out of the whole buffer.
AllreduceCounts rabenseifner_by_node(double bytes, int p, int per_node) {
  require_positive_count(p, "rabenseifner_terms", "p");
  const std::uint64_t n = buffer_floats(bytes, "rabenseifner_terms");
  if (p == 1 || n == 0) return {};
  const unsigned power = std::bit_floor(static_cast<unsigned>(p));
  const bool folds = power != static_cast<unsigned>(p);
  const double block = static_cast<double>(even_part(n, power, 0).count);
  const double whole = static_cast<double>(n);
  AllreduceCounts out{.spanning = {.calls = 1}};
  unsigned distance = 1;
  for (unsigned blocks = power / 2; blocks >= 1; blocks /= 2, distance *= 2) {
    const NodeStep where = step_by_node(distance, p, per_node);
    CostTerms& step = where.inside ? out.intra : out.spanning;
    const double range = blocks * block;  // each way, reduce-scatter and allgather alike
    step.messages += 2;
    step.bytes += 2 * range * kFloatBytes * where.sharing;
    step.reduced += range * kFloatBytes;
  }
  if (folds) {
    out.spanning.messages += 2;
    out.spanning.bytes += 2 * whole * kFloatBytes;
    out.spanning.reduced += whole * kFloatBytes;
  }
  return out;
}

CostTerms rabenseifner_terms(double bytes, int p) { return rabenseifner_by_node(bytes, p, 1).spanning; }

}  // namespace gradsync
