// The SimGrid platform written from a cluster file (harness/sim/
// smpi_platform.h), and the native engine's side of strategies/core/engine.h.
#include "harness/sim/smpi_platform.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sim_test_support.h"
#include "strategies/core/engine.h"

namespace gradsync::sim {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SmpiPlatform, OneSwitchHoldsEveryNodeWithItsWorkersAndLinks) {
  const ClusterModel cluster = made_up_gpu_cluster(128);
  const std::string xml = smpi_platform_xml(cluster, {}, 16);
  // 16 workers at 4 a node: 4 nodes, 4 cores each.
  EXPECT_TRUE(has(xml, R"(radical="0-3")")) << xml;
  EXPECT_TRUE(has(xml, R"(core="4")")) << xml;
  EXPECT_TRUE(has(xml, R"(bw="25000000000bps")")) << xml;
  // Up and down: half the latency each; a non-blocking switch, where each
  // flow crosses its two NICs and shares nothing else.
  EXPECT_TRUE(has(xml, R"(lat="1e-06s")")) << xml;
  EXPECT_FALSE(has(xml, "bb_bw")) << xml;  // a crossbar: no backbone to share
  EXPECT_TRUE(has(xml, R"(loopback_bw="100000000000bps" loopback_lat="1e-06s")")) << xml;
  EXPECT_TRUE(has(xml, R"(sharing_policy="SPLITDUPLEX")")) << xml;
  EXPECT_FALSE(has(xml, "FAT_TREE"));
}

TEST(SmpiPlatform, FatTreeLeavesUplinksAndQuarterLatency) {
  const ClusterModel cluster = made_up_gpu_cluster(128);
  SmpiTopology tree{.kind = "fat-tree", .hosts_per_leaf = 4, .oversubscription = 2};
  // 32 workers: 8 nodes, 2 leaves of 4, each with 4 / 2 = 2 uplinks.
  const std::string xml = smpi_platform_xml(cluster, tree, 32);
  EXPECT_TRUE(has(xml, R"(topology="FAT_TREE" topo_parameters="2;4,2;1,2;1,1")")) << xml;
  EXPECT_TRUE(has(xml, R"(lat="5e-07s")")) << xml;
  const auto described = smpi_platform_json(cluster, tree, 32);
  EXPECT_EQ(described["uplinks_per_leaf"], 2);
  EXPECT_EQ(described["nodes"], 8);
}

TEST(SmpiPlatform, HostfileFillsNodesInOrderAndTheLastPartly) {
  const ClusterModel cluster = made_up_gpu_cluster(128);
  EXPECT_EQ(smpi_hostfile(cluster, 10),
            "node-0\nnode-0\nnode-0\nnode-0\nnode-1\nnode-1\nnode-1\nnode-1\nnode-2\nnode-2\n");
  EXPECT_EQ(smpi_nodes(cluster, 10), 3);
  EXPECT_EQ(smpi_hostfile(cluster, 1), "node-0\n");
}

TEST(SmpiPlatform, NetworkFactorsComeFromTheFileNotSimGridsDefaults) {
  ClusterModel cluster = made_up_gpu_cluster(4);
  // No achieved rate stated: TCP/IPv4/Ethernet framing at the MTU.
  auto flags = smpi_network_flags(cluster, {.mtu = 1500});
  ASSERT_EQ(flags.size(), 3u);
  const double framing = (1500.0 - 52) / (1500 + 38);
  EXPECT_EQ(flags[0], "--cfg=smpi/bw-factor:0:" + fmt::format("{}", framing));
  EXPECT_EQ(flags[1], "--cfg=smpi/lat-factor:0:1");
  EXPECT_EQ(flags[2], "--cfg=smpi/os:0:5e-06:0");
  // Jumbo frames waste less.
  EXPECT_GT(smpi_platform_json(cluster, {.mtu = 9000}, 4)["bw_factor"].get<double>(), framing);
  // A stated achieved rate wins.
  cluster.mechanisms.achieved_fraction = {0.8, "measured", ""};
  flags = smpi_network_flags(cluster, {.mtu = 1500});
  EXPECT_EQ(flags[0], "--cfg=smpi/bw-factor:0:0.8");
  // A calibrated rate (gradsync calibrate) is what payload achieved: no
  // framing on top of it.
  cluster.mechanisms.achieved_fraction = {};
  cluster.inter.bandwidth_bits_per_s.source = "calibrated";
  EXPECT_EQ(smpi_network_flags(cluster, {.mtu = 1500})[0], "--cfg=smpi/bw-factor:0:1");
}

TEST(SmpiPlatform, TopologiesThatCannotBeBuiltAreRefusedNamingTheFlag) {
  const ClusterModel cluster = made_up_gpu_cluster(128);
  auto refused = [&](SmpiTopology topology, int workers, const std::string& words) {
    try {
      check_smpi_topology(cluster, topology, workers);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const std::invalid_argument& e) {
      EXPECT_TRUE(has(e.what(), words)) << e.what();
    }
  };
  refused({.kind = "torus"}, 16, "--topology 'torus'");
  refused({.kind = "fat-tree", .hosts_per_leaf = 3}, 16, "--hosts-per-leaf 3");  // 4 nodes
  refused({.kind = "fat-tree", .hosts_per_leaf = 4, .oversubscription = 3}, 16, "--oversubscription 3");
  refused({.kind = "fat-tree", .hosts_per_leaf = 4, .oversubscription = 0.5}, 16, "--oversubscription");
  refused({}, 0, "--workers");
  refused({.mtu = 100}, 4, "--mtu 100");
  EXPECT_NO_THROW(check_smpi_topology(cluster, {.kind = "fat-tree", .hosts_per_leaf = 2}, 16));
}

TEST(NativeEngine, RunsOnTheMachineAndRefusesSimulatedSettings) {
  EXPECT_EQ(engine_info().name, "native");
  EXPECT_FALSE(engine_info().simulated);
  EXPECT_TRUE(engine_sum(1 << 20));  // every sum is carried out
  EXPECT_THROW(set_simulated_data({.shared_buffers = true}), std::invalid_argument);
  EngineBuffer buffer(1 << 20);
  EXPECT_FALSE(buffer.shared());
  EXPECT_EQ(buffer.size(), 1u << 20);
  buffer.data()[(1 << 20) - 1] = std::byte{7};  // the whole buffer is this process's
  EngineBuffer moved = std::move(buffer);
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(moved.data()[(1 << 20) - 1], std::byte{7});
}

}  // namespace
}  // namespace gradsync::sim
