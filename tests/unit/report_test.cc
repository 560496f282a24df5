// `gradsync report`: one row per size, one column per (workers, strategy),
// gaps shown as "-", later records replacing earlier ones, incomplete
// records named by file and line, and bad lines in the files skipped with a
// warning each (or refused, --strict).
#include "harness/results/collectives_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/cli/report_command.h"

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

// A results file holding `lines`, removed at the end of the test.
class ResultsFile {
 public:
  explicit ResultsFile(const std::vector<std::string>& lines)
      : path_(std::filesystem::temp_directory_path() /
              ("gradsync_report_test_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".jsonl")) {
    std::ofstream out(path_);
    for (const auto& line : lines) out << line << "\n";
  }
  ~ResultsFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

struct ReportRun {
  std::string out, warnings;
};

ReportRun report_of(const ResultsFile& file, bool strict = false) {
  ReportOptions options;
  options.files = {file.path()};
  options.strict = strict;
  std::ostringstream out, warnings;
  run_report(options, out, warnings);
  return {out.str(), warnings.str()};
}

TEST(Report, ABadLineIsSkippedWithAWarningAndTheRestIsReported) {
  const ResultsFile file({collectives("ring-mpi", 2, {{4, 0.01}}, 1).value.dump(), "{\"rows\": [",
                          collectives("mpi-allreduce", 2, {{4, 0.02}}, 3).value.dump()});
  const ReportRun run = report_of(file);
  EXPECT_NE(run.out.find("| size (B) | n=2 ring-mpi | n=2 mpi-allreduce |"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("| 4 | 0.01 | 0.02 |"), std::string::npos) << run.out;
  const std::string first = "gradsync: warning: " + file.path() + ":2: not valid JSON (";
  EXPECT_EQ(run.warnings.rfind(first, 0), 0u) << run.warnings;
  const std::string last = ")\ngradsync: warning: skipped 1 bad line(s) of 3\n";
  ASSERT_GE(run.warnings.size(), last.size());
  EXPECT_EQ(run.warnings.substr(run.warnings.size() - last.size()), last) << run.warnings;
  EXPECT_EQ(std::count(run.warnings.begin(), run.warnings.end(), '\n'), 2);
}

TEST(Report, StrictRefusesTheFileAtItsFirstBadLine) {
  const ResultsFile file({collectives("ring-mpi", 2, {{4, 0.01}}, 1).value.dump(), "[1, 2]"});
  try {
    report_of(file, /*strict=*/true);
    FAIL() << "--strict reported a file with a bad line";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), file.path() +
                                         ":2: not a gradsync result record (expected \"schema\": "
                                         "\"gradsync.result\")");
  }
}

TEST(Report, WithNoGoodRecordLeftTheFirstBadLineIsTheError) {
  const ResultsFile file({"oops", "", "[1]"});
  ReportOptions options;
  options.files = {file.path()};
  std::ostringstream out, warnings;
  try {
    run_report(options, out, warnings);
    FAIL() << "reported a file of bad lines only";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(file.path() + ":1: not valid JSON (", 0), 0u) << message;
    EXPECT_NE(message.find(" (and 1 more bad line(s); no good record)"), std::string::npos)
        << message;
  }
  EXPECT_EQ(warnings.str(), "");
  EXPECT_EQ(out.str(), "");
}

TEST(Report, AFileWithoutBadLinesGivesNoWarning) {
  const ResultsFile file({collectives("ring-mpi", 2, {{4, 0.01}}, 1).value.dump()});
  EXPECT_EQ(report_of(file).warnings, "");
}

}  // namespace
}  // namespace gradsync
