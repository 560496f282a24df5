// The training tables of `gradsync report`: one row per workload and
// strategy, where a workload is (model, compute mode, batch) and cuda runs in
// different precisions are different workloads with their own baseline.
#include "harness/results/train_report.h"

#include <gtest/gtest.h>

#include "harness/results/result_file.h"
#include "harness/results/workload.h"

namespace gradsync {
namespace {

StoredRecord train(const std::string& strategy, int workers, double img_sec_per_worker,
                   nlohmann::json precision) {
  auto value = new_record("train");
  value["strategy"] = strategy;
  value["model"] = "resnet50";
  value["compute"] = "cuda";
  value["precision"] = precision;
  value["batch_size"] = 64;
  value["correct"] = true;
  value["results"] = {{"workers", workers},
                      {"img_sec_mean", img_sec_per_worker},
                      {"img_sec_conf", 1.0},
                      {"exposed_comm_share", 0.1}};
  return {"fixture.jsonl", value};
}

TEST(TrainReport, ComputeModeNamesTheCudaPrecision) {
  EXPECT_EQ(compute_mode(train("none", 1, 1, "mixed").value), "cuda-mixed");
  EXPECT_EQ(compute_mode(train("none", 1, 1, nullptr).value), "cuda");
  auto cpu = train("none", 1, 1, nullptr).value;
  cpu["compute"] = "cpu";
  cpu.erase("precision");  // records written before the field existed
  EXPECT_EQ(compute_mode(cpu), "cpu");
}

TEST(TrainReport, EachPrecisionIsAWorkloadWithItsOwnBaseline) {
  // fp32 at 1000 img/s per worker alone, mixed at 2000: each ring run keeps
  // 90% of its own precision's baseline, which one mixed-up baseline would hide.
  const std::vector<StoredRecord> records = {
      train("none", 1, 1000, "fp32"), train("none", 1, 2000, "mixed"),
      train("nccl-ring", 2, 900, "fp32"), train("nccl-ring", 2, 1800, "mixed")};
  const auto tables = training_report(records);
  ASSERT_EQ(tables.size(), 3u);
  const auto& efficiency = tables[0];
  ASSERT_EQ(efficiency.rows.size(), 4u);
  int checked = 0;
  for (const auto& row : efficiency.rows) {
    if (row[3] != "nccl-ring") continue;
    EXPECT_TRUE(row[1] == "cuda-fp32" || row[1] == "cuda-mixed") << row[1];
    EXPECT_EQ(row.back(), "90.0%") << row[1];
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace gradsync
