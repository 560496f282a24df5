// `gradsync report`: one row per size, one column per (workers, strategy),
// gaps shown as "-", later records replacing earlier ones, and incomplete
// records named by file and line.
#include "harness/results/collectives_report.h"

#include <gtest/gtest.h>

namespace gradsync {
namespace {

StoredRecord collectives(const std::string& strategy, int workers,
                         std::vector<std::pair<std::uint64_t, double>> busbw_by_size, int line) {
  auto value = new_record("collectives");
  value["strategy"] = strategy;
  value["workers"] = workers;
  value["rows"] = nlohmann::json::array();
  for (const auto& [size, busbw] : busbw_by_size)
    value["rows"].push_back({{"size_bytes", size},
                             {"count", size / 4},
                             {"time_us", 10.0 * size},
                             {"algbw_gbps", busbw / 2},
                             {"busbw_gbps", busbw},
                             {"wrong", 0}});
  return {"fixture.jsonl:" + std::to_string(line), value};
}

std::vector<StoredRecord> fixture() {
  return {
      collectives("ring-mpi", 2, {{4, 0.01}, {1024, 1.5}}, 1),
      collectives("mpi-allreduce", 2, {{4, 0.02}, {1024, 1.25}}, 2),
      {"fixture.jsonl:3", new_record("train")},      // not a collectives record: skipped
      collectives("ring-mpi", 4, {{1024, 2.0}}, 4),  // no 4-byte row: a gap
      // and mpi-allreduce never ran with 4 workers: no such column
  };
}

TEST(Report, OneRowPerSizeAndStrategiesSideBySideAtEachWorkerCount) {
  const ReportTable table = collectives_report(fixture(), "busbw");
  EXPECT_EQ(table.header, (std::vector<std::string>{"size (B)", "n=2 ring-mpi",
                                                    "n=2 mpi-allreduce", "n=4 ring-mpi"}));
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0], (std::vector<std::string>{"4", "0.01", "0.02", "-"}));
  EXPECT_EQ(table.rows[1], (std::vector<std::string>{"1024", "1.50", "1.25", "2.00"}));
}

TEST(Report, BusBandwidthLeavesOutSingleWorkerColumnsThatOtherMetricsKeep) {
  auto records = fixture();
  records.push_back(collectives("ring-mpi", 1, {{4, 0.0}, {1024, 0.0}}, 5));
  EXPECT_EQ(collectives_report(records, "busbw").header.size(), 4u);
  const ReportTable time = collectives_report(records, "time");
  ASSERT_EQ(time.header.size(), 5u);
  EXPECT_EQ(time.header[1], "n=1 ring-mpi");
  // With nothing but single-worker records, busbw still shows them.
  EXPECT_EQ(collectives_report(std::vector<StoredRecord>{records.back()}, "busbw").header.size(), 2u);
}

TEST(Report, TheMetricChoosesTheCells) {
  EXPECT_EQ(collectives_report(fixture(), "algbw").rows[1][1], "0.75");
  EXPECT_EQ(collectives_report(fixture(), "time").rows[1][1], "10240");
  EXPECT_THROW(collectives_report(fixture(), "latency"), std::invalid_argument);
}

TEST(Report, ALaterRecordReplacesAnEarlierOneAndWrongRowsAreMarked) {
  auto records = fixture();
  auto rerun = collectives("ring-mpi", 2, {{4, 0.03}}, 5);
  rerun.value["rows"][0]["wrong"] = 3;
  records.push_back(rerun);
  const ReportTable table = collectives_report(records, "busbw");
  EXPECT_EQ(table.rows[0][1], "0.03 (wrong)");
  EXPECT_EQ(table.rows[1][1], "1.50");
}

TEST(Report, MarkdownAndCsvShowTheSameTable) {
  ReportTable table{"busbw (GB/s)", {"size (B)", "a n=2"}, {{"4", "0.01"}, {"8", "-"}}};
  EXPECT_EQ(to_markdown(table),
            "busbw (GB/s)\n\n| size (B) | a n=2 |\n|---:|---:|\n| 4 | 0.01 |\n| 8 | - |\n");
  EXPECT_EQ(to_csv(table), "size (B),a n=2\n4,0.01\n8,-\n");
}

TEST(Report, AnIncompleteRecordIsNamedByFileAndLine) {
  auto records = fixture();
  auto broken = collectives("tree-mpi", 2, {{4, 1.0}}, 7);
  broken.value["rows"][0].erase("busbw_gbps");
  records.push_back(broken);
  try {
    collectives_report(records, "busbw");
    FAIL() << "accepted a row without busbw_gbps";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("fixture.jsonl:7: incomplete collectives record"),
              std::string::npos)
        << e.what();
  }
}

TEST(Report, NoCollectivesRecordsIsAnError) {
  const std::vector<StoredRecord> none = {{"f:1", new_record("train")}};
  EXPECT_THROW(collectives_report(none, "busbw"), std::runtime_error);
  EXPECT_THROW(collectives_report({}, "busbw"), std::runtime_error);
}

}  // namespace
}  // namespace gradsync
