// `gradsync report --format json`: the strategy table's order and roles, and
// per train and collectives row every figure the plots draw, computed once.
#include "harness/results/report_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "strategies/registry.h"

namespace gradsync {
namespace {

const std::string kBaseline(strategy_with_role(StrategyRole::baseline));

StoredRecord train(const std::string& strategy, int workers, double per_worker,
                   bool simulated = false) {
  auto value = new_record("train");
  value["strategy"] = strategy;
  value["model"] = "small-cnn";
  value["compute"] = "cpu";
  value["batch_size"] = 32;
  value["correct"] = nullptr;
  value["results"] = {{"workers", workers},      {"img_sec_mean", per_worker},
                      {"img_sec_conf", 20.0},    {"exposed_comm_share", 0.5},
                      {"compute_s", 0.02},       {"allreduce_s", 0.004},
                      {"exposed_comm_s", 0.002}, {"step_mean_s", 0.023}};
  value["context"] = {{"hosts", {"node1"}}, {"timestamp", "2024-05-01T12:00:00Z"}};
  if (simulated) value["simulated"] = true;
  return {"f.jsonl:" + std::to_string(workers), value};
}

const nlohmann::json& row_of(const nlohmann::json& doc, const std::string& strategy, int workers,
                             bool simulated) {
  for (const auto& row : doc.at("train"))
    if (row.at("strategy") == strategy && row.at("workers") == workers &&
        row.at("simulated") == simulated)
      return row;
  throw std::runtime_error("no such row: " + strategy);
}

TEST(ReportJson, StrategiesInTableOrderWithTheirRolesThenUnknownNames) {
  const auto doc = report_json(std::vector<StoredRecord>{train("zz-new", 2, 1)});
  const auto table = strategy_table();
  const auto& strategies = doc.at("strategies");
  // The table (the cost model has no strategies of its own), the unknown name.
  ASSERT_EQ(strategies.size(), table.size() + 1);
  for (std::size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(strategies[i].at("name"), std::string(table[i].name));
    EXPECT_EQ(strategies[i].at("index"), i);
    EXPECT_EQ(strategies[i].at("in_table"), true);
  }
  int baselines = 0;
  for (const auto& s : strategies)
    if (s.at("role") == "baseline") {
      EXPECT_EQ(s.at("name"), kBaseline);
      ++baselines;
    }
  EXPECT_EQ(baselines, 1);
  EXPECT_EQ(strategies.back().at("name"), "zz-new");
  EXPECT_EQ(strategies.back().at("in_table"), false);
  EXPECT_EQ(doc.at("schema"), "gradsync.report");
}

TEST(ReportJson, TrainRowsCarryThroughputEfficiencyAndBreakdown) {
  const std::vector<StoredRecord> records = {train(kBaseline, 1, 1000), train("ring-mpi", 2, 900)};
  const auto doc = report_json(records);
  const auto& row = row_of(doc, "ring-mpi", 2, false);
  EXPECT_DOUBLE_EQ(row.at("img_sec").at("mean").get<double>(), 1800);
  EXPECT_DOUBLE_EQ(row.at("img_sec").at("conf").get<double>(), 40);
  EXPECT_DOUBLE_EQ(row.at("efficiency").at("value").get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(row.at("efficiency").at("conf").get<double>(), 0.02);
  EXPECT_EQ(row.at("baseline"), "measured");
  EXPECT_DOUBLE_EQ(row.at("breakdown").at("allreduce_s").get<double>(), 0.004);
  EXPECT_EQ(row.at("hosts"), nlohmann::json({"node1"}));
  EXPECT_EQ(row.at("origin"), "f.jsonl:2");
  EXPECT_EQ(row.at("failed"), false);
}

TEST(ReportJson, EmulatedComputeNamesItsProfileOrForcedWhenARateStoodInForIt) {
  auto on_profile = train(kBaseline, 1, 1000);
  on_profile.value["compute"] = "emulated";
  on_profile.value["device_profile"] = {{"name", "v100"}, {"emulate_img_per_sec", 0.0}};
  auto at_rate = train("ring-mpi", 2, 900);
  at_rate.value["compute"] = "emulated";
  at_rate.value["device_profile"] = {{"name", "v100"}, {"emulate_img_per_sec", 130.0}};
  const std::vector<StoredRecord> records = {on_profile, at_rate, train("tree-mpi", 2, 900)};
  const auto doc = report_json(records);
  EXPECT_EQ(row_of(doc, kBaseline, 1, false).at("device_profile"), "v100");
  EXPECT_EQ(row_of(doc, "ring-mpi", 2, false).at("device_profile"), "forced");
  EXPECT_TRUE(row_of(doc, "tree-mpi", 2, false).at("device_profile").is_null());
}

TEST(ReportJson, ClusterRunsCarryTheirSetupRepresentedThroughputAndWire) {
  auto base = train(kBaseline, 1, 250);
  auto ring = train("ring-mpi", 2, 200);
  for (auto* r : {&base, &ring}) {
    r->value["time_scale"] = 4.0;
    r->value["cluster"] = nlohmann::json::parse(R"({"subnet": "198.18.0.0/24", "bridge": "gsbr0",
      "interface": "gs0", "slots": 1, "rate": "1gbit", "rate_bits_per_s": 1e9, "delay": "0ms",
      "delay_s": 0, "hosts": [{"name": "gs-h0", "address": "198.18.0.1", "slots": 1},
      {"name": "gs-h1", "address": "198.18.0.2", "slots": 1}], "check": null})");
  }
  ring.value["wire"] = {{"unit", "step"},
                        {"timed", 4},
                        {"hosts",
                         {{{"host", "gs-h0"},
                           {"ranks", {0}},
                           {"link_tx_bytes", 440},
                           {"link_rx_bytes", 440},
                           {"counted_sent_bytes", 400},
                           {"counted_received_bytes", 400},
                           {"ratio", 1.1}}}}};
  const auto doc = report_json(std::vector<StoredRecord>{base, ring});
  const auto& row = row_of(doc, "ring-mpi", 2, false);
  const std::string setup = "2 hosts x 1 slot @ 4gbit (emulated 1gbit, time x4)";
  EXPECT_EQ(row.at("setup"), setup);
  EXPECT_EQ(row.at("cluster").at("label"), setup);
  EXPECT_EQ(row.at("time_scale"), 4.0);
  EXPECT_DOUBLE_EQ(row.at("img_sec").at("mean").get<double>(), 1600);  // represented
  EXPECT_DOUBLE_EQ(row.at("measured_img_sec").at("mean").get<double>(), 400);
  EXPECT_DOUBLE_EQ(row.at("efficiency").at("value").get<double>(), 0.8);
  EXPECT_EQ(row.at("wire").at("hosts").at(0).at("link_tx_bytes"), 440);
  EXPECT_TRUE(row_of(doc, kBaseline, 1, false).at("wire").is_null());
  // Off a cluster at time scale 1: no setup, and img_sec is what was measured.
  const auto plain = report_json(std::vector<StoredRecord>{train("ring-mpi", 2, 900)});
  EXPECT_EQ(row_of(plain, "ring-mpi", 2, false).at("setup"), "");
  EXPECT_TRUE(row_of(plain, "ring-mpi", 2, false).at("cluster").is_null());
}

TEST(ReportJson, WithoutABaselineEfficiencyIsNullAndSimulatedRowsBorrowTheMeasuredOne) {
  auto no_breakdown = train("ring-mpi", 2, 900);
  no_breakdown.value["results"].erase("compute_s");
  const std::vector<StoredRecord> records = {no_breakdown, train("ring-mpi", 4, 800, true)};
  const auto lonely = report_json(records);
  EXPECT_TRUE(row_of(lonely, "ring-mpi", 2, false).at("efficiency").is_null());
  EXPECT_TRUE(row_of(lonely, "ring-mpi", 2, false).at("baseline").is_null());
  EXPECT_TRUE(row_of(lonely, "ring-mpi", 2, false).at("breakdown").is_null());

  std::vector<StoredRecord> with_base = records;
  with_base.push_back(train(kBaseline, 1, 1000));
  const auto doc = report_json(with_base);
  const auto& sim = row_of(doc, "ring-mpi", 4, true);
  EXPECT_EQ(sim.at("baseline"), "measured");
  EXPECT_DOUBLE_EQ(sim.at("efficiency").at("value").get<double>(), 0.8);
}

TEST(ReportJson, CollectivesRowsLaterWinsAndWrongRowsFail) {
  auto first = new_record("collectives");
  first["strategy"] = "ring-mpi";
  first["workers"] = 2;
  first["correct"] = true;
  first["rows"] = {{{"size_bytes", 4},
                    {"count", 1},
                    {"time_us", 5.0},
                    {"algbw_gbps", 1.0},
                    {"busbw_gbps", 1.0},
                    {"wrong", 0}},
                   {{"size_bytes", 8},
                    {"count", 2},
                    {"time_us", 6.0},
                    {"algbw_gbps", 2.0},
                    {"busbw_gbps", 2.0},
                    {"wrong", 0}}};
  auto second = first;
  second["rows"] = {{{"size_bytes", 8},
                     {"count", 2},
                     {"time_us", 7.0},
                     {"algbw_gbps", 3.0},
                     {"busbw_gbps", 3.0},
                     {"wrong", 2}}};
  const std::vector<StoredRecord> records = {{"c.jsonl:1", first}, {"c.jsonl:2", second}};
  const auto doc = report_json(records);
  ASSERT_EQ(doc.at("collectives").size(), 1u);
  const auto& rows = doc.at("collectives")[0].at("rows");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("failed"), false);
  EXPECT_DOUBLE_EQ(rows[1].at("busbw_gbps").get<double>(), 3.0);
  EXPECT_EQ(rows[1].at("failed"), true);
  EXPECT_EQ(rows[1].at("origin"), "c.jsonl:2");
  EXPECT_TRUE(doc.at("train").empty());
}

}  // namespace
}  // namespace gradsync
