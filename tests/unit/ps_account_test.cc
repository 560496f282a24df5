// What ps-zmq's shards tell about a run (strategies/ps/ps_account.cc): which
// shards, and which workers at each, took the shared-memory data path and
// the partition size they planned with, merged over every rank's part into the record's fields and
// one output line. Ranks without a shard give no part.
#include "strategies/ps/ps_account.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "strategies/ps/ps_rejections_json.h"

namespace gradsync {
namespace {

std::string shard_part(bool shared, std::uint64_t partition_bytes, int sum_threads = 1) {
  return nlohmann::json{{"rejected", to_json(PsRejections{})},
                        {"shared_memory", shared},
                        {"partition_bytes", partition_bytes},
                        {"sum_threads", sum_threads}}
      .dump();
}

std::string line_with(const RunAccount& account, const std::string& start) {
  for (const auto& line : account.lines)
    if (line.starts_with(start)) return line;
  return {};
}

TEST(PsAccount, TheDataPathAndThePartitionSizeComeFromTheShards) {
  const StrategyOptions options;
  const AccountInputs inputs{.options = &options};
  // Two shards, both local, on ranks 0 and 1; rank 2 a worker only.
  const std::vector<std::string> local = {shard_part(true, 4 << 20), shard_part(true, 4 << 20), ""};
  const RunAccount both = ps_zmq_merge_account(local, inputs);
  EXPECT_EQ(both.fields.at("ps_shared_memory"),
            (nlohmann::json{{"shards", 2}, {"of", 2}, {"sum_threads", 1}}));
  EXPECT_EQ(both.fields.at("ps_partition_bytes"), 4u << 20);
  EXPECT_EQ(line_with(both, "PS data path"),
            "PS data path: shared memory at 2 of 2 shards (every worker on its shard's host; "
            "ZeroMQ carries headers only); sums on 1 thread; partitions of 4194304 B");
  // One shard whose workers span hosts.
  const RunAccount none =
      ps_zmq_merge_account(std::vector<std::string>{shard_part(false, 1 << 20)}, inputs);
  EXPECT_EQ(none.fields.at("ps_shared_memory"), (nlohmann::json{{"shards", 0}, {"of", 1}}));
  EXPECT_EQ(none.fields.at("ps_partition_bytes"), 1u << 20);
  EXPECT_THAT(line_with(none, "PS data path"),
              ::testing::HasSubstr("at 0 of 1 shard (ZeroMQ carries every byte); partitions of "
                                   "1048576 B"));
  EXPECT_TRUE(none.failure.empty());
}

// A shard's part as ps_zmq.cc writes it: its index, the job's workers and
// those it serves through shared memory.
std::string mixed_part(std::uint32_t shard, int workers, std::vector<std::uint32_t> shared) {
  nlohmann::json part = nlohmann::json::parse(shard_part(!shared.empty(), 1 << 20));
  part["shard"] = shard;
  part["workers"] = workers;
  part["shared_workers"] = shared;
  return part.dump();
}

TEST(PsAccount, TheRecordSaysWhichWorkersTookSharedMemoryAtEachShard) {
  const StrategyOptions options;
  const AccountInputs inputs{.options = &options};
  // 2 hosts x 2 slots, both shards on the first host (parts in rank order).
  const RunAccount two = ps_zmq_merge_account(
      std::vector<std::string>{mixed_part(0, 4, {0, 1}), mixed_part(1, 4, {0, 1}), "", ""}, inputs);
  EXPECT_EQ(two.fields.at("ps_shared_memory"), nlohmann::json::parse(R"({
      "shards": 2, "of": 2, "sum_threads": 1, "workers": 4,
      "by_shard": [{"shard": 0, "shared_memory": [0, 1], "zeromq": [2, 3]},
                   {"shard": 1, "shared_memory": [0, 1], "zeromq": [2, 3]}]})"));
  EXPECT_EQ(line_with(two, "PS data path"),
            "PS data path: shared memory for 2 of 4 workers at 2 of 2 shards (shards 0, 1: "
            "workers 0, 1), ZeroMQ for the others; sums on 1 thread; partitions of 1048576 B");
  // Shards on both hosts and one without a local worker (dedicated), in any
  // order of parts.
  const RunAccount three =
      ps_zmq_merge_account(std::vector<std::string>{mixed_part(2, 3, {}), mixed_part(1, 3, {2}),
                                                    mixed_part(0, 3, {0, 1})},
                           inputs);
  EXPECT_EQ(three.fields.at("ps_shared_memory").at("shards"), 2);
  EXPECT_EQ(three.fields.at("ps_shared_memory").at("by_shard"), nlohmann::json::parse(R"([
      {"shard": 0, "shared_memory": [0, 1], "zeromq": [2]},
      {"shard": 1, "shared_memory": [2], "zeromq": [0, 1]},
      {"shard": 2, "shared_memory": [], "zeromq": [0, 1, 2]}])"));
  EXPECT_EQ(line_with(three, "PS data path"),
            "PS data path: shared memory for 1-2 of 3 workers at 2 of 3 shards (shard 0: workers "
            "0, 1; shard 1: worker 2), ZeroMQ for the others; sums on 1 thread; partitions of "
            "1048576 B");
  // The workers each shard reads in place: all, some, or none of the shared pairs.
  auto in_place_part = [](std::uint32_t shard, std::vector<std::uint32_t> shared,
                          std::vector<std::uint32_t> in_place) {
    nlohmann::json part = nlohmann::json::parse(mixed_part(shard, 4, std::move(shared)));
    part["in_place_workers"] = in_place;
    return part.dump();
  };
  const RunAccount all_in_place = ps_zmq_merge_account(
      std::vector<std::string>{in_place_part(0, {0, 1}, {1, 0}), in_place_part(1, {2, 3}, {2, 3})},
      inputs);
  EXPECT_EQ(all_in_place.fields.at("ps_shared_memory").at("in_place_pairs"), 4);
  EXPECT_EQ(all_in_place.fields.at("ps_shared_memory").at("by_shard").at(0).at("in_place"),
            nlohmann::json::parse("[0, 1]"));
  EXPECT_EQ(line_with(all_in_place, "PS data path"),
            "PS data path: shared memory for 2 of 4 workers at 2 of 2 shards (shard 0: workers "
            "0, 1; shard 1: workers 2, 3), ZeroMQ for the others; read and written in place; "
            "sums on 1 thread; partitions of 1048576 B");
  const RunAccount some = ps_zmq_merge_account(
      std::vector<std::string>{in_place_part(0, {0, 1}, {0}), in_place_part(1, {2, 3}, {})},
      inputs);
  EXPECT_EQ(some.fields.at("ps_shared_memory").at("in_place_pairs"), 1);
  EXPECT_THAT(line_with(some, "PS data path"),
              ::testing::HasSubstr("; in place for 1 of 4 pairs, copied for the others;"));
  const RunAccount copied = ps_zmq_merge_account(
      std::vector<std::string>{in_place_part(0, {0, 1}, {}), in_place_part(1, {2, 3}, {})}, inputs);
  EXPECT_THAT(line_with(copied, "PS data path"),
              ::testing::HasSubstr("ZeroMQ for the others; copied through segments;"));
  // Every pair local, or none: the lines of old.
  const RunAccount all = ps_zmq_merge_account(
      std::vector<std::string>{mixed_part(0, 2, {0, 1}), mixed_part(1, 2, {0, 1})}, inputs);
  EXPECT_THAT(line_with(all, "PS data path"),
              ::testing::HasSubstr("at 2 of 2 shards (every worker on its shard's host"));
  const RunAccount none =
      ps_zmq_merge_account(std::vector<std::string>{mixed_part(0, 2, {})}, inputs);
  EXPECT_THAT(line_with(none, "PS data path"),
              ::testing::HasSubstr("at 0 of 1 shard (ZeroMQ carries every byte)"));
}

TEST(PsAccount, TheThreadsEachSharedSumRanOnComeFromTheShards) {
  const StrategyOptions options;
  const AccountInputs inputs{.options = &options};
  // One shard on a host of 2 cores: its sums on both.
  const RunAccount one =
      ps_zmq_merge_account(std::vector<std::string>{shard_part(true, 4 << 20, 2), ""}, inputs);
  EXPECT_EQ(one.fields.at("ps_shared_memory"),
            (nlohmann::json{{"shards", 1}, {"of", 1}, {"sum_threads", 2}}));
  EXPECT_THAT(line_with(one, "PS data path"),
              ::testing::HasSubstr("headers only); sums on 2 threads; partitions of 4194304 B"));
  // Shards that differ (hosts of other sizes); a shard off the shared path
  // sums on its own thread and is not counted.
  const std::vector<std::string> mixed = {shard_part(true, 4 << 20, 4),
                                          shard_part(true, 4 << 20, 2), shard_part(false, 4 << 20)};
  const RunAccount differ = ps_zmq_merge_account(mixed, inputs);
  EXPECT_EQ(differ.fields.at("ps_shared_memory"),
            (nlohmann::json{{"shards", 2}, {"of", 3}, {"sum_threads", 4}}));
  EXPECT_THAT(line_with(differ, "PS data path"),
              ::testing::HasSubstr("host: ZeroMQ); sums on 2 to 4 threads; partitions of"));
}

}  // namespace
}  // namespace gradsync
