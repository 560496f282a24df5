// What `gradsync report` keeps of a stream of records: the tables and the
// JSON document of the whole-vector functions over the same records, a run
// per configuration however often it recurs, an error a record meets kept
// until the part that reads it, and a bound on what is held.
#include "harness/results/report_records.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/results/collectives_report.h"
#include "harness/results/latest_by_key.h"
#include "harness/results/report_json.h"
#include "harness/results/train_report.h"
#include "harness/results/wire_report.h"
#include "tests/unit/train_record_support.h"

namespace gradsync {
namespace {

// A measured run (simulated: a projection) read from line `line` of f.jsonl.
StoredRecord train(const std::string& strategy, int workers, double per_worker, int line,
                   bool simulated = false) {
  StoredRecord record = small_cnn_train(strategy, workers, per_worker);
  record.origin = "f.jsonl:" + std::to_string(line);
  if (simulated) record.value["simulated"] = true;
  return record;
}

StoredRecord collectives(const std::string& strategy, int workers,
                         std::vector<std::pair<std::uint64_t, double>> time_by_size, int line) {
  auto value = new_record("collectives");
  value["strategy"] = strategy;
  value["workers"] = workers;
  value["rows"] = nlohmann::json::array();
  for (const auto& [size, time_us] : time_by_size)
    value["rows"].push_back({{"size_bytes", size},
                             {"count", size / 4},
                             {"time_us", time_us},
                             {"algbw_gbps", size / time_us / 1e3},
                             {"busbw_gbps", size / time_us / 1e3},
                             {"wrong", 0}});
  return {"f.jsonl:" + std::to_string(line), value};
}

// Measured and simulated runs, one configuration measured twice (the later
// counts), collectives columns whose sizes come from several records.
std::vector<StoredRecord> mixed() {
  return {train("none", 1, 100, 1),
          train("ring-mpi", 2, 90, 2),
          collectives("ring-mpi", 2, {{1024, 10}, {4096, 30}}, 3),
          train("ring-mpi", 2, 95, 4),
          train("none", 1, 100, 5, true),
          train("ring-mpi", 4, 80, 6, true),
          collectives("ring-mpi", 2, {{4096, 25}, {65536, 300}}, 7),
          collectives("tree-mpi", 4, {{1024, 12}}, 8)};
}

ReportRecords folded(const std::vector<StoredRecord>& records, int times = 1) {
  ReportRecords kept;
  for (int i = 0; i < times; ++i)
    for (const auto& record : records) kept.add(record);
  return kept;
}

std::string markdown(const std::vector<ReportTable>& tables) {
  std::string text;
  for (const auto& table : tables) text += to_markdown(table) + "\n";
  return text;
}

TEST(LatestByKey, ALaterValueTakesTheFirstPlaceOfItsKey) {
  LatestByKey<std::string, int> latest;
  latest.put("a", 1);
  latest.put("b", 2);
  latest.put("a", 3);
  EXPECT_EQ(latest.values(), (std::vector<int>{3, 2}));
}

TEST(LatestTrainRuns, KeepsTheLaterRunOfAConfigurationWhole) {
  LatestTrainRuns latest;
  latest.add(read_train_run(train("ring-mpi", 2, 90, 1)));
  latest.add(read_train_run(train("none", 1, 100, 2)));
  latest.add(read_train_run(train("ring-mpi", 2, 95, 3)));
  ASSERT_EQ(latest.runs().size(), 2u);
  const TrainRun& ring = latest.runs().front();
  EXPECT_EQ(ring.img_sec_mean, 95);
  EXPECT_EQ(ring.strategy, "ring-mpi");
  EXPECT_EQ(ring.workload.model, "small-cnn");
  EXPECT_EQ(ring.record->origin, "f.jsonl:3");
}

TEST(ReportRecords, TablesAndDocumentAreTheWholeVectorFunctions) {
  const auto records = mixed();
  const ReportRecords kept = folded(records);
  std::vector<ReportTable> expected = training_report(records);
  expected.push_back(collectives_report(records, "time"));
  ASSERT_FALSE(wire_report(records));  // no record here has wire truth
  EXPECT_EQ(markdown(kept.tables("time")), markdown(expected));
  EXPECT_EQ(kept.json(), report_json(records));
  // The later record of a configuration counts: ring-mpi n=2 at 95 per worker.
  EXPECT_NE(markdown(kept.tables("time")).find("190.0 +-0.0"), std::string::npos);
  // Sizes of one column from two records, the later 4096 B row counting.
  const std::string table = to_markdown(kept.tables("time").back());
  EXPECT_NE(table.find("| 65536 "), std::string::npos) << table;
  EXPECT_NE(table.find("| 4096 | 25.00 |"), std::string::npos) << table;
  EXPECT_EQ(table.find("30.00"), std::string::npos) << table;
}

TEST(ReportRecords, NoTrainRecordsStillGiveTheCollectivesTableAndNoneAnError) {
  EXPECT_EQ(folded({collectives("ring-mpi", 2, {{1024, 10}}, 1)}).tables("busbw").size(), 1u);
  try {
    folded({}).tables("busbw");
    FAIL() << "a report of nothing";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "no collectives or train records to report");
  }
  EXPECT_EQ(folded({}).json().at("train"), nlohmann::json::array());
}

TEST(ReportRecords, WhatIsHeldIsPerConfigurationNotPerRecord) {
  const auto records = mixed();
  const ReportRecords once = folded(records), often = folded(records, 500);
  // 2 measured + 2 simulated runs, 4 collectives figures (3 sizes + 1).
  EXPECT_EQ(once.held(), 8u);
  EXPECT_EQ(often.held(), once.held());
  EXPECT_EQ(markdown(often.tables("busbw")), markdown(once.tables("busbw")));
}

TEST(ReportRecords, AnIncompleteRecordIsThrownWhereItsPartIsRead) {
  StoredRecord broken = train("ring-mpi", 2, 90, 3);
  broken.value["results"].erase("img_sec_mean");
  ReportRecords kept;
  for (const auto& record : {train("none", 1, 100, 1), collectives("ring-mpi", 2, {{8, 1}}, 2),
                             broken, train("ring-mpi", 4, 80, 4)})
    EXPECT_NO_THROW(kept.add(record));  // kept, not thrown, while the lines are read
  for (const auto& read : {std::function<void()>([&] { kept.tables("busbw"); }),
                           std::function<void()>([&] { kept.json(); })}) {
    try {
      read();
      FAIL() << "an incomplete train record was reported";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("f.jsonl:3: incomplete train record (", 0), 0u)
          << e.what();
    }
  }
}

TEST(ReportRecords, PastTheBoundTheRecordThatWentOverIsNamed) {
  ReportRecords kept(3);
  kept.add(train("none", 1, 100, 1));
  kept.add(train("ring-mpi", 2, 90, 2));
  kept.add(train("ring-mpi", 2, 91, 3));  // the same configuration: nothing more held
  kept.add(collectives("ring-mpi", 2, {{1024, 10}}, 4));
  try {
    kept.add(collectives("ring-mpi", 2, {{4096, 10}}, 5));
    FAIL() << "held past the bound";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "f.jsonl:5: more than 3 distinct configurations to report (train runs and "
              "collectives sizes): too many for one report; report fewer files at once");
  }
}

}  // namespace
}  // namespace gradsync
