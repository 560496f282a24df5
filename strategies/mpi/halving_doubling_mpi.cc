// halving-doubling-mpi: Rabenseifner's allreduce over MPI point-to-point, a
// reduce-scatter by recursive halving then an allgather by recursive doubling,
// what MPICH and Open MPI pick for mid-size messages.
//
// For p a power of two the buffer is cut into p near-equal blocks. Reduce-
// scatter: in step k (k = 0 .. log2 p - 1) each rank exchanges with the rank
// at distance 2^k (its rank with bit k flipped), sending one half of the
// blocks it still holds and adding the partner's copy of the other half into
// its own; the rank with bit k clear keeps the lower half. The nearest partner
// comes first (MPICH's order), so the biggest exchange, half the buffer, goes
// to the neighbouring rank, on the same host when ranks are placed by host.
// After log2 p steps each rank holds the full sum of one block. Allgather: the
// same steps backwards, each rank sending what it holds and receiving the
// partner's half straight into place.
//
// Cost for n bytes: 2 log2(p) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma:
// ring's bandwidth with tree's log p latency terms.
//
// Other p (Thakur, Rabenseifner and Gropp 2005): with p' the largest power of
// two <= p and r = p - p', ranks 2i and 2i+1 (i < r) first swap halves and sum
// one each, then the even rank hands its summed half to the odd one and sits
// out; p' ranks run the algorithm above; the odd rank sends the result back.
// That adds 3 alpha + 2 n beta + n/2 gamma on those ranks' path.
//
// Every element's sum is computed by one rank only, in the schedule's fixed
// order, and copied to the others, so every rank ends bit-identical.
//
// Short buffers (up to --short-allreduce) skip the halving: the latency
// path every MPI point-to-point strategy shares (short_allreduce.cc), in
// which the same partners swap their whole buffers and both add: half
// Rabenseifner's message count, which is what a short buffer's time is made
// of.
//
// Messages go in segments of at most kSegmentBytes (kEagerSegmentBytes when
// the ranks span hosts: eager_segment.h), with a window of receives
// posted into scratch: a segment is summed while the next one arrives, and
// no message's count can overflow MPI's int.
//
// One rendezvous per step across hosts: an exchange bigger than one segment
// starts with a zero-byte message each way, and its data leaves only once
// the partner has entered the same step. Eager segments need no receive
// posted, so without it a rank that finishes a step early floods its next
// partner while that partner still receives from its current one: two
// senders converge on one link, the link's queue overflows and TCP recovers
// from the losses. On the emulated cluster (8 hosts at 500mbit, MTU 9000,
// 16 MiB) that cost 0.70-0.74 s against ring-mpi's 0.48, with drops at the
// receiving ends' queues; with the rendezvous 0.51-0.54 s and none there
// (docs/results/cost-model-checks.md). It costs one round trip per step
// (MPI's own rendezvous costs one per message).

#include "strategies/mpi/halving_doubling_mpi.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "strategies/core/cost_forms.h"
#include "strategies/core/reduce_kernel.h"
#include "strategies/core/strategy_options.h"
#include "strategies/mpi/eager_segment.h"
#include "strategies/mpi/mpi_pipeline.h"
#include "strategies/mpi/short_allreduce.h"

namespace gradsync {

HalvingDoublingPlan halving_doubling_plan(int rank, int size, std::size_t count) {
  if (size < 1 || rank < 0 || rank >= size)
    throw std::invalid_argument("halving_doubling_plan: rank out of range");
  const int pof2 = static_cast<int>(std::bit_floor(static_cast<unsigned>(size)));
  const int r = size - pof2;
  HalvingDoublingPlan plan;
  int v = rank - r;  // this rank among the p' that run the halving steps
  if (rank < 2 * r) {
    const bool even = rank % 2 == 0;
    const Range first = even_part(count, 2, 0), second = even_part(count, 2, 1);
    plan.pair = even ? rank + 1 : rank - 1;
    plan.folded = even;
    plan.pair_keep = even ? first : second;
    plan.pair_send = even ? second : first;
    if (even) return plan;
    v = rank / 2;
  }
  auto actual = [r](int u) { return u < r ? 2 * u + 1 : u + r; };
  // Blocks [lo, hi) of the p' near-equal blocks, as one range of elements.
  auto blocks = [&](int lo, int hi) -> Range {
    const std::size_t begin = even_part(count, pof2, lo).offset;
    const std::size_t end = hi == pof2 ? count : even_part(count, pof2, hi).offset;
    return {begin, end - begin};
  };
  int lo = 0, hi = pof2;
  for (int mask = 1; mask < pof2; mask <<= 1) {
    const int mid = lo + (hi - lo) / 2;
    const bool upper = (v & mask) != 0;
    plan.steps.push_back({.partner = actual(v ^ mask),
                          .send = upper ? blocks(lo, mid) : blocks(mid, hi),
                          .keep = upper ? blocks(mid, hi) : blocks(lo, mid)});
    (upper ? lo : hi) = mid;
  }
  return plan;
}

namespace {

constexpr std::size_t kSegmentBytes = 1 << 20;
class HalvingDoublingMpi final : public Strategy {
 public:
  static constexpr int kFoldTag = 1, kFoldedHalfTag = 2, kResultTag = 3, kBroadcastTag = 4;
  static constexpr int kReduceScatterTag = 64, kAllgatherTag = 128;  // + the step
  static constexpr int kRendezvousTag = 256;  // + the exchange's own tag

  HalvingDoublingMpi(const World& world, const StrategyOptions& options)
      : world_(world.duplicate()),
        segment_(segment_elements(world_.spans_hosts() ? kEagerSegmentBytes : kSegmentBytes)),
        short_(world_, options, "halving-doubling-mpi") {
    world_.set_timeout(options.timeout_s);
  }

  std::string_view name() const override { return "halving-doubling-mpi"; }
  const World& peers() const override { return world_; }

  void allreduce(std::span<float> buffer) override { reduce(buffer, ElementSum{}); }
  void allreduce_compressed(std::span<std::uint16_t> buffer, Compression format) override {
    reduce(buffer, ElementSum{format});
  }
  std::string path_for(std::size_t count, std::size_t element_bytes) const override {
    return short_.path_for(count * element_bytes);
  }

  // Binomial tree from the root, pipelined in segments: relative rank v gets
  // the buffer from v with its lowest set bit cleared and passes it on to
  // v + 2^j for every 2^j below that bit, the biggest subtree first.
  void broadcast(std::span<float> buffer, int root) override {
    const int p = world_.size();
    if (p == 1 || buffer.empty()) return;
    const unsigned v = static_cast<unsigned>((world_.rank() - root + p) % p);
    auto actual = [&](unsigned u) { return static_cast<int>((u + root) % p); };
    const unsigned low = v == 0 ? std::bit_ceil(static_cast<unsigned>(p)) : (v & (~v + 1));
    std::vector<int> to;
    for (unsigned mask = low >> 1; mask > 0; mask >>= 1)
      if (v + mask < static_cast<unsigned>(p)) to.push_back(actual(v + mask));
    relay_segments(buffer, split_by_max(buffer.size(), segment_), v == 0 ? -1 : actual(v - low),
                   to, kBroadcastTag, {"halving-doubling-mpi broadcast", world_.comm(),
                                       world_.timeout()},
                   traffic_);
  }

 private:
  template <typename T>
  void reduce(std::span<T> buffer, ElementSum sum);
  // Sends `send` to `partner` and adds the partner's copy of `keep` into
  // this rank's with `sum`, a segment at a time as each arrives.
  template <typename T>
  void exchange_and_sum(T* data, int partner, Range send, Range keep, int tag, const Wait& wait,
                        ElementSum sum);
  // Sends `send` to `partner` and receives `receive` from it into place
  // (either may be empty).
  template <typename T>
  void exchange(T* data, int partner, Range send, Range receive, int tag, const Wait& wait);
  // The step's rendezvous across hosts (the top of the file): returns once
  // `partner` has entered the exchange whose ranges are `send` and
  // `receive`, if either is longer than a segment.
  void rendezvous(int partner, Range send, Range receive, int tag, const Wait& wait);
  // Sends of `range` to `partner`, a segment each, added to `sent`.
  template <typename T>
  void send_segments(const T* data, int partner, Range range, int tag, PendingSends& sent);

  World world_;
  std::size_t segment_;
  ShortAllreduce short_;  // the latency path
  Scratch scratch_;
};

void HalvingDoublingMpi::rendezvous(int partner, Range send, Range receive, int tag,
                                    const Wait& wait) {
  if (!world_.spans_hosts() || std::max(send.count, receive.count) <= segment_) return;
  MPI_Request requests[2];
  check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, partner, kRendezvousTag + tag, wait.comm, &requests[0]),
            "MPI_Irecv");
  check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, partner, kRendezvousTag + tag, wait.comm, &requests[1]),
            "MPI_Isend");
  const int peers[2] = {partner, partner};
  wait_peers(requests, peers, Direction::from_peer, wait);
}

template <typename T>
void HalvingDoublingMpi::send_segments(const T* data, int partner, Range range, int tag,
                                       PendingSends& sent) {
  for (Range s : split_by_max(range.count, segment_))
    sent.add(isend_range(data, {range.offset + s.offset, s.count}, partner, tag, world_.comm(),
                         traffic_),
             partner);
}

template <typename T>
void HalvingDoublingMpi::exchange_and_sum(T* data, int partner, Range send, Range keep, int tag,
                                          const Wait& wait, ElementSum sum) {
  const std::vector<Range> in = split_by_max(keep.count, segment_);
  const std::size_t slot_size = in.empty() ? 0 : in.front().count;
  T* const slots = scratch_.get<T>(kReceiveWindow * slot_size);
  auto slot = [&](std::size_t j) { return slots + (j % kReceiveWindow) * slot_size; };
  std::vector<MPI_Request> received(in.size(), MPI_REQUEST_NULL);
  auto post = [&](std::size_t j) {
    received[j] = irecv_range(slot(j), {0, in[j].count}, partner, tag, wait.comm, traffic_);
  };
  for (std::size_t j = 0; j < std::min(kReceiveWindow, in.size()); ++j) post(j);
  rendezvous(partner, send, keep, tag, wait);
  PendingSends sent;
  send_segments(data, partner, send, tag, sent);
  for (std::size_t j = 0; j < in.size(); ++j) {
    wait_peer(received[j], partner, Direction::from_peer, wait);
    sum(data + keep.offset + in[j].offset, slot(j), in[j].count);
    if (j + kReceiveWindow < in.size()) post(j + kReceiveWindow);
  }
  sent.wait(wait);
}

template <typename T>
void HalvingDoublingMpi::exchange(T* data, int partner, Range send, Range receive, int tag,
                                  const Wait& wait) {
  std::vector<MPI_Request> received;
  for (Range s : split_by_max(receive.count, segment_))
    received.push_back(irecv_range(data, {receive.offset + s.offset, s.count}, partner, tag,
                                   wait.comm, traffic_));
  rendezvous(partner, send, receive, tag, wait);
  PendingSends sent;
  send_segments(data, partner, send, tag, sent);
  for (MPI_Request& request : received) wait_peer(request, partner, Direction::from_peer, wait);
  sent.wait(wait);
}

template <typename T>
void HalvingDoublingMpi::reduce(std::span<T> buffer, ElementSum sum) {
  if (world_.size() == 1 || buffer.empty()) return;
  if (short_.takes(buffer.size_bytes())) return short_.allreduce(buffer, sum, traffic_);
  const HalvingDoublingPlan plan = halving_doubling_plan(world_.rank(), world_.size(), buffer.size());
  T* data = buffer.data();
  const Range all{0, buffer.size()}, none{};
  MPI_Comm comm = world_.comm();
  // Every wait names its phase and gives up after --timeout (bounded_wait.h).
  const Wait fold{"halving-doubling-mpi fold", comm, world_.timeout()};
  const Wait reduce_scatter{"halving-doubling-mpi reduce-scatter", comm, world_.timeout()};
  const Wait allgather{"halving-doubling-mpi allgather", comm, world_.timeout()};
  const Wait unfold{"halving-doubling-mpi unfold", comm, world_.timeout()};
  if (plan.pair >= 0) {
    exchange_and_sum(data, plan.pair, plan.pair_send, plan.pair_keep, kFoldTag, fold, sum);
    if (plan.folded) {
      exchange(data, plan.pair, plan.pair_keep, none, kFoldedHalfTag, fold);
      exchange(data, plan.pair, none, all, kResultTag, unfold);
      return;
    }
    exchange(data, plan.pair, none, plan.pair_send, kFoldedHalfTag, fold);
  }
  const int steps = static_cast<int>(plan.steps.size());
  for (int k = 0; k < steps; ++k) {
    const HalvingStep& s = plan.steps[k];
    exchange_and_sum(data, s.partner, s.send, s.keep, kReduceScatterTag + k, reduce_scatter,
                     sum);
  }
  for (int k = steps - 1; k >= 0; --k) {
    const HalvingStep& s = plan.steps[k];
    exchange(data, s.partner, s.keep, s.send, kAllgatherTag + k, allgather);
  }
  if (plan.pair >= 0) exchange(data, plan.pair, all, none, kResultTag, unfold);
}

}  // namespace

std::unique_ptr<Strategy> make_halving_doubling_mpi(const World& world,
                                                    const StrategyOptions& options) {
  return std::make_unique<HalvingDoublingMpi>(world, options);
}

// The counts (strategies/core/cost.h) of Rabenseifner's algorithm, along
// the path of a rank of a folded pair (the longest), every phase after the
// one before it: the fold's swap of halves (n/2 each way, n/2 added) and the
// even rank's summed half (n/2 in); step k of the halving exchanges
// p'/2^(k+1) of the p' blocks each way and adds them, the doubling the same
// again without adding; the whole result back out (n). A power of two has
// no fold. Each message is cut in segments; across hosts an exchange longer
// than a segment adds its rendezvous message. Short buffers take the latency
// path instead (halving_doubling_mpi_counts).
CostTerms halving_doubling_mpi_terms(double bytes, int p, bool spans_hosts) {
  return halving_doubling_mpi_split(bytes, p, spans_hosts, 1).spanning;
}

// The same counts by the link each step crosses, with ranks filling nodes
// of `per_node` in rank order (step_by_node, core/cost_forms.h): step k
// exchanges with the rank 2^k away, the largest halves first, so the steps
// inside a node carry 1 - per_node/p of what a rank sends, and those across
// it share the node's one link among its ranks (a job within one node is
// not split). Under SMPI on the Horovod cluster (nodes of 4 on PCIe, one
// 25 Gbit/s link each) counting every step across hosts, one rank to a
// link, had put 16 and 64 workers 48% and 25% above the simulated time.
AllreduceCounts halving_doubling_mpi_split(double bytes, int p, bool spans_hosts, int per_node) {
  require_positive_count(p, "halving_doubling_mpi_terms", "p");
  const std::uint64_t n = buffer_floats(bytes, "halving_doubling_mpi_terms");
  const std::uint64_t segment = segment_elements(spans_hosts ? kEagerSegmentBytes : kSegmentBytes);
  if (p == 1 || n == 0) return {};
  const unsigned power = std::bit_floor(static_cast<unsigned>(p));
  const bool folds = power != static_cast<unsigned>(p);
  const double whole = static_cast<double>(n);
  const double whole_messages = static_cast<double>(piece_count(n, segment));
  AllreduceCounts out{.spanning = {.calls = 1}};
  // An exchange longer than a segment across hosts starts with its rendezvous.
  auto rendezvous = [&](std::uint64_t longest) {
    return spans_hosts && longest > segment ? 1.0 : 0.0;
  };
  const std::uint64_t block = even_part(n, power, 0).count;  // the largest block
  unsigned distance = 1;
  for (unsigned blocks = power / 2; blocks >= 1; blocks /= 2, distance *= 2) {
    const std::uint64_t range = blocks * block;
    const NodeStep where = step_by_node(distance, p, per_node);
    CostTerms& step = where.inside ? out.intra : out.spanning;
    step.messages += 2.0 * (static_cast<double>(piece_count(range, segment)) + rendezvous(range));
    step.bytes += 2.0 * static_cast<double>(range) * kFloatBytes * where.sharing;
    step.reduced += static_cast<double>(range) * kFloatBytes;
  }
  if (folds) {
    const std::uint64_t half = even_part(n, 2, 0).count;
    CostTerms& t = out.spanning;
    t.messages += 2.0 * (static_cast<double>(piece_count(half, segment)) + rendezvous(half)) +
                  whole_messages + rendezvous(n);
    t.bytes += (2.0 * static_cast<double>(half) + whole) * kFloatBytes;
    t.reduced += static_cast<double>(half) * kFloatBytes;
  }
  return out;
}

AllreduceCounts halving_doubling_mpi_counts(double bytes, const StrategyOptions& options,
                                            const WorkerPlacement& placement) {
  if (takes_short_path(bytes, placement.workers, options.short_allreduce_bytes))
    return {.spanning = recursive_doubling_terms(bytes, placement.workers)};
  return halving_doubling_mpi_split(bytes, placement.workers, placement.nodes() > 1,
                                    placement.workers_per_node);
}

}  // namespace gradsync
