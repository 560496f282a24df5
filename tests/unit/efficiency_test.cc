// The one efficiency computation: the workload key (cuda precision
// included), the baseline match (the table's baseline strategy at one worker,
// same workload) and efficiency = total img/sec at N / (N x the baseline's),
// with the run's 1.96-sigma interval on the same scale.
#include "harness/results/efficiency.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/results/result_file.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

const std::string kBaseline(strategy_with_role(StrategyRole::baseline));

StoredRecord train(const std::string& strategy, int workers, double img_sec_per_worker,
                   double conf_per_worker, const std::string& compute = "cpu",
                   nlohmann::json precision = nullptr, int line = 1) {
  auto value = new_record("train");
  value["strategy"] = strategy;
  value["model"] = "small-cnn";
  value["compute"] = compute;
  if (!precision.is_null()) value["precision"] = precision;
  value["batch_size"] = 32;
  value["correct"] = true;
  value["results"] = {{"workers", workers},
                      {"img_sec_mean", img_sec_per_worker},
                      {"img_sec_conf", conf_per_worker},
                      {"exposed_comm_share", 0.25}};
  return {"fixture.jsonl:" + std::to_string(line), value};
}

std::vector<TrainRun> all_runs(const std::vector<StoredRecord>& records) {
  return latest_train_runs(records, [](const TrainRun&) { return true; });
}

TEST(Efficiency, TotalThroughputOverWorkersTimesTheBaselineAtOneWorker) {
  // Baseline 1000 img/s alone; ring at 4 workers does 800 img/s each (3200
  // in total, +-40 each = +-160 in total): 3200 / (4 x 1000) = 80%, +-4%.
  const std::vector<StoredRecord> records = {train(kBaseline, 1, 1000, 10),
                                             train("ring-mpi", 4, 800, 40)};
  const auto runs = all_runs(records);
  const TrainRun* ring = TrainRunIndex(runs).find(runs[1].workload, "ring-mpi", 4);
  ASSERT_NE(ring, nullptr);
  EXPECT_DOUBLE_EQ(ring->total_img_sec(), 3200);
  EXPECT_DOUBLE_EQ(ring->total_img_sec_conf(), 160);
  const TrainRun* base = baseline_run(TrainRunIndex(runs), ring->workload);
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->strategy, kBaseline);
  const auto e = scaling_efficiency(*ring, base);
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(e->value, 0.8);
  EXPECT_DOUBLE_EQ(e->conf, 0.04);
  // The baseline against itself is exactly ideal.
  EXPECT_DOUBLE_EQ(scaling_efficiency(*base, base)->value, 1.0);
}

TEST(Efficiency, NoBaselineNoFigure) {
  // The baseline ran at 2 workers only, and another strategy at 1: neither is
  // the baseline of this workload.
  const std::vector<StoredRecord> records = {
      train(kBaseline, 2, 1000, 10), train("ring-mpi", 1, 1000, 10), train("ring-mpi", 2, 900, 10)};
  const auto runs = all_runs(records);
  EXPECT_EQ(baseline_run(TrainRunIndex(runs), runs[0].workload), nullptr);
  EXPECT_FALSE(scaling_efficiency(runs[2], nullptr).has_value());
  // A baseline that measured nothing gives no figure either.
  const std::vector<StoredRecord> zero = {train(kBaseline, 1, 0, 0), train("ring-mpi", 2, 900, 10)};
  const auto zero_runs = all_runs(zero);
  EXPECT_FALSE(scaling_efficiency(zero_runs[1],
                                  baseline_run(TrainRunIndex(zero_runs), zero_runs[1].workload)));
}

TEST(Efficiency, ACudaPrecisionIsItsOwnWorkloadWithItsOwnBaseline) {
  const std::vector<StoredRecord> records = {train(kBaseline, 1, 1000, 0, "cuda", "fp32"),
                                             train(kBaseline, 1, 2500, 0, "cuda", "mixed"),
                                             train("nccl-ring", 2, 2000, 0, "cuda", "mixed")};
  const auto runs = all_runs(records);
  const TrainRun& mixed = runs[2];
  EXPECT_EQ(mixed.workload, (Workload{"small-cnn", "cuda-mixed", 32, ""}));
  EXPECT_EQ(mixed.workload.label(), "small-cnn cuda-mixed b32");
  const TrainRun* base = baseline_run(TrainRunIndex(runs), mixed.workload);
  ASSERT_NE(base, nullptr);
  EXPECT_DOUBLE_EQ(base->img_sec_mean, 2500);
  EXPECT_DOUBLE_EQ(scaling_efficiency(mixed, base)->value, 0.8);  // 4000 / (2 x 2500)
}

TEST(Efficiency, ABaselineAtAnotherTimeScaleIsNotUsed) {
  // The baseline ran at time scale 1 only; the x4 run has none of its own.
  auto scaled = train("ring-mpi", 2, 200, 0, "emulated");
  scaled.value["time_scale"] = 4.0;
  const std::vector<StoredRecord> records = {train(kBaseline, 1, 1000, 0, "emulated"), scaled};
  auto runs = all_runs(records);
  EXPECT_EQ(runs[1].workload.setup, "time x4");
  EXPECT_EQ(runs[1].workload.label(), "small-cnn emulated b32 [time x4]");
  EXPECT_EQ(baseline_run(TrainRunIndex(runs), runs[1].workload), nullptr);
  // With a baseline at the same scale, measured throughputs give the ratio
  // (the represented ones, x4 both, give the same).
  auto scaled_base = train(kBaseline, 1, 250, 0, "emulated");
  scaled_base.value["time_scale"] = 4.0;
  const std::vector<StoredRecord> with_base = {records[0], records[1], scaled_base};
  runs = all_runs(with_base);
  const TrainRun* base = baseline_run(TrainRunIndex(runs), runs[1].workload);
  ASSERT_NE(base, nullptr);
  EXPECT_DOUBLE_EQ(base->img_sec_mean, 250);
  EXPECT_DOUBLE_EQ(runs[1].represented_total_img_sec(), 1600);      // 200 x 2 workers x 4
  EXPECT_DOUBLE_EQ(scaling_efficiency(runs[1], base)->value, 0.8);  // 400 / (2 x 250)
}

TEST(Efficiency, ALaterRecordOfTheSameRunReplacesTheEarlier) {
  const std::vector<StoredRecord> records = {train(kBaseline, 1, 500, 0, "cpu", nullptr, 1),
                                             train("ring-mpi", 2, 900, 0, "cpu", nullptr, 2),
                                             train(kBaseline, 1, 1000, 0, "cpu", nullptr, 3)};
  const auto runs = all_runs(records);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].record->origin, "fixture.jsonl:3");
  EXPECT_DOUBLE_EQ(
      scaling_efficiency(runs[1], baseline_run(TrainRunIndex(runs), runs[1].workload))->value, 0.9);
}

TEST(Efficiency, AnIncompleteTrainRecordIsNamed) {
  auto broken = train("ring-mpi", 2, 900, 0, "cpu", nullptr, 7);
  broken.value["results"].erase("img_sec_mean");
  try {
    read_train_run(broken);
    FAIL() << "accepted a record without img_sec_mean";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("fixture.jsonl:7: incomplete train record"), std::string::npos);
    EXPECT_EQ(message.find("[json.exception"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace gradsync
