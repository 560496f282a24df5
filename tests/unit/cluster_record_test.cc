// What records and reports say about a run on an emulated cluster and about
// time scaling: the label of the represented cluster, the link warning, the
// record's cluster object with the ranks on each host, the setup that keeps
// runs at different time scales or on different clusters apart.
#include "harness/results/cluster_record.h"

#include <gtest/gtest.h>

#include "harness/results/result_file.h"
#include "harness/results/train_record.h"

namespace gradsync {
namespace {

ClusterDescription cluster(int hosts, int slots, double rate, double delay_s = 0) {
  ClusterDescription c;
  c.subnet = "198.18.0.0/24";
  c.bridge = "gsbr0";
  c.interface = "gs0";
  c.slots = slots;
  c.rate = format_rate(rate);
  c.rate_bits_per_s = rate;
  c.delay = "0ms";
  c.delay_s = delay_s;
  for (int h = 0; h < hosts; ++h)
    c.hosts.push_back({"gs-h" + std::to_string(h), "198.18.0." + std::to_string(h + 1), slots});
  c.check = LinkCheck{"2024-05-01T12:00:00Z", {{"gs-h0", 0.95 * rate, 0.95}}, 0.95, true};
  return c;
}

TEST(ClusterRecord, RatesAreWrittenAsTcWritesThem) {
  EXPECT_EQ(format_rate(25e9), "25gbit");
  EXPECT_EQ(format_rate(1.5625e9), "1.5625gbit");
  EXPECT_EQ(format_rate(100e6), "100mbit");
  EXPECT_EQ(format_rate(64e3), "64kbit");
  EXPECT_EQ(format_rate(10), "10bit");
}

TEST(ClusterRecord, TheLabelNamesTheRepresentedClusterThenWhatEmulatesIt) {
  EXPECT_EQ(cluster_label(cluster(4, 4, 1.5625e9), 16),
            "4 hosts x 4 slots @ 25gbit (emulated 1.5625gbit, time x16)");
  EXPECT_EQ(cluster_label(cluster(1, 1, 1e9), 1), "1 host x 1 slot @ 1gbit");
  // Delay is time too: a 16 ms emulated delay at x16 stands for 1 ms.
  EXPECT_EQ(cluster_label(cluster(2, 1, 1e9, 0.016), 16),
            "2 hosts x 1 slot @ 16gbit, 1ms delay (emulated 1gbit, 16ms, time x16)");
  // Jumbo frames are part of the setup (cluster.sh up --mtu); 1500 goes unsaid.
  ClusterDescription jumbo = cluster(8, 1, 250e6);
  jumbo.mtu = 9000;
  EXPECT_EQ(cluster_label(jumbo, 40), "8 hosts x 1 slot @ 10gbit, MTU 9000 (emulated 250mbit, time x40)");
}

TEST(ClusterRecord, LinksThatFellShortOrWereNeverCheckedAreWarnedAbout) {
  ClusterDescription c = cluster(2, 1, 1e9);
  EXPECT_FALSE(link_warning(c).has_value());  // worst 0.95
  c.check->worst_ratio = 0.9;                 // exactly faithful
  EXPECT_FALSE(link_warning(c).has_value());
  c.check->worst_ratio = 0.83;
  EXPECT_EQ(link_warning(c), "links fell 17% short of the shaped rate in the last check");
  c.check.reset();
  ASSERT_TRUE(link_warning(c).has_value());
  EXPECT_NE(link_warning(c)->find("no link check was run"), std::string::npos);
}

TEST(ClusterRecord, TheObjectListsTheRanksOnEachHostAndReadsBackAsADescription) {
  const std::vector<std::string> hostnames = {"gs-h0", "gs-h1", "gs-h0", "gs-h1"};
  const auto j = cluster_json(cluster(3, 2, 1e9), hostnames, 4.0);
  EXPECT_EQ(j.at("hosts").at(0).at("ranks"), (std::vector<int>{0, 2}));
  EXPECT_EQ(j.at("hosts").at(1).at("ranks"), (std::vector<int>{1, 3}));
  EXPECT_TRUE(j.at("hosts").at(2).at("ranks").empty());
  EXPECT_EQ(j.at("rate"), "1gbit");
  EXPECT_EQ(j.at("represented_rate"), "4gbit");
  EXPECT_DOUBLE_EQ(j.at("represented_rate_bits_per_s").get<double>(), 4e9);
  EXPECT_TRUE(j.at("link_warning").is_null());
  EXPECT_DOUBLE_EQ(j.at("check").at("worst_ratio").get<double>(), 0.95);
  // The same reader reads cluster.json and the record's copy.
  const ClusterDescription back = cluster_from_json(j);
  EXPECT_EQ(back.hosts.size(), 3u);
  EXPECT_EQ(back.interface, "gs0");
  EXPECT_EQ(back.mtu, 1500);
  EXPECT_TRUE(back.check.has_value());
  // Without a time scale (collectives) no represented rate is written.
  EXPECT_FALSE(
      cluster_json(cluster(1, 1, 1e9), hostnames, std::nullopt).contains("represented_rate"));
}

TEST(ClusterRecord, TheSetupTellsTimeScalesAndClustersApart) {
  nlohmann::json record = new_record("train");
  EXPECT_EQ(setup_of(record), "");  // an old record: time scale 1, no cluster
  EXPECT_DOUBLE_EQ(time_scale_of(record), 1);
  record["time_scale"] = 2.0;
  EXPECT_EQ(setup_of(record), "time x2");
  record["time_scale"] = 16.0;
  record["cluster"] = cluster_json(cluster(4, 4, 1.5625e9), {}, 16.0);
  EXPECT_EQ(setup_of(record), "4 hosts x 4 slots @ 25gbit (emulated 1.5625gbit, time x16)");
  record["cluster"].erase("interface");
  EXPECT_THROW((void)setup_of(record), std::invalid_argument);
}

TEST(ClusterRecord, ATrainRecordCarriesTheTimeScaleTheRepresentedRateClusterAndWire) {
  TrainPlan plan;
  plan.strategy = &find_strategy("ring-mpi");
  plan.settings.model_options.compute = ComputeMode::emulated;
  plan.settings.model_options.profile = find_device_profile("v100");
  plan.settings.model_options.time_scale = 8;
  TrainSummary summary;
  summary.img_sec_mean = 10;
  summary.img_sec_conf = 1;
  RunContext context;
  context.hostnames = {"gs-h0", "gs-h1"};
  const auto plain = train_record(plan, {}, summary, 2, context, {});
  EXPECT_EQ(plain.at("time_scale"), 8.0);
  EXPECT_DOUBLE_EQ(plain.at("results").at("img_sec_mean").get<double>(), 10);  // measured, kept
  EXPECT_DOUBLE_EQ(plain.at("results").at("represented_img_sec_mean").get<double>(), 80);
  EXPECT_DOUBLE_EQ(plain.at("results").at("represented_img_sec_conf").get<double>(), 8);
  EXPECT_FALSE(plain.contains("cluster"));  // off a cluster nothing of it is written
  EXPECT_FALSE(plain.contains("wire"));

  const ClusterDescription c = cluster(2, 1, 1e9);
  const WireTruth wire{"step", 4, {{"gs-h0", {0}, LinkBytes{400, 800}, {300, 300}}}};
  const TrainOnCluster on{c, wire};
  const auto r = train_record(plan, {}, summary, 2, context, {}, &on);
  EXPECT_EQ(r.at("cluster").at("represented_rate"), "8gbit");
  EXPECT_EQ(r.at("cluster").at("hosts").at(1).at("ranks"), (std::vector<int>{1}));
  EXPECT_EQ(r.at("wire").at("unit"), "step");
  EXPECT_EQ(r.at("wire").at("hosts").at(0).at("link_rx_bytes"), 800);
  EXPECT_DOUBLE_EQ(r.at("wire").at("hosts").at(0).at("ratio").get<double>(), 2.0);
}

}  // namespace
}  // namespace gradsync
