// The closed-form counts of the flat ring, recursive halving-doubling and the
// hierarchical allreduce, and the arithmetic every count shares (the trees
// are in collective_cost_trees.cc, the parameter server in
// collective_cost_ps.cc, NCCL's own model in collective_cost_nccl.cc).
//
// A count is what the algorithm puts on its critical path, so that
// time = calls o + messages alpha + bytes beta + reduced gamma. Chunks and
// segments are cut exactly as the strategies cut them (even_part for chunks,
// segment_elements for the segment length, split_by_max's piece count), so an
// uneven buffer is counted by its largest chunk: the steps of a pipelined
// ring wait for the slowest chunk of their stream.

#include "harness/sim/collective_cost.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "harness/sim/collective_cost_units.h"
#include "strategies/mpi/mpi_pipeline.h"
#include "strategies/core/partition.h"

namespace gradsync::sim {

CostTerms& CostTerms::operator+=(const CostTerms& other) {
  calls += other.calls;
  messages += other.messages;
  bytes += other.bytes;
  reduced += other.reduced;
  contended += other.contended;
  return *this;
}

CostTerms operator+(CostTerms a, const CostTerms& b) { return a += b; }

double CostParams::seconds(const CostTerms& terms) const {
  return terms.calls * overhead_s + terms.messages * alpha_s + terms.bytes * beta_s_per_byte +
         terms.reduced * gamma_s_per_byte + terms.contended * delta_s_per_byte;
}

std::uint64_t buffer_floats(double bytes, const char* function) {
  if (!std::isfinite(bytes) || bytes < 0)
    throw std::invalid_argument(fmt::format(
        "{}: the buffer size must be a finite number of bytes >= 0 (got {})", function, bytes));
  return static_cast<std::uint64_t>(std::ceil(bytes / kFloatBytes));
}

void require_positive_count(int value, const char* function, const char* what) {
  if (value < 1)
    throw std::invalid_argument(
        fmt::format("{}: {} must be at least 1 (got {})", function, what, value));
}

std::uint64_t segment_floats(double segment_bytes, const char* function) {
  if (!std::isfinite(segment_bytes) || segment_bytes < 0)
    throw std::invalid_argument(fmt::format(
        "{}: the segment size must be a finite number of bytes (got {})", function, segment_bytes));
  try {
    return segment_elements(static_cast<std::size_t>(std::min(segment_bytes, 1e18)));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(
        fmt::format("{}: {} (got {} bytes)", function, e.what(), segment_bytes));
  }
}

// Ring (strategies/mpi/ring_mpi.cc). The buffer is cut into p chunks
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

// Recursive halving-doubling (Rabenseifner; Thakur et al. 2005, section 4.4),
// unsegmented, as MPI libraries run it for long buffers. Over p' = 2^k ranks:
// k halving steps exchange half, a quarter, ... of the buffer with the
// partner at distance p'/2, p'/4, ... and add what arrives (reduce-scatter);
// k doubling steps send the finished pieces back (allgather). Counted in
// blocks of the buffer cut into p' even parts: each half sends p' - 1 blocks,
// of the largest size. When p is not a power of two, each of the p - p'
// extra ranks first sends its whole buffer to a partner inside the p', which
// adds it, and gets the result back at the end: two whole-buffer messages
// more, n more additions, and 2n more bytes, because the fold-in and the
// fold-out are sequential (before and after the rest), so full duplex does
// not hide one behind the other.
CostTerms halving_doubling_terms(double bytes, int p) {
  require_positive_count(p, "halving_doubling_terms", "p");
  const std::uint64_t n = buffer_floats(bytes, "halving_doubling_terms");
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

// Hierarchical: within a node of q = per_node ranks, the reduce to the leader
// is a ring reduce-scatter (q-1 chunk sends through every link direction, q-1
// additions) then a gather (the leader receives the q-1 other chunks, one
// after another through its link), and the broadcast is its mirror, a scatter
// from the leader then a ring allgather; every chunk moves in ring-mpi's
// segments. So the intra part is twice a ring allreduce's messages and bytes
// over q ranks and once its additions, in two calls (the reduce and the
// broadcast). Chosen over a binomial or pipelined binary tree because
// gradient buffers are long: each phase moves (q-1)/q n through a link,
// where a binary tree's interior node moves 2n or 3n, and it is what MPI
// libraries run for long reduces and broadcasts (Thakur et al. 2005:
// Rabenseifner's reduce, van de Geijn's broadcast); its price, 4(q-1)
// latencies against a tree's 2 log2 q, is paid on the fast intra-node link.
// Between the nodes the leaders run ring-mpi's ring on the whole buffer.
HierarchicalTerms hierarchical_terms(double bytes, int nodes, int per_node, double segment_bytes) {
  require_positive_count(nodes, "hierarchical_terms", "nodes");
  require_positive_count(per_node, "hierarchical_terms", "per_node");
  const CostTerms node_ring = ring_terms(bytes, per_node, segment_bytes);
  HierarchicalTerms out;
  out.intra = {.calls = 2 * node_ring.calls,
               .messages = 2 * node_ring.messages,
               .bytes = 2 * node_ring.bytes,
               .reduced = node_ring.reduced};
  out.inter = ring_terms(bytes, nodes, segment_bytes);
  return out;
}

}  // namespace gradsync::sim
