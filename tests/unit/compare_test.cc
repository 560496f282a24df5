// `gradsync compare`: ratios to the reference strategy of the same run, a
// regression when NEW < BASE x (1 - tolerance), correctness failures, rows
// missing from NEW, and "nothing in common" as an error.
#include "harness/results/compare.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gradsync {
namespace {

StoredRecord train(const std::string& strategy, int workers, double total_img_sec,
                   nlohmann::json correct = true, const std::string& model = "small-cnn") {
  auto value = new_record("train");
  value["strategy"] = strategy;
  value["model"] = model;
  value["compute"] = "emulated";
  value["batch_size"] = 8;
  value["correct"] = correct;
  // batch 8 x workers images per step.
  value["results"] = {{"workers", workers}, {"step_median_s", 8.0 * workers / total_img_sec}};
  return {"fixture.jsonl:" + strategy + std::to_string(workers), value};
}

// A run: `none` at 100 img/sec at n=1 and 180 at n=2; ring-mpi and ps-zmq
// at the given fractions of it.
std::vector<StoredRecord> run(double ring, double ps, double speed = 1.0) {
  return {train("none", 1, 100 * speed, nullptr),      train("none", 2, 180 * speed, nullptr),
          train("ring-mpi", 1, 100 * ring * speed),     train("ring-mpi", 2, 180 * ring * speed),
          train("ps-zmq", 1, 100 * ps * speed),         train("ps-zmq", 2, 180 * ps * speed)};
}

const Comparison& row(const CompareOutcome& outcome, const std::string& strategy, int workers) {
  const auto it = std::find_if(outcome.rows.begin(), outcome.rows.end(), [&](const auto& r) {
    return r.key.strategy == strategy && r.key.workers == workers;
  });
  if (it == outcome.rows.end()) throw std::runtime_error("no row " + strategy);
  return *it;
}

TEST(Compare, AnUnchangedRunPassesEvenOnASlowerMachine) {
  // NEW ran on a machine half as fast: every absolute figure halved, the
  // ratios stayed, and that is what compare judges.
  const auto outcome = compare_records(run(0.8, 0.6), run(0.8, 0.6, 0.5), {});
  EXPECT_TRUE(outcome.passed());
  ASSERT_EQ(outcome.rows.size(), 4u);  // ring-mpi and ps-zmq at n=1 and 2; `none` is the reference
  EXPECT_NEAR(*row(outcome, "ring-mpi", 2).base, 0.8, 1e-12);
  EXPECT_NEAR(*row(outcome, "ring-mpi", 2).fresh, 0.8, 1e-12);
  EXPECT_EQ(row(outcome, "ps-zmq", 1).verdict, Verdict::ok);
  EXPECT_NE(verdict_line(outcome, {}).find("PASS"), std::string::npos);
}

TEST(Compare, ARatioDropBeyondTheToleranceFailsNamingItsRow) {
  auto fresh = run(0.8, 0.6);
  fresh[3] = train("ring-mpi", 2, 180 * 0.8 * 0.85);  // ring-mpi at n=2: -15%
  const auto outcome = compare_records(run(0.8, 0.6), fresh, {});
  EXPECT_FALSE(outcome.passed());
  EXPECT_EQ(row(outcome, "ring-mpi", 2).verdict, Verdict::regressed);
  EXPECT_EQ(row(outcome, "ring-mpi", 1).verdict, Verdict::ok);
  EXPECT_EQ(row(outcome, "ps-zmq", 2).verdict, Verdict::ok);
  const std::string line = verdict_line(outcome, {});
  EXPECT_NE(line.find("FAIL"), std::string::npos) << line;
  EXPECT_NE(line.find("small-cnn emulated b8 ring-mpi n=2 regressed 15.0%"), std::string::npos) << line;
  const ReportTable table = comparison_table(outcome, {});
  const auto regressed = std::find_if(table.rows.begin(), table.rows.end(),
                                      [](const auto& r) { return r.back() == "REGRESSED"; });
  ASSERT_NE(regressed, table.rows.end());
  EXPECT_EQ(*regressed, (std::vector<std::string>{"small-cnn emulated b8", "ring-mpi", "2", "0.800",
                                                  "0.680", "-15.0%", "REGRESSED"}));
}

TEST(Compare, ARatioDropWithinTheTolerancePasses) {
  auto fresh = run(0.8, 0.6);
  fresh[3] = train("ring-mpi", 2, 180 * 0.8 * 0.95);  // -5%: noise at 10% tolerance
  EXPECT_TRUE(compare_records(run(0.8, 0.6), fresh, {}).passed());
  CompareOptions strict;
  strict.tolerance = 0.02;  // the same drop at 2% is a regression
  EXPECT_EQ(row(compare_records(run(0.8, 0.6), fresh, strict), "ring-mpi", 2).verdict,
            Verdict::regressed);
}

TEST(Compare, AFasterStrategyIsNotARegression) {
  EXPECT_TRUE(compare_records(run(0.8, 0.6), run(0.95, 0.9), {}).passed());
}

TEST(Compare, ACorrectnessFailureFailsEvenWhenTheRatioHolds) {
  auto fresh = run(0.8, 0.6);
  fresh[5] = train("ps-zmq", 2, 180 * 0.6, false);
  const auto outcome = compare_records(run(0.8, 0.6), fresh, {});
  EXPECT_FALSE(outcome.passed());
  EXPECT_EQ(row(outcome, "ps-zmq", 2).verdict, Verdict::failed_check);
  ASSERT_EQ(outcome.failed_checks.size(), 1u);
  EXPECT_NE(outcome.failed_checks[0].find("ps-zmq n=2"), std::string::npos);
}

TEST(Compare, ARowThatNewLacksFailsAndARowOnlyInNewIsNotJudged) {
  auto fresh = run(0.8, 0.6);
  fresh.erase(fresh.begin() + 5);  // ps-zmq n=2 did not run
  auto outcome = compare_records(run(0.8, 0.6), fresh, {});
  EXPECT_FALSE(outcome.passed());
  EXPECT_EQ(row(outcome, "ps-zmq", 2).verdict, Verdict::missing);

  auto base = run(0.8, 0.6);
  base.erase(base.begin() + 5);
  outcome = compare_records(base, run(0.8, 0.6), {});
  EXPECT_TRUE(outcome.passed());
  EXPECT_EQ(row(outcome, "ps-zmq", 2).verdict, Verdict::added);
}

TEST(Compare, TheLaterOfTwoRecordsOfTheSameRunCounts) {
  auto fresh = run(0.8, 0.6);
  fresh.push_back(train("ring-mpi", 2, 180 * 0.4));
  EXPECT_EQ(row(compare_records(run(0.8, 0.6), fresh, {}), "ring-mpi", 2).verdict, Verdict::regressed);
}

TEST(Compare, AsynchronousPsRunsAreRowsOfTheirOwn) {
  // ps-zmq with --ps-mode async neither replaces the synchronous ps-zmq row
  // nor is judged against it.
  auto async_ps = [](double total) {
    StoredRecord r = train("ps-zmq", 2, total);
    r.value["strategy_options"] = {{"ps_mode", "async"}};
    return r;
  };
  auto base = run(0.8, 0.6);
  base.push_back(async_ps(180 * 0.9));
  auto fresh = run(0.8, 0.6);
  fresh.push_back(async_ps(180 * 0.5));
  const auto outcome = compare_records(base, fresh, {});
  EXPECT_EQ(row(outcome, "ps-zmq", 2).verdict, Verdict::ok);
  EXPECT_NEAR(*row(outcome, "ps-zmq", 2).fresh, 0.6, 1e-12);
  EXPECT_EQ(row(outcome, "ps-zmq async", 2).verdict, Verdict::regressed);
}

TEST(Compare, AnotherReferenceStrategyWhenAsked) {
  std::vector<StoredRecord> base = {train("mpi-allreduce", 2, 100), train("ring-mpi", 2, 90)};
  std::vector<StoredRecord> fresh = {train("mpi-allreduce", 2, 100), train("ring-mpi", 2, 70)};
  EXPECT_THROW(compare_records(base, fresh, {}), std::runtime_error);  // no `none`
  CompareOptions options;
  options.reference = "mpi-allreduce";
  const auto outcome = compare_records(base, fresh, options);
  EXPECT_NEAR(*row(outcome, "ring-mpi", 2).base, 0.9, 1e-12);
  EXPECT_EQ(row(outcome, "ring-mpi", 2).verdict, Verdict::regressed);
}

TEST(Compare, NothingInCommonIsAnError) {
  // Different models: no ratio on both sides.
  std::vector<StoredRecord> other = {train("none", 2, 100, nullptr, "resnet50"),
                                     train("ring-mpi", 2, 80, true, "resnet50")};
  EXPECT_THROW(compare_records(run(0.8, 0.6), other, {}), std::runtime_error);
  EXPECT_THROW(compare_records(run(0.8, 0.6), {}, {}), std::runtime_error);
}

TEST(Compare, AnIncompleteRecordIsNamed) {
  auto fresh = run(0.8, 0.6);
  fresh[2].value["results"].erase("step_median_s");
  try {
    compare_records(run(0.8, 0.6), fresh, {});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("fixture.jsonl:ring-mpi1: incomplete train record"),
              std::string::npos)
        << e.what();
  }
}

StoredRecord collectives(const std::string& strategy, int workers,
                         std::vector<std::pair<std::uint64_t, double>> time_by_size,
                         bool correct = true) {
  auto value = new_record("collectives");
  value["strategy"] = strategy;
  value["workers"] = workers;
  value["correct"] = correct;
  value["rows"] = nlohmann::json::array();
  for (const auto& [size, time] : time_by_size)
    value["rows"].push_back({{"size_bytes", size}, {"time_us", time}});
  return {"fixture.jsonl:" + strategy, value};
}

constexpr std::uint64_t MiB = 1 << 20;

TEST(Compare, CollectivesRatiosAreTheMedianOverSizesFromTheFloorUp) {
  // Against mpi-allreduce's time: ratios 0.5 (1 MiB), 0.8 (4 MiB), 0.9 (16 MiB):
  // median 0.8; the 4 KiB size (ratio 10) is below the floor and ignored.
  const std::vector<StoredRecord> base = {
      collectives("mpi-allreduce", 2, {{4096, 100}, {MiB, 100}, {4 * MiB, 400}, {16 * MiB, 900}}),
      collectives("ring-mpi", 2, {{4096, 10}, {MiB, 200}, {4 * MiB, 500}, {16 * MiB, 1000}})};
  auto outcome = compare_records(base, base, {});
  EXPECT_TRUE(outcome.passed());
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_EQ(outcome.rows[0].key.workload, "allreduce >= 1 MiB");
  EXPECT_NEAR(*outcome.rows[0].base, 0.8, 1e-12);

  // ring-mpi twice as slow at every size: the median halves.
  const std::vector<StoredRecord> slower = {
      base[0], collectives("ring-mpi", 2, {{4096, 10}, {MiB, 400}, {4 * MiB, 1000}, {16 * MiB, 2000}})};
  outcome = compare_records(base, slower, {});
  EXPECT_FALSE(outcome.passed());
  EXPECT_EQ(row(outcome, "ring-mpi", 2).verdict, Verdict::regressed);
  EXPECT_NEAR(*row(outcome, "ring-mpi", 2).fresh, 0.4, 1e-12);

  // Wrong elements fail the comparison.
  const std::vector<StoredRecord> wrong = {
      base[0], collectives("ring-mpi", 2, {{MiB, 200}, {4 * MiB, 500}, {16 * MiB, 1000}}, false)};
  outcome = compare_records(base, wrong, {});
  EXPECT_FALSE(outcome.passed());
  EXPECT_EQ(row(outcome, "ring-mpi", 2).verdict, Verdict::failed_check);

  // Only sizes under the floor: nothing to compare.
  CompareOptions high;
  high.min_size_bytes = 64 * MiB;
  EXPECT_THROW(compare_records(base, base, high), std::runtime_error);
}

}  // namespace
}  // namespace gradsync
