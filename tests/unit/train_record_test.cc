// What a train run writes (harness/results/train_record.h, train_text.h) from
// its typed plan: the record and the header spell compute, precision and
// overlap exactly as before (the names of train_plan.h), precision only for
// cuda compute, the device profile only for emulated compute.
#include "harness/results/train_record.h"

#include <gtest/gtest.h>

#include <string>

#include "harness/results/train_text.h"

namespace gradsync {
namespace {

TrainPlan cuda_plan() {
  TrainPlan plan;
  plan.strategy = &find_strategy("nccl-ring");
  plan.settings.model = "resnet50";
  plan.settings.model_options.compute = ComputeMode::cuda;
  plan.settings.model_options.precision = Precision::tf32;
  plan.settings.sync.overlap = false;
  return plan;
}

nlohmann::json record(const TrainPlan& plan, const GpuChoice& gpu = {}) {
  return train_record(plan, {{"ring_segment_bytes", 1}}, TrainSummary{}, 2, RunContext{}, gpu);
}

TEST(TrainRecord, CudaComputeWritesItsPrecisionAndGpu) {
  const auto r = record(cuda_plan(), {.ordinal = 0, .name = "NVIDIA H200"});
  EXPECT_EQ(r.at("kind"), "train");
  EXPECT_EQ(r.at("strategy"), "nccl-ring");
  EXPECT_EQ(r.at("compute"), "cuda");
  EXPECT_EQ(r.at("precision"), "tf32");
  EXPECT_EQ(r.at("gpu"), "NVIDIA H200");
  EXPECT_TRUE(r.at("device_profile").is_null());
  EXPECT_EQ(r.at("sync").at("overlap"), false);
  EXPECT_EQ(r.at("strategy_options").at("ring_segment_bytes"), 1);
  EXPECT_EQ(r.at("ranks"), 2);
  EXPECT_FALSE(r.contains("gpu_placement"));  // none given: the key is left out
  const auto placed = record(cuda_plan(), {.ordinal = 0,
                                           .name = "NVIDIA H200",
                                           .placement = "the one GPU visible to this rank"});
  EXPECT_EQ(placed.at("gpu_placement"),
            (nlohmann::json{{"ordinal", 0}, {"source", "the one GPU visible to this rank"}}));
}

TEST(TrainRecord, OtherComputeWritesNoPrecision) {
  TrainPlan plan;
  plan.strategy = &find_strategy("ring-mpi");
  plan.settings.model_options.compute = ComputeMode::emulated;
  plan.settings.model_options.profile = find_device_profile("v100");
  const auto r = record(plan);
  EXPECT_EQ(r.at("compute"), "emulated");
  EXPECT_TRUE(r.at("precision").is_null());
  EXPECT_TRUE(r.at("gpu").is_null());
  EXPECT_FALSE(r.contains("gpu_placement"));
  EXPECT_EQ(r.at("device_profile").at("name"), "v100");
  EXPECT_GT(r.at("device_profile").at("implied_img_sec").get<double>(), 0);
  EXPECT_EQ(r.at("sync").at("overlap"), true);
}

// A record tells a check that was not made (null) from one that found the
// parameters identical (true), and a failed check makes the run incorrect.
TEST(TrainRecord, ParametersIdenticalIsNullWhenNoCheckRan) {
  TrainPlan plan;
  plan.strategy = &find_strategy("none");
  TrainSummary unchecked;
  auto r = train_record(plan, {}, unchecked, 2, RunContext{}, {});
  EXPECT_TRUE(r.at("results").at("parameters_identical").is_null());
  EXPECT_EQ(r.at("results").at("parameters_checked"), false);
  EXPECT_TRUE(r.at("correct").is_null());
  TrainSummary same;
  same.parameters_identical = true;
  r = train_record(plan, {}, same, 2, RunContext{}, {});
  EXPECT_EQ(r.at("results").at("parameters_identical"), true);
  EXPECT_EQ(r.at("results").at("parameters_checked"), true);
  EXPECT_EQ(r.at("correct"), true);
  TrainSummary differ;
  differ.parameters_identical = false;
  r = train_record(plan, {}, differ, 2, RunContext{}, {});
  EXPECT_EQ(r.at("results").at("parameters_identical"), false);
  EXPECT_EQ(r.at("correct"), false);
}

TEST(TrainText, HeaderSpellsEveryValueByName) {
  EXPECT_EQ(train_header(cuda_plan(), 1, {.ordinal = 1, .name = "NVIDIA H200"}, 4),
            "Model: resnet50\n"
            "Compute: cuda (cuDNN and cuBLAS) on GPU 1 (NVIDIA H200), precision tf32\n"
            "Batch size: 32 per worker\n"
            "Strategy: nccl-ring, fusion 64 MiB, overlap off\n"
            "Number of workers: 4\n"
            "Running warmup...\n");
  EXPECT_NE(train_header(cuda_plan(), 1,
                         {.ordinal = 1, .name = "NVIDIA H200", .placement = "SLURM_LOCALID=1 of 2"},
                         4)
                .find("precision tf32\nGPU placement: GPU 1, SLURM_LOCALID=1 of 2\nBatch size"),
            std::string::npos);
  TrainPlan cpu;
  cpu.strategy = &find_strategy("ring-mpi");
  EXPECT_EQ(train_header(cpu, 2, {}, 1),
            "Model: small-cnn\n"
            "Compute: cpu (real forward and backward, 2 BLAS thread(s) per worker)\n"
            "Batch size: 32 per worker\n"
            "Strategy: ring-mpi, fusion 64 MiB, overlap on\n"
            "Number of workers: 1\n"
            "Running warmup...\n");
}

TEST(TrainText, ATimeScaleIsNamedAndTheRepresentedRateShown) {
  TrainPlan plan;
  plan.strategy = &find_strategy("ring-mpi");
  plan.settings.model_options.compute = ComputeMode::emulated;
  plan.settings.model_options.emulate_img_per_sec = 100;
  plan.settings.model_options.time_scale = 4;
  EXPECT_NE(train_header(plan, 1, {}, 2)
                .find("Compute: emulated at 100 img/sec per worker, slowed "
                      "x4 (time scale)\n"),
            std::string::npos);
  TrainSummary s;
  s.workers = 2;
  s.img_sec_mean = 24;
  s.img_sec_conf = 1;
  const std::string text = summary_text(s, plan.settings);
  EXPECT_NE(text.find("Emulated device rate: 100.0 img/sec per worker, slowed x4 to 25.0; measured "
                      "96.0% of it\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Img/sec per worker: 24.0 +-1.0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Represented img/sec per worker (measured x 4): 96.0 +-4.0; total 192.0 "
                      "+-8.0\n"),
            std::string::npos)
      << text;
  plan.settings.model_options.time_scale = 1;
  EXPECT_EQ(summary_text(s, plan.settings).find("Represented"), std::string::npos);
}

TEST(TrainPlan, OnlyEmulatedComputeCanBeSlowed) {
  EXPECT_NO_THROW(check_time_scale(1, ComputeMode::cpu));
  EXPECT_NO_THROW(check_time_scale(16, ComputeMode::emulated));
  EXPECT_THROW(check_time_scale(0.5, ComputeMode::emulated), std::invalid_argument);
  try {
    check_time_scale(2, ComputeMode::cuda);
    FAIL() << "cuda compute was slowed";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "2 needs emulated compute: cuda compute is real and cannot be slowed "
                 "faithfully");
  }
}

TEST(TrainText, IterationLinesAnnounceTheBenchmarkOnce) {
  EXPECT_EQ(iteration_text(0, 12.34), "Running benchmark...\nIter #0: 12.3 img/sec per worker\n");
  EXPECT_EQ(iteration_text(1, 12.36), "Iter #1: 12.4 img/sec per worker\n");
}

}  // namespace
}  // namespace gradsync
