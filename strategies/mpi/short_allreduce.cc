// The latency path: recursive doubling for short buffers, shared by every
// MPI point-to-point strategy.
//
// A short buffer's time is made of message latencies, not bytes: the ring's
// 2(p-1) steps, a pipelined tree's 2 log2 p hops, Rabenseifner's 2 log2 p
// exchanges. Recursive doubling takes log2 p: for p a power of two, in step
// k (k = 0 .. log2 p - 1) each rank swaps its whole buffer with the rank at
// distance 2^k (its rank with bit k flipped) and both add what they receive.
// After log2 p steps every rank holds the sum. Both partners compute a + b
// from the same two operands, and IEEE addition (and the 16-bit sums of
// --compression, each done in fp32 and rounded) is commutative, so every rank
// ends bit-identical. MPICH and Open MPI pick it for short messages (MPICH
// below 2 KiB, Open MPI's tuned rules below about 10 KB); NCCL's answer for
// the same problem is its tree and low-latency protocols.
//
// Other p (Thakur, Rabenseifner and Gropp 2005): with p' the largest power
// of two <= p and r = p - p', the even rank of each pair 2i, 2i+1 (i < r)
// hands its whole buffer to the odd one, which adds it; the p' remaining
// ranks run the steps above; the odd rank sends the result back. The pairs
// and partners are halving-doubling-mpi's (halving_doubling_plan).
//
// Cost for n bytes: log2 p' (alpha + n beta + n gamma), plus 2 alpha + 2 n
// beta + n gamma on a folded pair's path: fewer latencies than any other
// strategy's algorithm, more bytes, so it pays below a threshold only:
// --short-allreduce, 16 KiB by default, the largest size at which it was
// ahead of every algorithm's own form in every run on the 2-core machine (2
// and 4 ranks; at 32 KiB tree-mpi's own pipeline was ahead in one run).
// With it every MPI point-to-point strategy was within 2x of MPI_Allreduce
// from 4 B to 64 KiB (`scripts/algorithms.sh small`,
// docs/results/which-allreduce-wins.md, "Small buffers").
//
// Each message goes in pieces of at most kEagerPieceBytes (eager_segment.h:
// the library's shared-memory eager limit, 4032 bytes under Open MPI, 8 KiB
// under MPICH), all of a step's pieces posted together, so that none waits
// for a rendezvous. Under Open MPI at 4 KiB and 2 ranks, in the same runs:
// 1.9 us in 4032-byte pieces, 2.6 in 2 KiB pieces (each piece costs a
// message's latency), MPI_Allreduce 3.1.

#include "strategies/mpi/short_allreduce.h"

#include <bit>
#include <vector>

#include "strategies/core/partition.h"
#include "strategies/mpi/eager_segment.h"
#include "strategies/mpi/halving_doubling_mpi.h"

namespace gradsync {
namespace {

constexpr int kFoldTag = 1, kResultTag = 2, kStepTag = 3;  // + the step

// Elements per piece: kEagerPieceBytes of the element type.
template <typename T>
std::size_t piece_elements() {
  return kEagerPieceBytes / sizeof(T);
}

}  // namespace

bool takes_short_path(double bytes, int workers, std::size_t limit) {
  return bytes > 0 && workers > 1 && bytes <= static_cast<double>(limit);
}

ShortAllreduce::ShortAllreduce(const World& world, const StrategyOptions& options,
                               std::string_view owner)
    : world_(world.duplicate()),
      limit_(options.short_allreduce_bytes),
      fold_(std::string(owner) + " recursive doubling (fold)"),
      doubling_(std::string(owner) + " recursive doubling"),
      unfold_(std::string(owner) + " recursive doubling (unfold)") {
  world_.set_timeout(options.timeout_s);
}

namespace {

// Sends all of `from` (unless null) to `partner` and receives the partner's
// buffer into `into` (unless null), in pieces posted together; returns once
// both are done.
template <typename T>
void swap_pieces(const T* from, T* into, std::size_t count, int partner, int tag, const Wait& wait,
                 Traffic& traffic) {
  std::vector<MPI_Request> received;
  std::vector<int> owed_by;
  PendingSends sent;
  for (Range piece : split_by_max(count, piece_elements<T>())) {
    if (into) {
      received.push_back(irecv_range(into, piece, partner, tag, wait.comm, traffic));
      owed_by.push_back(partner);
    }
    if (from) sent.add(isend_range(from, piece, partner, tag, wait.comm, traffic), partner);
  }
  wait_peers(received, owed_by, Direction::from_peer, wait);
  sent.wait(wait);
}

}  // namespace

template <typename T>
void ShortAllreduce::allreduce(std::span<T> buffer, ElementSum sum, Traffic& traffic) {
  if (world_.size() == 1 || buffer.empty()) return;
  const HalvingDoublingPlan plan =
      halving_doubling_plan(world_.rank(), world_.size(), buffer.size());
  MPI_Comm comm = world_.comm();
  // Every wait names its phase and gives up after --timeout (bounded_wait.h).
  const Wait fold{fold_.c_str(), comm, world_.timeout()};
  const Wait doubling{doubling_.c_str(), comm, world_.timeout()};
  const Wait unfold{unfold_.c_str(), comm, world_.timeout()};
  T* data = buffer.data();
  const std::size_t n = buffer.size();
  T* const theirs = scratch_.get<T>(n);
  if (plan.pair >= 0) {
    if (plan.folded) {  // hand the buffer over, get the result back
      swap_pieces<T>(data, nullptr, n, plan.pair, kFoldTag, fold, traffic);
      swap_pieces<T>(nullptr, data, n, plan.pair, kResultTag, unfold, traffic);
      return;
    }
    swap_pieces<T>(nullptr, theirs, n, plan.pair, kFoldTag, fold, traffic);
    sum(data, theirs, n);
  }
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    swap_pieces<T>(data, theirs, n, plan.steps[k].partner, kStepTag + static_cast<int>(k), doubling,
                   traffic);
    sum(data, theirs, n);
  }
  if (plan.pair >= 0) swap_pieces<T>(data, nullptr, n, plan.pair, kResultTag, unfold, traffic);
}

template void ShortAllreduce::allreduce<float>(std::span<float>, ElementSum, Traffic&);
template void ShortAllreduce::allreduce<std::uint16_t>(std::span<std::uint16_t>, ElementSum,
                                                       Traffic&);

// The counts (strategies/core/cost.h) along the path of the odd rank of a
// folded pair, the longest: the fold (one whole buffer in, added), log2 p'
// swaps of the whole buffer (each both ways at once, added), the result
// back out: (log2 p' + 2) whole buffers through its link one after another
// and (log2 p' + 1) added; a power of two has no fold. Each buffer goes in
// pieces of kEagerPieceBytes. The threshold is on the buffer's own bytes, so a
// 16-bit buffer (--compression) takes the path up to twice the elements;
// the counts are the fp32 buffer's.
CostTerms recursive_doubling_terms(double bytes, int p) {
  require_positive_count(p, "recursive_doubling_terms", "p");
  const std::uint64_t n = buffer_floats(bytes, "recursive_doubling_terms");
  if (p == 1 || n == 0) return {};
  const unsigned power = std::bit_floor(static_cast<unsigned>(p));
  const double steps = std::countr_zero(power);
  const bool folds = power != static_cast<unsigned>(p);
  const double passes = steps + (folds ? 2 : 0);
  const double whole = static_cast<double>(n) * kFloatBytes;
  return {.calls = 1,
          .messages = passes * static_cast<double>(piece_count(n, piece_elements<float>())),
          .bytes = passes * whole,
          .reduced = (steps + (folds ? 1 : 0)) * whole};
}

}  // namespace gradsync
