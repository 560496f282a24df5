// The training tables of `gradsync report`: one row per workload and
// strategy, where a workload is (model, compute mode, batch) and cuda runs in
// different precisions are different workloads with their own baseline.
#include "harness/results/train_report.h"

#include <gtest/gtest.h>

#include "harness/results/result_file.h"
#include "harness/results/train_summary.h"
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

// A cpu small-cnn run with (or without) a time to target and a straggler.
StoredRecord target_run(const std::string& strategy, int workers, nlohmann::json time_to_target,
                        nlohmann::json straggler = nullptr) {
  StoredRecord r = train(strategy, workers, 100, nullptr);
  r.value["model"] = "small-cnn";
  r.value["compute"] = "cpu";
  r.value.erase("precision");
  r.value["batch_size"] = 32;
  if (!time_to_target.is_null()) r.value["results"]["time_to_target"] = time_to_target;
  r.value["straggler"] = straggler;
  return r;
}

nlohmann::json reached(double seconds, int samples) {
  return {{"target_loss", 0.5}, {"window_steps", 10}, {"reached", true},
          {"seconds", seconds}, {"samples", samples}, {"smoothed_loss", 0.49}};
}

TEST(TrainReport, TimeToTargetTableHasTheRunsThatAskedForIt) {
  const nlohmann::json missed = {{"target_loss", 0.5}, {"window_steps", 10}, {"reached", false},
                                 {"seconds", nullptr}, {"samples", nullptr},
                                 {"smoothed_loss", 0.8123}};
  const std::vector<StoredRecord> records = {
      target_run("none", 1, nullptr),  // no target: no row
      target_run("ring-mpi", 4, reached(12.345, 7680)),
      target_run("ps-zmq", 4, missed),
      target_run("ring-mpi", 4, reached(30.0, 7680), {{"rank", 1}, {"factor", 2.0}})};
  const auto tables = training_report(records);
  ASSERT_EQ(tables.size(), 4u);
  const ReportTable& t = tables[3];
  EXPECT_NE(t.caption.find("Time to target loss 0.5:"), std::string::npos) << t.caption;
  EXPECT_NE(t.caption.find("last 10 steps of every worker"), std::string::npos) << t.caption;
  ASSERT_EQ(t.rows.size(), 3u);
  // model, compute, batch, strategy, setup, n=1, n=4
  ASSERT_EQ(t.header.size(), 7u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"small-cnn", "cpu", "32", "ring-mpi", "-", "-",
                                                 "12.35 s, 7680 samples"}));
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"small-cnn", "cpu", "32", "ps-zmq", "-", "-",
                                                 "not reached (0.8123)"}));
  EXPECT_EQ(t.rows[2], (std::vector<std::string>{"small-cnn", "cpu", "32", "ring-mpi",
                                                 "worker 1 x2 slower", "-", "30.00 s, 7680 samples"}));
}

TEST(TrainReport, DifferentTargetsAreNamedInEachCell) {
  nlohmann::json other = reached(3, 320);
  other["target_loss"] = 1.25;
  const auto tables = training_report(std::vector<StoredRecord>{
      target_run("ring-mpi", 2, reached(1.5, 640)), target_run("tree-mpi", 2, other)});
  ASSERT_EQ(tables.size(), 4u);
  EXPECT_EQ(tables[3].caption.find("Time to target loss:"), 0u) << tables[3].caption;
  ASSERT_EQ(tables[3].rows.size(), 2u);
  EXPECT_EQ(tables[3].rows[0].back(), "to 0.5: 1.50 s, 640 samples");
  EXPECT_EQ(tables[3].rows[1].back(), "to 1.25: 3.00 s, 320 samples");
}

TEST(TrainReport, TimeToTargetReadsBackWhatTheRecordWrites) {
  const TimeToTarget reached_one{.target_loss = 0.5, .window_steps = 10, .reached = true,
                                 .seconds = 1.25, .samples = 640, .smoothed_loss = 0.49};
  const auto back = time_to_target_from_json(to_json(reached_one));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->target_loss, 0.5);
  EXPECT_EQ(back->window_steps, 10);
  EXPECT_TRUE(back->reached);
  EXPECT_EQ(back->seconds, 1.25);
  EXPECT_EQ(back->samples, 640u);
  EXPECT_EQ(back->smoothed_loss, 0.49);
  // Not reached: seconds and samples are written as null and read as 0.
  const nlohmann::json missed = to_json({.target_loss = 0.1, .reached = false, .seconds = 3,
                                         .samples = 96, .smoothed_loss = 0.8});
  EXPECT_TRUE(missed.at("seconds").is_null());
  EXPECT_TRUE(missed.at("samples").is_null());
  const auto missed_back = time_to_target_from_json(missed);
  ASSERT_TRUE(missed_back);
  EXPECT_FALSE(missed_back->reached);
  EXPECT_EQ(missed_back->seconds, 0);
  EXPECT_EQ(missed_back->smoothed_loss, 0.8);
  EXPECT_FALSE(time_to_target_from_json(nullptr));
}

TEST(TrainReport, NoTargetNoTable) {
  EXPECT_EQ(training_report(std::vector<StoredRecord>{target_run("ring-mpi", 2, nullptr)}).size(), 3u);
}

// "Which strategy": a workload whose strategies hold different memory gets
// a table of its choices, fastest first at the most workers, each cell its
// efficiency and memory; replicas alone (one memory) get none.
StoredRecord held(const std::string& strategy, int workers, double img_sec, double mib) {
  StoredRecord r = train(strategy, workers, img_sec, "fp32");
  r.value["memory"] = {{"parameters_bytes", 0},
                       {"gradients_bytes", 0},
                       {"optimizer_bytes", 0},
                       {"gathered_bytes", 0},
                       {"total_bytes", std::uint64_t(mib * 1048576)}};
  return r;
}

TEST(TrainReport, WhichStrategyRanksTheChoicesWhereMemoryDiffers) {
  std::vector<StoredRecord> records = {
      held("none", 1, 1000, 300),          held("ring-mpi", 2, 800, 300),
      held("ring-mpi", 4, 500, 300),       held("zero2-ring-mpi", 2, 700, 250),
      held("zero2-ring-mpi", 4, 600, 225), held("mpi-allreduce", 4, 100, 300)};
  auto tables = training_report(records);
  ASSERT_EQ(tables.size(), 5u);  // efficiency, throughput, exposed, memory, which strategy
  const ReportTable& choice = tables.back();
  EXPECT_NE(choice.caption.find("Which strategy for resnet50"), std::string::npos);
  EXPECT_EQ(choice.header, (std::vector<std::string>{"strategy", "n=2", "n=4"}));
  ASSERT_EQ(choice.rows.size(), 3u);  // not the baseline
  EXPECT_EQ(choice.rows[0],
            (std::vector<std::string>{"zero2-ring-mpi", "70.0%, 250 MiB", "60.0%, 225 MiB"}));
  EXPECT_EQ(choice.rows[1],
            (std::vector<std::string>{"ring-mpi", "80.0%, 300 MiB", "50.0%, 300 MiB"}));
  EXPECT_EQ(choice.rows[2], (std::vector<std::string>{"mpi-allreduce", "-", "10.0%, 300 MiB"}));

  // Projections come after, each with its band on the efficiency.
  for (auto [strategy, workers, img_sec, mib] :
       {std::tuple("none", 1, 1000.0, 300.0), std::tuple("zero2-ring-mpi", 4, 400.0, 225.0)}) {
    StoredRecord projected = held(strategy, workers, img_sec, mib);
    projected.value["simulated"] = true;
    projected.value["simulation"] = {{"band", {{"low", 0.9}, {"high", 1.1}}}};
    records.push_back(projected);
  }
  tables = training_report(records);
  ASSERT_EQ(tables.back().rows.size(), 4u);
  EXPECT_EQ(tables.back().rows[3], (std::vector<std::string>{"zero2-ring-mpi (simulated)", "-",
                                                             "40.0% (36.0 to 44.0%), 225 MiB"}));

  records.erase(records.begin() + 3, records.end());  // measured replicas only
  tables = training_report(records);
  EXPECT_EQ(tables.size(), 4u);
}

}  // namespace
}  // namespace gradsync
