// The cost model's input stage (harness/sim/input_stage.h): a batch's time
// from the stated cost, the loaders' share of a node's cores, and the wait it
// adds to the step with and without prefetch; worked out by hand.
#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/sim/input_stage.h"
#include "harness/sim/simulation.h"
#include "sim_test_support.h"
#include "strategies/registry.h"

namespace gradsync::sim {
namespace {

InputStage decode_stage(double decode_us, int threads, int prefetch, int cores) {
  InputStage stage;
  stage.spec.kind = InputKind::decode;
  stage.spec.decode_us = decode_us;
  stage.spec.threads = threads;
  stage.spec.prefetch = prefetch;
  stage.host_cores = cores;
  return stage;
}

TEST(SimInputStage, PrefetchHidesABatchFasterThanTheStep) {
  // 32 images x 2 ms on one core: 64 ms a batch.
  const InputStage stage = decode_stage(2000, 1, 2, 8);
  const InputPrediction slow_step = predict_input(stage, 32, 1, 0.100);
  EXPECT_DOUBLE_EQ(slow_step.batch_s, 0.064);
  EXPECT_DOUBLE_EQ(slow_step.wait_s, 0);
  const InputPrediction fast_step = predict_input(stage, 32, 1, 0.050);
  EXPECT_NEAR(fast_step.wait_s, 0.014, 1e-12);  // the step lasts the batch
}

TEST(SimInputStage, WithoutPrefetchTheStepWaitsForTheWholeBatch) {
  const InputPrediction p = predict_input(decode_stage(2000, 2, 0, 8), 32, 1, 0.100);
  EXPECT_DOUBLE_EQ(p.batch_s, 0.032);  // two threads split it
  EXPECT_DOUBLE_EQ(p.wait_s, 0.032);
}

TEST(SimInputStage, ANodesCoresAreSharedByItsWorkersLoaders) {
  // 2 cores, 1 thread per worker: up to 2 workers each have a core; at 4
  // each thread gets half of one, at 8 a quarter.
  const InputStage stage = decode_stage(1000, 1, 2, 2);
  EXPECT_DOUBLE_EQ(predict_input(stage, 10, 2, 1).parallel_cores, 1);
  EXPECT_DOUBLE_EQ(predict_input(stage, 10, 4, 1).parallel_cores, 0.5);
  EXPECT_DOUBLE_EQ(predict_input(stage, 10, 8, 1).batch_s, 0.040);
  // Two threads each on a 4-core node with 4 workers: 8 threads, half a core each.
  EXPECT_DOUBLE_EQ(predict_input(decode_stage(1000, 2, 2, 4), 10, 4, 1).parallel_cores, 1);
}

TEST(SimInputStage, AReadIsAWaitThatTakesNoCore) {
  InputStage stage;
  stage.spec.kind = InputKind::read;
  stage.spec.image_bytes = 100e3;
  stage.spec.read_mb_per_s = 100;  // 1 ms an image
  stage.spec.threads = 2;          // taking turns on the worker's one link, as train's loader does
  const InputPrediction p = predict_input(stage, 32, 8, 0.001);  // no cores needed
  EXPECT_DOUBLE_EQ(p.parallel_cores, 1);
  EXPECT_NEAR(p.batch_s, 0.032, 1e-12);
  EXPECT_NEAR(p.wait_s, 0.031, 1e-12);
}

TEST(SimInputStage, AMeasuredImageTimeReplacesTheStatedOne) {
  InputStage stage = decode_stage(2000, 1, 2, 8);
  stage.image_s = 0.004;
  EXPECT_DOUBLE_EQ(predict_input(stage, 10, 1, 1).batch_s, 0.040);
}

TEST(SimInputStage, WhatCannotBeCostedIsRefused) {
  InputStage jpeg;
  jpeg.spec.kind = InputKind::jpeg;
  jpeg.host_cores = 8;
  EXPECT_THROW(jpeg.check(), std::invalid_argument);  // no measured time per image
  jpeg.image_s = 0.003;
  EXPECT_NO_THROW(jpeg.check());
  EXPECT_THROW(decode_stage(1000, 1, 2, 0).check(), std::invalid_argument);  // no cores
  EXPECT_NO_THROW(InputStage{}.check());  // synthetic costs nothing
  EXPECT_DOUBLE_EQ(predict_input(InputStage{}, 32, 4, 0.1).wait_s, 0);
}

TEST(SimInputStage, TheSimulatedStepWaitsForInputAndTheCoresComeFromTheCluster) {
  ClusterModel cluster = made_up_gpu_cluster(2);
  cluster.host_cores = {4, "assumed", ""};
  SimulationCase c;
  c.model = "resnet50";
  c.batch = 32;
  c.emulate_img_per_sec = 200;  // a 0.16 s step
  c.strategy = &find_strategy("none");
  c.placement.workers = 8;
  c.placement.workers_per_node = 4;
  const double without = simulate(cluster, c).step.step_s;
  // 32 x 10 ms; 4 workers x 1 thread on 4 cores, a core each: 0.32 s a batch.
  c.input = decode_stage(10000, 1, 2, 0);
  const SimulationResult r = simulate(cluster, c);
  EXPECT_DOUBLE_EQ(r.input.batch_s, 0.32);
  EXPECT_NEAR(r.step.step_s, 0.32, 1e-9);
  EXPECT_NEAR(r.input.wait_s, 0.32 - without, 1e-9);
  EXPECT_NEAR(r.img_sec_per_worker, 100, 1e-6);
}

}  // namespace
}  // namespace gradsync::sim
