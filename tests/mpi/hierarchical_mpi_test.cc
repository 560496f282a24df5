// hierarchical-mpi on emulated hosts (--hierarchical-ranks-per-host N), so
// that one machine runs the several-leader path: CTest runs these at 4, 5 and
// 6 ranks with hosts of 1, 2 and 3 ranks (5 ranks leave an uneven last host).
// Inputs are small integers, so sums are exact and compared with ==. The
// table-driven tests (strategy_correctness_test.cc) cover it with the default
// grouping, where every rank of this machine is on one host.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

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

TEST_P(HierarchicalMpi, AllreduceSumsExactlyOverEmulatedHosts) {
  World world;
  auto strategy = make_strategy("hierarchical-mpi", world, emulated_hosts(GetParam()));
  for (std::size_t count : kCounts) {
    std::vector<float> buffer = inputs(world.rank(), count);
    strategy->allreduce(buffer);
    for (std::size_t i = 0; i < count; ++i)
      ASSERT_EQ(buffer[i], testing::exact_sum(world.size(), i))
          << "rank " << world.rank() << "/" << world.size() << ", hosts of " << GetParam()
          << ", count " << count << ", element " << i;
  }
}

TEST_P(HierarchicalMpi, BroadcastCopiesTheRootsBufferFromEveryRoot) {
  World world;
  auto strategy = make_strategy("hierarchical-mpi", world, emulated_hosts(GetParam()));
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

// A rank other than its host's leader moves its buffer once to the leader and
// once back, and nothing else: no byte of it goes to another host. A leader
// moves its host's share both ways, plus, when there are other hosts, its
// part of the leaders' ring.
TEST_P(HierarchicalMpi, OnlyLeadersCarryTrafficBetweenHosts) {
  World world;
  const int per_host = GetParam();
  auto strategy = make_strategy("hierarchical-mpi", world, emulated_hosts(per_host));
  const std::size_t count = 40000;
  std::vector<float> buffer = inputs(world.rank(), count);
  strategy->allreduce(buffer);
  const Traffic traffic = strategy->traffic();
  const std::uint64_t bytes = count * sizeof(float);
  const int host_start = world.rank() / per_host * per_host;
  const std::uint64_t host_size = std::min(per_host, world.size() - host_start);
  const bool several_hosts = per_host < world.size();
  if (world.rank() != host_start) {
    EXPECT_EQ(traffic.bytes_sent, bytes) << "rank " << world.rank();
    EXPECT_EQ(traffic.bytes_received, bytes) << "rank " << world.rank();
  } else if (several_hosts) {
    EXPECT_GT(traffic.bytes_sent, (host_size - 1) * bytes) << "leader " << world.rank();
    EXPECT_GT(traffic.bytes_received, (host_size - 1) * bytes) << "leader " << world.rank();
  } else {
    EXPECT_EQ(traffic.bytes_sent, (host_size - 1) * bytes);
    EXPECT_EQ(traffic.bytes_received, (host_size - 1) * bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(RanksPerHost, HierarchicalMpi, ::testing::Values(1, 2, 3),
                         [](const auto& info) { return "hosts_of_" + std::to_string(info.param); });

}  // namespace
}  // namespace gradsync
