// Wire truth: per-rank samples grouped by host (counted bytes summed, the
// link read once per host), the ratio, the busiest host, and the JSON that
// records and the allgather carry.
#include "harness/results/wire_record.h"

#include <gtest/gtest.h>

#include "harness/results/train_text.h"

namespace gradsync {
namespace {

TEST(WireRecord, SamplesAreGroupedByHostWithTheLinkReadOnce) {
  const std::vector<std::string> hostnames = {"a", "b", "a", "b", "c"};
  std::vector<std::optional<WireSample>> samples(5);
  samples[0] = WireSample{{100, 200}, LinkBytes{1000, 2000}};  // a's reader
  samples[1] = WireSample{{10, 20}, LinkBytes{30, 40}};        // b's reader
  samples[2] = WireSample{{1, 2}, std::nullopt};
  samples[3] = WireSample{{5, 5}, std::nullopt};
  // rank 4 (host c) only serves: no sample.
  const auto hosts = wire_by_host(hostnames, samples);
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0].host, "a");
  EXPECT_EQ(hosts[0].ranks, (std::vector<int>{0, 2}));
  EXPECT_EQ(hosts[0].counted.bytes_sent, 101u);
  EXPECT_EQ(hosts[0].counted.bytes_received, 202u);
  ASSERT_TRUE(hosts[0].link.has_value());
  EXPECT_EQ(hosts[0].link->tx, 1000u);
  EXPECT_DOUBLE_EQ(*hosts[0].ratio(), 3000.0 / 303.0);
  EXPECT_EQ(hosts[1].counted.bytes_sent, 15u);
  EXPECT_FALSE(hosts[2].link.has_value());
  EXPECT_FALSE(hosts[2].ratio().has_value());

  const WireTruth wire{"step", 10, hosts};
  ASSERT_NE(wire.busiest(), nullptr);
  EXPECT_EQ(wire.busiest()->host, "a");
}

TEST(WireRecord, JsonRoundTripsInRecordsAndInTheAllgather) {
  const WireTruth wire{
      "allreduce", 20, {{"a", {0, 1}, LinkBytes{7, 9}, {3, 4}}, {"b", {2}, std::nullopt, {5, 6}}}};
  const auto j = to_json(wire);
  EXPECT_TRUE(j.at("hosts").at(1).at("link_tx_bytes").is_null());
  EXPECT_TRUE(j.at("hosts").at(1).at("ratio").is_null());
  const WireTruth back = wire_from_json(j);
  EXPECT_EQ(back.unit, "allreduce");
  EXPECT_EQ(back.timed_repeats, 20);
  ASSERT_EQ(back.hosts.size(), 2u);
  EXPECT_EQ(back.hosts[0].link->rx, 9u);
  EXPECT_EQ(back.hosts[1].counted.bytes_received, 6u);
  EXPECT_EQ(to_json(back), j);

  const auto sample = wire_sample_from_json(wire_sample_json(WireSample{{1, 2}, LinkBytes{3, 4}}));
  ASSERT_TRUE(sample.has_value());
  EXPECT_EQ(sample->counted.bytes_received, 2u);
  EXPECT_EQ(sample->link->tx, 3u);
  EXPECT_FALSE(wire_sample_from_json(wire_sample_json(WireSample{{1, 2}, std::nullopt}))->link);
  EXPECT_FALSE(wire_sample_from_json(wire_sample_json(std::nullopt)).has_value());
}

TEST(WireRecord, TrainPrintsTheBusiestHostsBytesPerStep) {
  const WireTruth wire{"step",
                       2,
                       {{"gs-h0", {0}, LinkBytes{2097152, 4194304}, {1048576, 1048576}},
                        {"gs-h1", {1}, LinkBytes{10, 10}, {0, 0}}}};
  EXPECT_EQ(wire_text(wire),
            "Link bytes per step (busiest host gs-h0): tx 1.0 MiB, rx 2.0 MiB; its strategies "
            "counted 0.5 MiB sent, 0.5 MiB received (link/counted 3.00)\n");
}

}  // namespace
}  // namespace gradsync
