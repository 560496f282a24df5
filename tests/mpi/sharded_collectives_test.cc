// The sharded strategies' two collectives, on every rank count CTest runs
// (1 to 5), over the awkward counts: reduce_scatter leaves the exact sum in
// this worker's shard; the workers' shards tile the buffer, each element in
// exactly one; all_gather gives every worker each shard's owner's values.
// Inputs are small integers, so sums are exact and compare with ==. The
// NCCL entries (zero2-nccl, zero3-nccl) take these host buffers staged to
// their GPUs, and skip, saying why, where the job has no GPU per rank.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "strategies/registry.h"
#include "tests/mpi/strategy_params.h"

namespace gradsync {
namespace {

// The usable host entries and every device one that is sharded.
std::vector<std::string> sharded_strategies() {
  std::vector<std::string> names;
  for (const auto& info : strategy_table())
    if (info.sharding != Sharding::none &&
        (info.memory == MemoryKind::device || info.availability().usable))
      names.emplace_back(info.name);
  return names;
}

// Why `name` cannot run in this job (empty: it can), the same on every rank;
// collective. Only the entries that need a GPU per rank can lack one.
std::string cannot_run(const World& world, const std::string& name) {
  return find_strategy(name).gpu_per_rank ? testing::no_gpus_for(world, name) : "";
}

StrategyOptions small_segments() {
  StrategyOptions options;
  options.ring.segment_bytes = 64;
  options.timeout_s = 30;
  return options;
}

const std::vector<std::size_t> kCounts = {0, 1, 2, 3, 4, 5, 7, 13, 64, 1000, 4099};

// Every worker's shard of a buffer of `count`, by worker, as each says it.
std::vector<Range> every_shard(const World& world, const Strategy& strategy, std::size_t count) {
  const Range mine = strategy.shard(count);
  std::vector<Range> out;
  for (const std::string& text :
       world.allgather(std::to_string(mine.offset) + " " + std::to_string(mine.count)))
    out.push_back({std::stoul(text), std::stoul(text.substr(text.find(' ')))});
  return out;
}

class ShardedCollectives : public ::testing::TestWithParam<std::string> {};

TEST_P(ShardedCollectives, ShardsTileTheBufferAndReduceScatterSumsEachExactly) {
  World world;
  if (const auto why = cannot_run(world, GetParam()); !why.empty()) GTEST_SKIP() << why;
  auto strategy = make_strategy(find_strategy(GetParam()), world, small_segments());
  EXPECT_NE(strategy->sharding(), Sharding::none);
  for (std::size_t count : kCounts) {
    // Every worker's shard, seen by every worker: they must cover each element once.
    const Range mine = strategy->shard(count);
    std::vector<int> owners(count, 0);
    for (const Range& shard : every_shard(world, *strategy, count)) {
      ASSERT_LE(shard.offset + shard.count, count) << GetParam() << " count " << count;
      for (std::size_t i = shard.offset; i < shard.offset + shard.count; ++i) ++owners[i];
    }
    for (std::size_t i = 0; i < count; ++i)
      ASSERT_EQ(owners[i], 1) << GetParam() << " count " << count << " element " << i;

    std::vector<float> buffer(count);
    for (std::size_t i = 0; i < count; ++i) buffer[i] = testing::exact_input(world.rank(), i);
    strategy->reduce_scatter(buffer);
    for (std::size_t i = mine.offset; i < mine.offset + mine.count; ++i)
      ASSERT_EQ(buffer[i], testing::exact_sum(world.size(), i))
          << GetParam() << " rank " << world.rank() << " count " << count << " element " << i;
  }
}

TEST_P(ShardedCollectives, AllGatherGivesEveryWorkerEachShardsOwnersValues) {
  World world;
  if (const auto why = cannot_run(world, GetParam()); !why.empty()) GTEST_SKIP() << why;
  auto strategy = make_strategy(find_strategy(GetParam()), world, small_segments());
  for (std::size_t count : kCounts) {
    // Worker r's value at i is exact_input(r, i); after the gather, element
    // i holds its owner's, whichever worker that is.
    std::vector<float> buffer(count);
    for (std::size_t i = 0; i < count; ++i) buffer[i] = testing::exact_input(world.rank(), i);
    const std::vector<Range> shards = every_shard(world, *strategy, count);
    std::vector<int> owner(count, -1);
    for (int r = 0; r < world.size(); ++r)
      for (std::size_t i = shards[r].offset; i < shards[r].offset + shards[r].count; ++i)
        owner[i] = r;
    strategy->all_gather(buffer);
    for (std::size_t i = 0; i < count; ++i)
      ASSERT_EQ(buffer[i], testing::exact_input(owner[i], i))
          << GetParam() << " rank " << world.rank() << " count " << count << " element " << i;
  }
}

// What a sharded step moves: a reduce-scatter and an all-gather each send
// and receive (p-1)/p of the buffer from every worker, together one allreduce.
TEST_P(ShardedCollectives, EachCollectiveMovesItsShareOfTheBuffer) {
  World world;
  if (const auto why = cannot_run(world, GetParam()); !why.empty()) GTEST_SKIP() << why;
  auto strategy = make_strategy(find_strategy(GetParam()), world, small_segments());
  std::vector<float> buffer(6000, 1.0f);  // a multiple of 1..5 workers' 60
  const std::uint64_t share = 24000u * (world.size() - 1) / world.size();
  strategy->reduce_scatter(buffer);
  EXPECT_EQ(strategy->traffic().bytes_sent, share) << GetParam();
  EXPECT_EQ(strategy->traffic().bytes_received, share) << GetParam();
  strategy->all_gather(buffer);
  EXPECT_EQ(strategy->traffic().bytes_sent, 2 * share) << GetParam();
  EXPECT_EQ(strategy->traffic().bytes_received, 2 * share) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(All, ShardedCollectives, ::testing::ValuesIn(sharded_strategies()),
                         [](const auto& info) { return testing::test_name(info.param); });

}  // namespace
}  // namespace gradsync
