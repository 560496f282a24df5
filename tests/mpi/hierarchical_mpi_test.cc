// hierarchical-mpi on emulated hosts (--hierarchical-ranks-per-host N), so
// that one machine runs the several-leader path: CTest runs these at 4, 5 and
// 6 ranks with hosts of 1, 2 and 3 ranks (5 ranks leave an uneven last host).
// Inputs are small integers, so sums are exact and compared with ==. The
// table-driven tests (strategy_correctness_test.cc) cover it with the default
// grouping, where every rank of this machine is on one host.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "strategies/core/partition.h"
#include "strategies/registry.h"
#include "tests/mpi/strategy_params.h"

namespace gradsync {
namespace {

StrategyOptions emulated_hosts(int ranks_per_host) {
  StrategyOptions options;
  options.hierarchical.ranks_per_host = ranks_per_host;
  options.ring.segment_bytes = 64;
  options.tree.segment_bytes = 48;
  options.timeout_s = 30;
  return options;
}

// Around the leaders' tree/ring threshold (64 KiB = 16384 floats) and the
// awkward counts: fewer elements than hosts, not divisible by them.
const std::vector<std::size_t> kCounts = {0, 1, 2, 3, 5, 7, 13, 1000, 4099, 16383, 16384, 33333};

class HierarchicalMpi : public ::testing::TestWithParam<int> {};

std::vector<float> inputs(int rank, std::size_t count) {
  std::vector<float> buffer(count);
  for (std::size_t i = 0; i < count; ++i) buffer[i] = testing::exact_input(rank, i);
  return buffer;
}

// With the leaders' tree and rings only (--short-allreduce 0), and with the
// latency path across hosts up to its default.
TEST_P(HierarchicalMpi, AllreduceSumsExactlyOverEmulatedHosts) {
  for (std::size_t short_bytes : {std::size_t{0}, StrategyOptions{}.short_allreduce_bytes}) {
    World world;
    StrategyOptions options = emulated_hosts(GetParam());
    options.short_allreduce_bytes = short_bytes;
    auto strategy = make_strategy(find_strategy("hierarchical-mpi"), world, options);
    for (std::size_t count : kCounts) {
      std::vector<float> buffer = inputs(world.rank(), count);
      strategy->allreduce(buffer);
      for (std::size_t i = 0; i < count; ++i)
        ASSERT_EQ(buffer[i], testing::exact_sum(world.size(), i))
            << "rank " << world.rank() << "/" << world.size() << ", hosts of " << GetParam()
            << ", count " << count << ", element " << i << ", --short-allreduce " << short_bytes;
    }
  }
}

// The path a row names: the latency path across hosts while a host
// position's part is at most --short-allreduce bytes (below 64 KiB the
// buffer is one part; above it, one part per rank of the smallest host).
TEST_P(HierarchicalMpi, PathNamesTheLatencyPathAcrossHosts) {
  World world;
  const int per_host = GetParam();
  StrategyOptions options = emulated_hosts(per_host);
  options.short_allreduce_bytes = 32 * 1024;
  auto strategy = make_strategy(find_strategy("hierarchical-mpi"), world, options);
  const bool several_hosts = world.size() > per_host;
  const std::string across = several_hosts ? "recursive doubling across hosts" : "";
  EXPECT_EQ(strategy->path_for(1), across);  // elements of 4 bytes
  EXPECT_EQ(strategy->path_for(8 * 1024), across);
  EXPECT_EQ(strategy->path_for(8 * 1024 + 1), "");
  EXPECT_EQ(strategy->path_for(16 * 1024, 2), across);  // 32 KiB of 16-bit elements
  // 96 KiB in shards over the smallest host's ranks: 32 KiB parts with 3.
  const int smallest = world.size() % per_host == 0 ? per_host : world.size() % per_host;
  EXPECT_EQ(strategy->path_for(24 * 1024), smallest >= 3 ? across : "");
}

TEST_P(HierarchicalMpi, BroadcastCopiesTheRootsBufferFromEveryRoot) {
  World world;
  auto strategy = make_strategy(find_strategy("hierarchical-mpi"), world, emulated_hosts(GetParam()));
  for (int root = 0; root < world.size(); ++root)
    for (std::size_t count : {1u, 5u, 1001u, 20000u}) {
      std::vector<float> buffer = inputs(world.rank(), count);
      strategy->broadcast(buffer, root);
      for (std::size_t i = 0; i < count; ++i)
        ASSERT_EQ(buffer[i], testing::exact_input(root, i))
            << "rank " << world.rank() << ", hosts of " << GetParam() << ", root " << root
            << ", count " << count << ", element " << i;
    }
}

// Within a host every rank sends all but its shard and receives its shard
// from each other rank (reduce-scatter), then the reverse (allgather); the
// shards are as many as the smallest host has ranks. A rank beyond that
// (only on the larger hosts) carries nothing else: no byte of it goes to
// another host. A rank holding a shard adds its part of that shard's ring
// across hosts, when there are several.
TEST_P(HierarchicalMpi, TrafficIsTheHostPhasesPlusTheShardRings) {
  World world;
  const int per_host = GetParam();
  auto strategy = make_strategy(find_strategy("hierarchical-mpi"), world, emulated_hosts(per_host));
  const std::size_t count = 40000;  // 160 KB: above the tree threshold, so sharded
  std::vector<float> buffer = inputs(world.rank(), count);
  strategy->allreduce(buffer);
  const Traffic traffic = strategy->traffic();
  const int host_start = world.rank() / per_host * per_host;
  const int host_size = std::min(per_host, world.size() - host_start);
  const int last_host_size = world.size() - (world.size() - 1) / per_host * per_host;
  const int shards = std::min(per_host, last_host_size);
  const int local = world.rank() - host_start;
  const std::uint64_t mine =
      local < shards ? even_part(count, shards, local).count * sizeof(float) : 0;
  const std::uint64_t bytes = count * sizeof(float);
  const std::uint64_t host_phases =
      host_size > 1 ? (bytes - mine) + (host_size - 1) * mine : 0;
  const bool several_hosts = per_host < world.size();
  if (mine > 0 && several_hosts) {
    EXPECT_GT(traffic.bytes_sent, host_phases) << "rank " << world.rank();
    EXPECT_GT(traffic.bytes_received, host_phases) << "rank " << world.rank();
  } else {
    EXPECT_EQ(traffic.bytes_sent, host_phases) << "rank " << world.rank();
    EXPECT_EQ(traffic.bytes_received, host_phases) << "rank " << world.rank();
  }
}

INSTANTIATE_TEST_SUITE_P(RanksPerHost, HierarchicalMpi, ::testing::Values(1, 2, 3),
                         [](const auto& info) { return "hosts_of_" + std::to_string(info.param); });

}  // namespace
}  // namespace gradsync
