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

// Recursive halving-doubling, unsegmented (Thakur et al. 2005, section
// 4.4): log2 p' exchanges each way of halves, quarters, ... of the buffer;
// a p that is not a power of two adds a fold in and out of the whole buffer.
CostTerms rabenseifner_terms(double bytes, int p) {
  require_positive_count(p, "rabenseifner_terms", "p");
  const std::uint64_t n = buffer_floats(bytes, "rabenseifner_terms");
  if (p == 1 || n == 0) return {};
  const unsigned power = std::bit_floor(static_cast<unsigned>(p));
  const bool folds = power != static_cast<unsigned>(p);
  const double block = static_cast<double>(even_part(n, power, 0).count);
  const double whole = static_cast<double>(n);
  const double sent = (power - 1) * block;  // by each half
  return {.calls = 1,
          .messages = 2.0 * std::countr_zero(power) + (folds ? 2 : 0),
          .bytes = (2 * sent + (folds ? 2 * whole : 0)) * kFloatBytes,
          .reduced = (sent + (folds ? whole : 0)) * kFloatBytes};
}

}  // namespace gradsync
