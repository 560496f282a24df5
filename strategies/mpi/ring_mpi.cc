// ring-mpi: bandwidth-optimal ring allreduce over MPI point-to-point.
//
// The p workers form a ring (each sends to rank+1, receives from rank-1) and
// the buffer is cut into p near-equal chunks. In p-1 reduce-scatter steps each
// worker sends one chunk to its right neighbour and adds the chunk arriving
// from its left into its own copy; afterwards worker r holds the full sum of
// chunk r+1. In p-1 allgather steps the finished chunks travel once more round
// the ring, each received straight into place. Every step k sends the chunk
// that step k-1 received, so the 2(p-1) steps form one stream.
//
// Cost for n bytes: 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma, the
// bandwidth lower bound for allreduce (counted exactly in ring_terms below).
//
// Sharded (zero2-ring-mpi): the two halves of the stream are the strategy's
// reduce-scatter and all-gather, each a call of its own. Worker r's shard is
// chunk r+1, the one it holds whole after the reduce-scatter steps, and the
// first it sends in the all-gather steps. Its allreduce is the two calls one
// after the other, as a sharded step makes them.
//
// Pipelining: each chunk is cut into segments (--ring-segment). Segment j of
// step k+1 is sent the moment segment j of step k has been received and
// reduced, and a window of receives is always posted, so transfer of one
// segment overlaps the reduction of the previous one and no step waits for a
// whole chunk.

#include "strategies/mpi/ring_mpi.h"

#include <algorithm>

#include "strategies/core/partition.h"
#include "strategies/core/reduce_kernel.h"
#include "strategies/core/strategy_options.h"
#include "strategies/mpi/mpi_pipeline.h"
#include "strategies/mpi/short_allreduce.h"

namespace gradsync {
namespace {

int mod(int a, int n) { return ((a % n) + n) % n; }

class RingMpi final : public Strategy {
 public:
  static constexpr int kBroadcastTag = 1 << 20;

  RingMpi(const World& world, const StrategyOptions& options, std::string_view name = "ring-mpi",
          Sharding sharding = Sharding::none)
      : world_(world.duplicate()),
        segment_(segment_elements(options.ring.segment_bytes)),
        short_(world_, options, name),
        name_(name),
        sharding_(sharding) {
    world_.set_timeout(options.timeout_s);
  }

  std::string_view name() const override { return name_; }
  const World& peers() const override { return world_; }

  void allreduce(std::span<float> buffer) override {
    if (sharding_ == Sharding::none) return reduce(buffer, ElementSum{});
    reduce_scatter(buffer);
    all_gather(buffer);
  }
  Sharding sharding() const override { return sharding_; }
  Range shard(std::size_t count) const override {
    const int n = world_.size();
    return even_part(count, std::size_t(n), std::size_t(mod(world_.rank() + 1, n)));
  }
  void reduce_scatter(std::span<float> buffer) override {
    stream(buffer, ElementSum{}, 0, world_.size() - 1);
  }
  void all_gather(std::span<float> buffer) override {
    stream(buffer, ElementSum{}, world_.size() - 1, 2 * (world_.size() - 1));
  }
  void allreduce_compressed(std::span<std::uint16_t> buffer, Compression format) override {
    reduce(buffer, ElementSum{format});
  }
  // Sharded, every call is the ring's (no latency path).
  std::string path_for(std::size_t count, std::size_t element_bytes) const override {
    return sharding_ == Sharding::none ? short_.path_for(count * element_bytes) : "";
  }

  // Pipelined chain from the root round the ring.
  void broadcast(std::span<float> buffer, int root) override {
    const int n = world_.size();
    if (n == 1 || buffer.empty()) return;
    const int position = mod(world_.rank() - root, n);
    const int left = mod(world_.rank() - 1, n), right = mod(world_.rank() + 1, n);
    std::vector<int> to;
    if (position < n - 1) to.push_back(right);
    relay_segments(buffer, split_by_max(buffer.size(), segment_), position == 0 ? -1 : left, to,
                   kBroadcastTag, {"ring-mpi broadcast", world_.comm(), world_.timeout()},
                   traffic_);
  }

 private:
  template <typename T>
  void reduce(std::span<T> buffer, ElementSum sum);
  // Steps first .. end - 1 of the ring's 2(p-1): below p-1 reduce-scatter, the rest all-gather.
  template <typename T>
  void stream(std::span<T> buffer, ElementSum sum, int first, int end);

  World world_;
  std::size_t segment_;
  ShortAllreduce short_;  // the latency path
  Scratch scratch_;
  std::string_view name_;
  Sharding sharding_;
};

// One receive of the stream: its step and the region it fills.
struct Receive {
  int step;
  std::size_t region;  // index into the (chunk, segment) regions
};

template <typename T>
void RingMpi::reduce(std::span<T> buffer, ElementSum sum) {
  if (world_.size() == 1 || buffer.empty()) return;
  if (short_.takes(buffer.size_bytes())) return short_.allreduce(buffer, sum, traffic_);
  stream(buffer, sum, 0, 2 * (world_.size() - 1));
}

template <typename T>
void RingMpi::stream(std::span<T> buffer, ElementSum sum, int first_step, int steps) {
  const int n = world_.size();
  if (n == 1 || buffer.empty()) return;
  const int r = world_.rank();
  const int left = mod(r - 1, n), right = mod(r + 1, n);
  MPI_Comm comm = world_.comm();
  // Every wait names its phase and gives up after --timeout (bounded_wait.h).
  const Wait reduce_scatter{"ring-mpi reduce-scatter", comm, world_.timeout()};
  const Wait allgather{"ring-mpi allgather", comm, world_.timeout()};
  auto phase = [&](int step) -> const Wait& { return step < n - 1 ? reduce_scatter : allgather; };

  // Chunk c's segments are regions first_region[c] .. first_region[c+1]-1.
  std::vector<Range> regions;
  std::vector<std::size_t> first_region;
  for (const Range& chunk : split_even(buffer.size(), n)) {
    first_region.push_back(regions.size());
    for (Range s : split_by_max(chunk.count, segment_))
      regions.push_back({chunk.offset + s.offset, s.count});
  }
  first_region.push_back(regions.size());

  // Step k sends chunk send_chunk(k) and receives recv_chunk(k) from the left;
  // send_chunk(k+1) == recv_chunk(k). Steps below n-1 reduce, the rest copy.
  auto send_chunk = [&](int k) { return mod(k < n - 1 ? r - k : r + 1 - (k - (n - 1)), n); };
  auto recv_chunk = [&](int k) { return mod(k < n - 1 ? r - k - 1 : r - (k - (n - 1)), n); };

  std::vector<Receive> receives;
  for (int k = first_step; k < steps; ++k) {
    const int c = recv_chunk(k);
    for (std::size_t g = first_region[c]; g < first_region[c + 1]; ++g) receives.push_back({k, g});
  }

  const std::size_t slot_size = std::min(segment_, buffer.size());
  T* const slots = scratch_.get<T>(kReceiveWindow * slot_size);
  auto slot = [&](std::size_t i) { return slots + (i % kReceiveWindow) * slot_size; };
  T* data = buffer.data();

  // The latest send from each region, and its step: a region is written
  // (reduced into, or received into) only after its previous send has completed.
  std::vector<MPI_Request> region_send(regions.size(), MPI_REQUEST_NULL);
  std::vector<int> region_send_step(regions.size(), 0);
  PendingSends done_sends;
  auto send_region = [&](std::size_t g, int step) {
    if (region_send[g] != MPI_REQUEST_NULL) done_sends.add(region_send[g], right);
    region_send[g] = isend_range(data, regions[g], right, step, comm, traffic_);
    region_send_step[g] = step;
  };
  auto wait_region_sent = [&](std::size_t g) {
    wait_peer(region_send[g], right, Direction::to_peer, phase(region_send_step[g]));
  };

  std::vector<MPI_Request> receive_request(receives.size(), MPI_REQUEST_NULL);
  auto post_receive = [&](std::size_t i) {
    const Receive& rc = receives[i];
    const Range region = regions[rc.region];
    if (rc.step < n - 1) {
      receive_request[i] = irecv_range(slot(i), {0, region.count}, left, rc.step, comm, traffic_);
    } else {
      wait_region_sent(rc.region);
      receive_request[i] = irecv_range(data, region, left, rc.step, comm, traffic_);
    }
  };

  for (std::size_t i = 0; i < std::min(kReceiveWindow, receives.size()); ++i) post_receive(i);
  const int first = send_chunk(first_step);
  for (std::size_t g = first_region[first]; g < first_region[first + 1]; ++g)
    send_region(g, first_step);

  for (std::size_t i = 0; i < receives.size(); ++i) {
    const Receive& rc = receives[i];
    wait_peer(receive_request[i], left, Direction::from_peer, phase(rc.step));
    if (rc.step < n - 1) {
      const Range region = regions[rc.region];
      wait_region_sent(rc.region);
      sum(data + region.offset, slot(i), region.count);
    }
    if (i + kReceiveWindow < receives.size()) post_receive(i + kReceiveWindow);
    if (rc.step + 1 < steps) send_region(rc.region, rc.step + 1);
  }
  for (MPI_Request& request : region_send)
    if (request != MPI_REQUEST_NULL) done_sends.add(request, right);
  done_sends.wait(allgather);
}

}  // namespace

std::unique_ptr<Strategy> make_ring_mpi(const World& world, const StrategyOptions& options) {
  return std::make_unique<RingMpi>(world, options);
}

std::unique_ptr<Strategy> make_zero2_ring_mpi(const World& world, const StrategyOptions& options) {
  return std::make_unique<RingMpi>(world, options, "zero2-ring-mpi", Sharding::optimizer_state);
}

std::unique_ptr<Strategy> make_zero3_ring_mpi(const World& world, const StrategyOptions& options) {
  return std::make_unique<RingMpi>(world, options, "zero3-ring-mpi", Sharding::parameters);
}

std::span<const OptionFlag> ring_mpi_flags() {
  static constexpr OptionFlag kFlags[] = {
      {.flag = "--ring-segment",
       .key = "ring_segment_bytes",
       .help = "bytes per pipelined segment",
       .bound = OptionBound::above_zero,
       .field = [](StrategyOptions& o) -> OptionField { return &o.ring.segment_bytes; },
       .costed = true},
  };
  return kFlags;
}

// Sharded: a reduce-scatter and an all-gather of the ring, never the latency
// path; together what the ring's allreduce counts.
AllreduceCounts zero2_ring_mpi_counts(double bytes, const StrategyOptions& options,
                                      const WorkerPlacement& placement) {
  return {.spanning = ring_terms(bytes, placement.workers, double(options.ring.segment_bytes))};
}

AllreduceCounts ring_mpi_counts(double bytes, const StrategyOptions& options,
                                const WorkerPlacement& placement) {
  if (takes_short_path(bytes, placement.workers, options.short_allreduce_bytes))
    return {.spanning = recursive_doubling_terms(bytes, placement.workers)};
  return {.spanning = ring_terms(bytes, placement.workers, double(options.ring.segment_bytes))};
}

}  // namespace gradsync
