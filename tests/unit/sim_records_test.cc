// What the cost model reads from records and writes as records: strategy
// options and placements read back from records, link rates as tc writes
// them, and simulated train records that report keeps apart from measured
// ones (each with its own baseline).
#include <gtest/gtest.h>

#include "harness/results/report_table.h"
#include "harness/results/sim_inputs.h"
#include "harness/results/sha256.h"
#include "harness/results/simulated_record.h"
#include "harness/results/size_parse.h"
#include "harness/results/strategy_options_json.h"
#include "harness/results/train_report.h"
#include "harness/results/train_runs.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

TEST(SimRecords, StrategyOptionsComeBackFromTheirJson) {
  StrategyOptions options;
  options.ring.segment_bytes = 64 << 10;
  options.ps.servers = 3;
  options.ps.placement = PsPlacement::dedicated;
  options.ps.partition_bytes = 1 << 20;
  const StrategyOptions back = strategy_options_from_json(to_json(options));
  EXPECT_EQ(back.ring.segment_bytes, 64u << 10);
  EXPECT_EQ(back.ps.servers, 3);
  EXPECT_EQ(back.ps.placement, PsPlacement::dedicated);
  EXPECT_EQ(back.ps.partition_bytes, 1u << 20);
  EXPECT_EQ(back.tree.segment_bytes, StrategyOptions{}.tree.segment_bytes);
  EXPECT_THROW(strategy_options_from_json({{"ps_placement", "sideways"}}), std::invalid_argument);
  EXPECT_THROW(strategy_options_from_json({{"ps_servers", "two"}}), std::invalid_argument);
}

TEST(SimRecords, LinkRatesAsTcWritesThem) {
  EXPECT_DOUBLE_EQ(parse_bit_rate("500mbit"), 500e6);
  EXPECT_DOUBLE_EQ(parse_bit_rate("25gbit"), 25e9);
  EXPECT_DOUBLE_EQ(parse_bit_rate("1.5625Gbit"), 1.5625e9);
  EXPECT_DOUBLE_EQ(parse_bit_rate("100kbit"), 100e3);
  EXPECT_DOUBLE_EQ(parse_bit_rate("1e9"), 1e9);
  for (const char* bad : {"", "fast", "10gbyte", "-1gbit", "0mbit", "gbit"})
    EXPECT_THROW(parse_bit_rate(bad), std::invalid_argument) << bad;
}

TEST(SimRecords, PlacementCountsWorkersPerHostAndServerOnlyHosts) {
  nlohmann::json collectives = {
      {"context", {{"hostnames", {"s0", "s1", "a", "a", "b", "b"}}}},
      {"placement", {{"worker_ranks", {2, 3, 4, 5}}, {"server_ranks", {0, 1}}}}};
  auto p = placement_of(collectives);
  EXPECT_EQ(p.workers, 4);
  EXPECT_EQ(p.workers_per_node, 2);
  EXPECT_EQ(p.server_hosts, 2);
  // A train record has no placement: dedicated shards are the first ranks.
  StrategyOptions options;
  options.ps.servers = 1;
  options.ps.placement = PsPlacement::dedicated;
  nlohmann::json train = {{"strategy", "ps-zmq"},
                          {"strategy_options", to_json(options)},
                          {"context", {{"hostnames", {"h0", "h1", "h2", "h3"}}}}};
  p = placement_of(train);
  EXPECT_EQ(p.workers, 3);
  EXPECT_EQ(p.workers_per_node, 1);
  EXPECT_EQ(p.server_hosts, 1);
}

TEST(SimRecords, SimulatedRecordsAreTrainRecordsReportKeepsApart) {
  sim::ClusterModel cluster;
  cluster.name = "made-up";
  cluster.inter.bandwidth_bits_per_s = {1e9, "assumed", ""};
  cluster.intra.bandwidth_bits_per_s = {1e10, "assumed", ""};
  cluster.reduce_bytes_per_s = {1e10, "assumed", ""};
  std::vector<StoredRecord> records;
  for (auto [strategy, n] : {std::pair{"none", 1}, {"ring-mpi", 4}}) {
    sim::SimulationCase c;
    c.model = "small-cnn";
    c.batch = 32;
    c.device_profile = "v100";
    c.flops_per_second = 1e12;
    c.strategy = &find_strategy(strategy);
    c.placement.workers = n;
    const auto r = sim::simulate(cluster, c);
    const std::vector<std::string> command = {"gradsync", "simulate"};
    const auto value = simulated_record({c, r, cluster, "c.json", "made-up (simulated)", nullptr},
                                        simulation_context(command));
    // The cluster by name, file and digest, not the description.
    const nlohmann::json& simulation = value.at("simulation");
    EXPECT_FALSE(simulation.contains("cluster"));
    EXPECT_EQ(simulation.at("cluster_file"), "c.json");
    EXPECT_EQ(simulation.at("cluster_sha256"), sha256_hex(sim::to_json(cluster).dump()));
    records.push_back(StoredRecord{"sim:" + std::to_string(records.size() + 1), value});
    const TrainRun run = read_train_run(records.back());
    EXPECT_TRUE(run.simulated);
    EXPECT_EQ(run.workload.setup, "made-up (simulated)");
    EXPECT_NEAR(run.img_sec_mean, r.img_sec_per_worker, 1e-9);
  }
  // A measured `none` of the same workload does not become the simulated baseline.
  auto measured = records.front();
  measured.value.erase("simulated");
  measured.value["results"]["img_sec_mean"] = 1.0;
  records.push_back(measured);
  const auto tables = training_report(records);
  const std::string text = to_markdown(tables.front());
  EXPECT_NE(text.find("ring-mpi (simulated)"), std::string::npos) << text;
  EXPECT_NE(text.find("none (simulated)"), std::string::npos) << text;
  EXPECT_EQ(text.find("n/a"), std::string::npos) << text;  // every row found its own baseline
}

}  // namespace
}  // namespace gradsync
