// The rotated schedule's order and window (ps_schedule.h), and when a job
// takes it (ps_options.h, ps_rotated).
#include "strategies/ps/ps_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "strategies/ps/ps_options.h"

namespace gradsync {
namespace {

using Order = std::vector<std::uint32_t>;

TEST(RotatedOrder, EachWorkerStartsARoundAtItsOwnShard) {
  // 10 partitions over 4 shards: rounds {0..3}, {4..7}, {8, 9}.
  EXPECT_EQ(rotated_order(10, 4, 0), (Order{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(rotated_order(10, 4, 1), (Order{1, 2, 3, 0, 5, 6, 7, 4, 9, 8}));
  EXPECT_EQ(rotated_order(10, 4, 3), (Order{3, 0, 1, 2, 7, 4, 5, 6, 8, 9}));
  EXPECT_EQ(rotated_order(10, 4, 6), rotated_order(10, 4, 2));  // more workers than shards
  EXPECT_EQ(rotated_order(3, 1, 5), (Order{0, 1, 2}));          // one shard: every worker alike
  EXPECT_EQ(rotated_order(2, 4, 3), (Order{0, 1}));             // fewer partitions than shards
  EXPECT_EQ(rotated_order(0, 3, 1), Order{});
}

// Whatever the sizes, each worker's order holds every partition once, and at
// each position of a full round the workers (up to the shard count) are at
// different shards: no shard takes two workers' pushes at once.
TEST(RotatedOrder, IsAPermutationAndSpreadsTheWorkersOverTheShards) {
  for (int shards : {1, 2, 3, 5, 8})
    for (std::size_t partitions : {1u, 7u, 16u, 41u}) {
      std::vector<Order> orders;
      for (int w = 0; w < shards; ++w) {
        Order order = rotated_order(partitions, shards, w);
        Order sorted = order;
        std::sort(sorted.begin(), sorted.end());
        Order all(partitions);
        std::iota(all.begin(), all.end(), 0u);
        ASSERT_EQ(sorted, all) << shards << " shards, " << partitions << " partitions";
        orders.push_back(std::move(order));
      }
      const std::size_t full = partitions / shards * shards;
      for (std::size_t at = 0; at < full; ++at) {
        std::vector<std::uint32_t> at_shard;
        for (const Order& order : orders) at_shard.push_back(order[at] % shards);
        std::sort(at_shard.begin(), at_shard.end());
        EXPECT_EQ(std::adjacent_find(at_shard.begin(), at_shard.end()), at_shard.end())
            << "two workers at one shard at position " << at;
      }
    }
}

TEST(PushPullWindow, BoundsWhatIsInFlightAndPullsOnlyWhatWasPushed) {
  PushPullWindow window({4, 5, 6, 7, 0}, 2);
  EXPECT_EQ(window.next_pull(), std::nullopt);  // nothing pushed yet
  EXPECT_EQ(window.next_push(), 4u);
  EXPECT_EQ(window.next_push(), 5u);
  EXPECT_EQ(window.next_push(), std::nullopt);  // two unacknowledged
  EXPECT_EQ(window.next_pull(), 4u);
  EXPECT_EQ(window.next_pull(), 5u);
  EXPECT_EQ(window.next_pull(), std::nullopt);  // two outstanding, and no more pushed
  window.acknowledged();
  EXPECT_EQ(window.next_push(), 6u);
  EXPECT_EQ(window.next_pull(), std::nullopt);  // still two outstanding
  window.answered();
  EXPECT_EQ(window.next_pull(), 6u);
  window.acknowledged();
  window.acknowledged();
  EXPECT_EQ(window.next_push(), 7u);
  EXPECT_EQ(window.next_push(), 0u);
  EXPECT_EQ(window.next_push(), std::nullopt);  // all pushed
  window.answered();
  window.answered();
  EXPECT_EQ(window.next_pull(), 7u);
  EXPECT_EQ(window.next_pull(), 0u);
  EXPECT_FALSE(window.done());
  window.answered();
  window.answered();
  EXPECT_TRUE(window.done());
  EXPECT_THROW(PushPullWindow({1}, 0), std::invalid_argument);
}

TEST(PsRotated, WhenAskedForSumsOverZeroMq) {
  PsZmqOptions ps;
  EXPECT_FALSE(ps_rotated(ps));  // all at once by default
  ps.schedule = "rotated";
  EXPECT_TRUE(ps_rotated(ps));
  ps.mode = PsMode::async;  // gradients keep their own protocol
  EXPECT_FALSE(ps_rotated(ps));
  ps.mode = PsMode::sync;
  ps.transport = "mpi";
  EXPECT_FALSE(ps_rotated(ps));
}

}  // namespace
}  // namespace gradsync
