// hierarchical-mpi: Horovod's hierarchical allreduce over MPI.
//
// The workers are grouped by host: the ranks that share memory
// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED), or, with
// --hierarchical-ranks-per-host N, consecutive world ranks N at a time (an
// emulated host, so that tests on one machine run the several-host path).
// Each host's lowest rank is its leader. An allreduce runs in three phases
// (Horovod's NCCLHierarchicalAllreduce, NCCL's own shape across nodes):
//
//  1. host reduce-scatter: with l the smallest host's rank count, the buffer
//     is cut into l shards and shard j of the host's sum lands, in place, on
//     the host's rank j (each rank sends every other rank its part directly
//     over the host's communicator: shared memory on a real host);
//  2. across hosts: the ranks at host position j, one per host, sum shard j
//     with ring-mpi (the RingMpi strategy on their own World), position after
//     position (an empty message passes the turn within the host), so that
//     each host's link carries one ring's flow at a time;
//  3. host allgather: every shard goes to every rank of the host, directly.
//
// Below kHierarchicalTreeBelowBytes the buffer is one shard: phase 1 is then a reduce to
// the leader, phase 2 the leaders' tree-mpi (the ring's 2(h-1) message
// latencies cost more than the tree's 2 log2(h), and the bytes are too few
// for bandwidth to matter), phase 3 a broadcast from the leader.
//
// **Decisions**, measured on the emulated cluster (4 hosts x 2 slots at
// 500mbit, 64 MiB; scripts/cluster-runs.sh hierarchy): one leader per host
// carrying the whole buffer (as the issue first put it) took 2.06 s against
// the flat ring's 2.01, its leader receiving, summing and broadcasting the
// host's whole buffer while the other rank idled; Open MPI's
// MPI_Reduce_scatter and MPI_Allgatherv for the host phases took 142 ms at
// 64 MiB over 2 ranks (the direct exchange: 29 ms), leaving the sharded form
// at 2.18 s; with the direct exchange and the turns it takes 1.84-1.87 s
// against the ring's 1.97-2.00 (one ring over the 4 hosts alone: 1.69 s).
// The bytes on each host's link are the leader form's: l rings x
// 2(h-1)/h x n/l.
//
// Only the position Worlds cross hosts; ranks at positions l and above (on
// hosts larger than the smallest) talk to their own host alone.
//
// Cost for n bytes over h hosts of l ranks each (counted exactly in
// hierarchical_mpi_cost.cc): the host reduce-scatter and
// allgather move (l-1)/l n per rank each over shared memory, and each
// position's ring 2(h-1) alpha + 2(h-1)/h n/l beta + (h-1)/h n/l gamma on
// the network, so a host's link carries 2(h-1)/h n each way. A flat ring over
// p = h l ranks takes 2(p-1) steps and puts 2(p-1)/p n on each host's link
// when the ranks of a host are neighbours in the ring (l times that when
// every ring edge crosses hosts).
//
// Traffic: what this rank's messages carried: in the reduce-scatter a rank
// sends everything but its shard and receives its shard from each other
// rank, the allgather the reverse; the position rings count their own. A
// broadcast's host phases (MPI_Bcast, whose tree is hidden) count as one
// pass between the root and each other rank, exact summed over a host.

#include "strategies/mpi/hierarchical_mpi.h"

#include <algorithm>
#include <type_traits>

#include "strategies/core/bounded_wait.h"
#include "strategies/core/partition.h"
#include "strategies/core/reduce_kernel.h"
#include "strategies/core/strategy_options.h"
#include "strategies/mpi/mpi_count.h"
#include "strategies/mpi/mpi_pipeline.h"
#include "strategies/mpi/ring_mpi.h"
#include "strategies/mpi/short_allreduce.h"
#include "strategies/mpi/tree_mpi.h"

namespace gradsync {
namespace {

// Tags on the host communicator: the turn passed between host positions, and
// the parts exchanged within the host.
constexpr int kTurnTag = 1, kHostTag = 2;

// The host of this rank: the ranks that share its memory, or its emulated host.
World host_of(const World& world, int ranks_per_host) {
  if (ranks_per_host > 0) return world.split(world.rank() / ranks_per_host);
  return world.split_by_host();
}

// The rank in `world` of `host`'s leader (its rank 0).
int leader_in(const World& world, const World& host) {
  MPI_Group world_group, host_group;
  MPI_Comm_group(world.comm(), &world_group);
  MPI_Comm_group(host.comm(), &host_group);
  const int leader = 0;
  int in_world = 0;
  MPI_Group_translate_ranks(host_group, 1, &leader, world_group, &in_world);
  MPI_Group_free(&host_group);
  MPI_Group_free(&world_group);
  return in_world;
}

// Where every rank of the world sits: its host (numbered as the leaders'
// World ranks them, by world rank) and its rank within the host.
struct Placement {
  std::vector<int> host;
  std::vector<int> local_rank;
};

Placement place_ranks(const World& world, const World& host) {
  const int mine[2] = {host.rank(), leader_in(world, host)};
  std::vector<int> all(2 * world.size());
  MPI_Request request;
  check_mpi(MPI_Iallgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, world.comm(), &request),
            "MPI_Allgather");
  wait_collective(request, sizeof mine,
                  {"hierarchical-mpi placement", world.comm(), world.timeout()});
  std::vector<int> host_led_by(world.size(), -1);
  int hosts = 0;
  for (int r = 0; r < world.size(); ++r)
    if (all[2 * r] == 0) host_led_by[r] = hosts++;
  Placement placement;
  for (int r = 0; r < world.size(); ++r) {
    placement.local_rank.push_back(all[2 * r]);
    placement.host.push_back(host_led_by[all[2 * r + 1]]);
  }
  return placement;
}

class HierarchicalMpi final : public Strategy {
 public:
  HierarchicalMpi(const World& world, const StrategyOptions& options)
      : world_(with_timeout(world.duplicate(), options.timeout_s)),
        host_(host_of(world_, options.hierarchical.ranks_per_host)),
        placement_(place_ranks(world_, host_)),
        watch_(host_.comm(), options.timeout_s),
        turn_wait_{"hierarchical-mpi turn between host positions", host_.comm(), options.timeout_s},
        host_reduce_wait_{"hierarchical-mpi reduce-scatter within the host", host_.comm(),
                          options.timeout_s},
        host_gather_wait_{"hierarchical-mpi allgather within the host", host_.comm(),
                          options.timeout_s},
        short_allreduce_bytes_(options.short_allreduce_bytes) {
    // Every host has ranks 0 .. shards_-1: a large buffer is cut into that
    // many shards, shard j reduced on each host's rank j.
    std::vector<int> host_sizes;
    for (int h : placement_.host) {
      if (h >= static_cast<int>(host_sizes.size())) host_sizes.resize(h + 1, 0);
      ++host_sizes[h];
    }
    shards_ = *std::min_element(host_sizes.begin(), host_sizes.end());
    hosts_ = static_cast<int>(host_sizes.size());
    // The World of every rank at this host position; position 0 is the
    // leaders'. Only the leaders use the tree (small buffers are one shard).
    const World position = world_.split(host_.rank());
    if (host_.rank() < shards_ && position.size() > 1) {
      ring_ = make_ring_mpi(position, options);
      if (host_.rank() == 0) tree_ = make_tree_mpi(position, options);
    }
  }

  std::string_view name() const override { return "hierarchical-mpi"; }
  const World& peers() const override { return world_; }

  void allreduce(std::span<float> buffer) override { reduce(buffer, Compression::none); }
  // 16-bit elements: the host phases sum them with ElementSum, the rings and
  // the tree with their own 16-bit path.
  void allreduce_compressed(std::span<std::uint16_t> buffer, Compression format) override {
    reduce(buffer, format);
  }

  // The ring or the tree across hosts takes the latency path for a part of
  // at most --short-allreduce bytes; the host phases stay as they are.
  std::string path_for(std::size_t count, std::size_t element_bytes) const override {
    const int shards = shards_for(count * element_bytes);
    const double part = static_cast<double>(even_part(count, shards, 0).count * element_bytes);
    if (!takes_short_path(part, hosts_, short_allreduce_bytes_)) return {};
    return std::string(kShortPathName) + " across hosts";
  }

  // The root's host first (when the root is not its leader, it hands its
  // buffer to its whole host, leader included), then the leaders from the
  // root's host, then every other host from its leader.
  void broadcast(std::span<float> buffer, int root) override {
    if (world_.size() == 1 || buffer.empty()) return;
    const int root_local = placement_.local_rank[root];
    const int root_host = placement_.host[root];
    const bool on_root_host = placement_.host[world_.rank()] == root_host;
    if (on_root_host && root_local != 0) broadcast_in_host(buffer, root_local);
    if (Strategy* leaders = host_.rank() == 0 ? across_for(buffer.size_bytes()) : nullptr)
      on_leaders(*leaders, [&] { leaders->broadcast(buffer, root_host); });
    if (!on_root_host || root_local == 0) broadcast_in_host(buffer, 0);
  }

 private:
  static World with_timeout(World world, double timeout_s) {
    world.set_timeout(timeout_s);
    return world;
  }

  // The strategy across hosts of this rank's host position for `bytes`;
  // null on positions that carry no shard, or with one host. Below
  // kHierarchicalTreeBelowBytes only the leaders (position 0) hold a shard.
  Strategy* across_for(std::size_t bytes) const {
    if (!ring_) return nullptr;
    return bytes < kHierarchicalTreeBelowBytes ? tree_.get() : ring_.get();
  }

  // How many shards a buffer of `bytes` is cut into: one below
  // kHierarchicalTreeBelowBytes, else one per rank of the smallest host.
  int shards_for(std::size_t bytes) const {
    return bytes < kHierarchicalTreeBelowBytes ? 1 : shards_;
  }

  template <typename T>
  void reduce(std::span<T> buffer, Compression format) {
    if (world_.size() == 1 || buffer.empty()) return;
    for (Range piece : split_by_max(buffer.size(), kMaxMpiCount))
      reduce_piece(buffer.subspan(piece.offset, piece.count), format);
  }

  // The three phases over one piece (its count fits MPI's int).
  template <typename T>
  void reduce_piece(std::span<T> data, Compression format) {
    const int shards = shards_for(data.size_bytes());
    std::vector<Range> parts(host_.size());  // shard j on host rank j; none beyond
    for (int j = 0; j < shards; ++j) parts[j] = even_part(data.size(), shards, j);
    const int local = host_.rank();
    const Range mine = parts[local];
    const ElementSum sum{format};
    // Phase 1: shard j of the host's sum lands on its rank j, in place.
    if (host_.size() > 1) reduce_scatter_in_host(data.data(), parts, sum);
    // Phase 2: each shard summed across hosts by the ranks that hold it, one
    // position after the other (the turn passes within the host), so that a
    // host's link carries one ring's flow at a time.
    Strategy* across = mine.count > 0 ? across_for(data.size_bytes()) : nullptr;
    if (across) {
      if (local > 0) take_turn_from(local - 1);
      const std::span<T> shard = data.subspan(mine.offset, mine.count);
      on_leaders(*across, [&] {
        if constexpr (std::is_same_v<T, float>)
          across->allreduce(shard);
        else
          across->allreduce_compressed(shard, format);
      });
      if (local + 1 < shards) pass_turn_to(local + 1);
    }
    // Phase 3: every shard to every rank of the host.
    if (host_.size() > 1) allgather_in_host(data.data(), parts);
  }

  // Every rank sends part i of its buffer to host rank i and adds the parts
  // the others send it into its own, in host rank order (only rank i sums
  // part i, so the order is fixed). Direct exchange: l - 1 messages each way
  // per rank, which suits the few ranks of a host; Open MPI's
  // MPI_Reduce_scatter took 5 times as long at 64 MiB over 2 ranks.
  template <typename T>
  void reduce_scatter_in_host(T* data, const std::vector<Range>& parts, const ElementSum& sum) {
    const int local = host_.rank(), size = host_.size();
    const Range mine = parts[local];
    T* const incoming = scratch_.get<T>((size - 1) * mine.count);
    std::vector<Range> slots(size);  // where host rank i's copy of my part lands in `incoming`
    for (int i = 0, slot = 0; i < size; ++i)
      if (i != local) slots[i] = {slot++ * mine.count, mine.count};
    exchange_in_host(data, parts, incoming, slots, host_reduce_wait_);
    for (int i = 0; i < size; ++i)
      if (i != local) sum(data + mine.offset, incoming + slots[i].offset, mine.count);
  }

  // Every rank sends its part to every other rank of the host and receives
  // theirs into place.
  template <typename T>
  void allgather_in_host(T* data, const std::vector<Range>& parts) {
    const std::vector<Range> mine(host_.size(), parts[host_.rank()]);
    exchange_in_host(data, mine, data, parts, host_gather_wait_);
  }

  // Sends `send[i]` of `data` to every other host rank i and receives from
  // it `receive[i]` of `into` (empty ranges are skipped); waits for all. A
  // short part goes in pieces below the shared-memory transport's eager
  // limit, a long one whole (host_piece_elements).
  template <typename T>
  void exchange_in_host(const T* data, const std::vector<Range>& send, T* into,
                        const std::vector<Range>& receive, const Wait& wait) {
    const int local = host_.rank(), size = host_.size();
    auto pieces = [](Range range) {
      std::vector<Range> out;
      for (Range piece : split_by_max(range.count, host_piece_elements(range.count, sizeof(T))))
        out.push_back({range.offset + piece.offset, piece.count});
      return out;
    };
    std::vector<MPI_Request> received;
    std::vector<int> from;
    for (int i = 0; i < size; ++i)
      if (i != local)
        for (Range piece : pieces(receive[i])) {
          received.push_back(irecv_range(into, piece, i, kHostTag, host_.comm(), traffic_));
          from.push_back(i);
        }
    PendingSends sent;
    for (int i = 0; i < size; ++i)
      if (i != local)
        for (Range piece : pieces(send[i]))
          sent.add(isend_range(data, piece, i, kHostTag, host_.comm(), traffic_), i);
    wait_peers(received, from, Direction::from_peer, wait);
    sent.wait(wait);
  }

  // Runs `call` on the leaders' strategy and adds what it moved to this rank's count.
  template <typename Call>
  void on_leaders(const Strategy& leaders, Call call) {
    const Traffic before = leaders.traffic();
    call();
    const Traffic after = leaders.traffic();
    traffic_.bytes_sent += after.bytes_sent - before.bytes_sent;
    traffic_.bytes_received += after.bytes_received - before.bytes_received;
  }

  // The turn to use the network, an empty message between host positions.
  void take_turn_from(int local) {
    MPI_Request request;
    check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, local, kTurnTag, host_.comm(), &request), "MPI_Irecv");
    wait_peer(request, local, Direction::from_peer, turn_wait_);
  }
  void pass_turn_to(int local) {
    MPI_Request request;
    check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, local, kTurnTag, host_.comm(), &request), "MPI_Isend");
    wait_peer(request, local, Direction::to_peer, turn_wait_);
  }

  // A broadcast's first and last steps: host rank `local_root`'s buffer
  // goes to every rank of the host.
  void broadcast_in_host(std::span<float> buffer, int local_root) {
    if (host_.size() == 1) return;
    const bool root = host_.rank() == local_root;
    for (Range piece : split_by_max(buffer.size(), kMaxMpiCount)) {
      watch_.run("MPI_Bcast within the host", piece.count * sizeof(float), [&] {
        check_mpi(MPI_Bcast(buffer.data() + piece.offset, static_cast<int>(piece.count), MPI_FLOAT,
                            local_root, host_.comm()),
                  "MPI_Bcast");
      });
    }
    count_host_pass(buffer, root, root ? &Traffic::bytes_sent : &Traffic::bytes_received);
  }

  // One pass of `buffer` between a host's root and each of its other ranks:
  // the root's count grows by the host's other ranks' share, the others' by one buffer.
  void count_host_pass(std::span<const float> buffer, bool root,
                       std::uint64_t Traffic::*counter) {
    const std::uint64_t others = root ? host_.size() - 1 : 1;
    traffic_.*counter += others * buffer.size_bytes();
  }

  World world_;
  World host_;
  Placement placement_;
  BlockingCallWatch watch_;
  Wait turn_wait_, host_reduce_wait_, host_gather_wait_;
  std::size_t short_allreduce_bytes_;
  int shards_ = 1;
  int hosts_ = 1;
  std::unique_ptr<Strategy> ring_;  // on host positions below shards_, with more than one host
  std::unique_ptr<Strategy> tree_;  // on the leaders only
  Scratch scratch_;  // the other ranks' copies of this rank's shard
};

}  // namespace

std::unique_ptr<Strategy> make_hierarchical_mpi(const World& world,
                                                const StrategyOptions& options) {
  return std::make_unique<HierarchicalMpi>(world, options);
}

std::span<const OptionFlag> hierarchical_mpi_flags() {
  static constexpr OptionFlag kFlags[] = {
      {.flag = "--hierarchical-ranks-per-host",
       .key = "hierarchical_ranks_per_host",
       .help = "group consecutive ranks into emulated hosts of N ranks, the last one possibly "
               "smaller (0: a host is the ranks that share memory)",
       .type_name = "N",
       .bound = OptionBound::not_negative,
       .field = [](StrategyOptions& o) -> OptionField { return &o.hierarchical.ranks_per_host; },
       .costed = true},
  };
  return kFlags;
}

}  // namespace gradsync
