// Disturbed runs are not clean (harness/engine/disturbance.h): a train or
// collectives outcome that says it was disturbed makes its record say
// "correct": false and why ("disturbed"), whatever its sums or parameters;
// an undisturbed one writes "disturbed": null and keeps its verdict. The
// collectives rows carry the line through the JSON that ranks exchange, and
// rows written before it existed still read.
#include <gtest/gtest.h>

#include <string>

#include "harness/results/collectives_record.h"
#include "harness/results/train_record.h"
#include "harness/results/train_text.h"

namespace gradsync {
namespace {

constexpr const char* kStall =
    "rank 0: stalled 2.6 s in step 7 bucket 3 (ring-mpi allgather), waiting for rank 1";

nlohmann::json train(const TrainSummary& summary) {
  TrainPlan plan;
  plan.strategy = &find_strategy("ring-mpi");
  return train_record(plan, nlohmann::json::object(), summary, 2, RunContext{}, GpuChoice{});
}

TEST(DisturbedRecord, TrainRecordOfADisturbedRunIsNotCorrectAndSaysWhy) {
  TrainSummary clean;
  clean.parameters_identical = true;
  EXPECT_EQ(train(clean).at("correct"), true);
  EXPECT_TRUE(train(clean).at("disturbed").is_null());
  TrainSummary disturbed;
  disturbed.parameters_identical = true;
  disturbed.disturbance = kStall;
  EXPECT_EQ(train(disturbed).at("correct"), false);
  EXPECT_EQ(train(disturbed).at("disturbed"), kStall);
  EXPECT_FALSE(train(disturbed).at("results").contains("disturbed"));
}

TEST(DisturbedRecord, TrainSummaryTextSaysTheRunWasDisturbed) {
  TrainSummary summary;
  const TrainSettings settings;
  EXPECT_EQ(summary_text(summary, settings).find("Disturbed"), std::string::npos);
  summary.disturbance = kStall;
  EXPECT_NE(summary_text(summary, settings).find(std::string("Disturbed run, not clean (the record "
                                                             "says correct: false): ") +
                                                 kStall + "\n"),
            std::string::npos);
}

TEST(DisturbedRecord, CollectivesRecordTakesTheFirstDisturbedSize) {
  StrategyOutcome outcome;
  outcome.strategy = "ring-mpi";
  outcome.workers = 2;
  SizeResult row;
  row.size_bytes = 4096;
  row.count = 1024;
  row.wrong_elements = 0;
  outcome.rows = {row, row, row};
  const BenchSettings settings;
  const StrategyOptions options;
  const RunContext context;
  EXPECT_EQ(collectives_record(outcome, {settings, options, context}).at("correct"), true);
  EXPECT_TRUE(collectives_record(outcome, {settings, options, context}).at("disturbed").is_null());

  outcome.rows[1].disturbance = kStall;
  outcome.rows[2].disturbance = "a later one";
  EXPECT_EQ(outcome.first_disturbance(), kStall);
  const auto record = collectives_record(outcome, {settings, options, context});
  EXPECT_EQ(record.at("correct"), false);
  EXPECT_EQ(record.at("disturbed"), kStall);
  EXPECT_EQ(record.at("rows").at(1).at("disturbed"), kStall);
  EXPECT_TRUE(record.at("rows").at(0).at("disturbed").is_null());
}

TEST(DisturbedRecord, RowsCarryTheLineThroughJsonAndOldRowsStillRead) {
  SizeResult row;
  row.disturbance = kStall;
  EXPECT_EQ(size_result_from_json(to_json(row)).disturbance, kStall);
  auto old_row = to_json(SizeResult{});
  old_row.erase("disturbed");
  EXPECT_EQ(size_result_from_json(old_row).disturbance, "");
}

}  // namespace
}  // namespace gradsync
