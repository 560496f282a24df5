#include "strategies/ps/ps_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gradsync {
namespace {

using ::testing::HasSubstr;

TEST(PsPlan, PartitionCountIsBySizeButAtLeastOnePerShardWhileElementsLast) {
  const PsPlan plan{.partition_bytes = 16, .shards = 3};  // at most 4 floats a partition
  EXPECT_EQ(plan.partition_count(0), 0u);
  EXPECT_EQ(plan.partition_count(1), 1u);
  EXPECT_EQ(plan.partition_count(2), 2u);
  EXPECT_EQ(plan.partition_count(3), 3u);
  EXPECT_EQ(plan.partition_count(12), 3u);
  EXPECT_EQ(plan.partition_count(13), 4u);
  EXPECT_EQ(plan.partition_count(1001), 251u);
  const PsPlan big{.partition_bytes = 4 << 20, .shards = 2};
  EXPECT_EQ(big.partition_count(10), 2u);
  EXPECT_EQ(big.partition_count((4 << 20) / 4 * 3), 3u);
  // Fewer bytes than a float still means one element per partition.
  EXPECT_EQ((PsPlan{.partition_bytes = 1, .shards = 1}.partition_count(5)), 5u);
}

TEST(PsPlan, PartitionsCoverTheBufferWithinTheSizeBoundAndRoundRobinOverShards) {
  for (int shards : {1, 2, 3, 5}) {
    for (std::size_t total : {0u, 1u, 4u, 5u, 17u, 1000u, 1027u}) {
      const PsPlan plan{.partition_bytes = 40, .shards = shards};
      const std::vector<Range> parts = plan.partitions(total);
      ASSERT_EQ(parts.size(), plan.partition_count(total));
      std::size_t next = 0;
      for (std::size_t i = 0; i < parts.size(); ++i) {
        EXPECT_EQ(parts[i].offset, next);
        EXPECT_GE(parts[i].count, 1u);
        EXPECT_LE(parts[i].count, 10u);
        EXPECT_EQ(parts[i], plan.partition(total, i));
        next += parts[i].count;
      }
      EXPECT_EQ(next, total);
    }
    const PsPlan plan{.partition_bytes = 40, .shards = shards};
    for (std::size_t i = 0; i < 12; ++i) EXPECT_EQ(plan.shard_of(i), static_cast<int>(i % shards));
  }
}

TEST(PsPlan, CheckAcceptsThePlanAndNamesWhatDiffers) {
  const PsPlan plan{.partition_bytes = 16, .shards = 2};  // total 10: [0,4) [4,7) [7,10)
  PsHeader h{.type = PsMessageType::push, .partition = 1, .offset = 4, .count = 3, .total = 10};
  EXPECT_EQ(plan.check(h, 1), "");
  EXPECT_THAT(plan.check(h, 0), HasSubstr("partition 1 belongs to shard 1, not to shard 0"));
  h.count = 4;
  EXPECT_THAT(plan.check(h, 1), HasSubstr("is elements [4, 7), but the header says [4, 8)"));
  h = {.partition = 3, .total = 10};
  EXPECT_THAT(plan.check(h, 1), HasSubstr("partition 3 does not exist"));
  h = {.partition = 0, .total = 0};
  EXPECT_THAT(plan.check(h, 0), HasSubstr("has 0 partitions"));
}

TEST(PsPlan, PackedOffsetsMatchAWalkOverEveryShardsPartitions) {
  for (const std::size_t partition_bytes : {4, 12, 40, 4096})
    for (const int shards : {1, 2, 3, 5})
      for (const std::uint64_t total : {0, 1, 2, 3, 7, 10, 11, 64, 1000, 1001}) {
        const PsPlan plan{partition_bytes, shards};
        const std::vector<Range> parts = plan.partitions(total);
        std::vector<std::uint64_t> packed(shards, 0);
        for (std::size_t i = 0; i < parts.size(); ++i) {
          const int shard = plan.shard_of(i);
          EXPECT_EQ(plan.packed_offset(total, i), packed[shard])
              << "partition " << i << " of " << total << " elements, " << shards << " shards, "
              << partition_bytes << " B";
          packed[shard] += parts[i].count;
        }
        for (int shard = 0; shard < shards; ++shard)
          EXPECT_EQ(plan.packed_elements(total, shard), packed[shard])
              << "shard " << shard << " of " << total << " elements";
      }
}

}  // namespace
}  // namespace gradsync
