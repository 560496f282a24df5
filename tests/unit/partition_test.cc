#include "strategies/core/partition.h"

#include <gtest/gtest.h>

#include <numeric>

#include "strategies/nccl/nccl_shard.h"

namespace gradsync {
namespace {

TEST(Partition, EvenPartsCoverTheBufferInOrderAndDifferByAtMostOne) {
  for (std::size_t count : {0u, 1u, 2u, 3u, 7u, 64u, 1001u}) {
    for (std::size_t parts : {1u, 2u, 3u, 5u, 8u}) {
      auto ranges = split_even(count, parts);
      ASSERT_EQ(ranges.size(), parts);
      std::size_t next = 0, smallest = count, largest = 0;
      for (const auto& r : ranges) {
        EXPECT_EQ(r.offset, next);
        next += r.count;
        smallest = std::min(smallest, r.count);
        largest = std::max(largest, r.count);
      }
      EXPECT_EQ(next, count) << count << " in " << parts;
      EXPECT_LE(largest - smallest, 1u);
    }
  }
}

TEST(Partition, LargerPartsComeFirst) {
  EXPECT_EQ(even_part(7, 3, 0), (Range{0, 3}));
  EXPECT_EQ(even_part(7, 3, 1), (Range{3, 2}));
  EXPECT_EQ(even_part(7, 3, 2), (Range{5, 2}));
  EXPECT_EQ(even_part(2, 4, 3), (Range{2, 0}));
}

TEST(Partition, BoundedPiecesEndWithTheRemainder) {
  EXPECT_TRUE(split_by_max(0, 4).empty());
  EXPECT_EQ(split_by_max(10, 4), (std::vector<Range>{{0, 4}, {4, 4}, {8, 2}}));
  EXPECT_EQ(split_by_max(8, 4), (std::vector<Range>{{0, 4}, {4, 4}}));
  EXPECT_EQ(split_by_max(3, 100), (std::vector<Range>{{0, 3}}));
}

TEST(Partition, RejectsImpossibleArguments) {
  EXPECT_THROW(even_part(10, 0, 0), std::invalid_argument);
  EXPECT_THROW(even_part(10, 2, 2), std::invalid_argument);
  EXPECT_THROW(split_by_max(10, 0), std::invalid_argument);
}

// The NCCL sharded entries' shards (nccl_shard.h): p equal parts from the
// front, the remainder on the last worker; together they tile the buffer.
TEST(NcclShard, EqualPartsAndTheRemainderOnTheLastWorkerTileTheBuffer) {
  for (std::size_t workers : {1u, 2u, 3u, 5u, 8u}) {
    for (std::size_t count : {0u, 1u, 2u, 7u, 8u, 1000u, 4099u}) {
      std::size_t next = 0;
      for (std::size_t r = 0; r < workers; ++r) {
        const Range shard = nccl_shard(count, workers, r);
        EXPECT_EQ(shard.offset, next) << count << " over " << workers << ", worker " << r;
        const std::size_t expected = count / workers + (r + 1 == workers ? count % workers : 0);
        EXPECT_EQ(shard.count, expected) << count << " over " << workers << ", worker " << r;
        next = shard.offset + shard.count;
      }
      EXPECT_EQ(next, count) << count << " over " << workers;
    }
  }
}

}  // namespace
}  // namespace gradsync
