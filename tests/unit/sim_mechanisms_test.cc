// The mechanisms a cluster file states (harness/sim/cluster_model.h): each
// acts as its description says, only where it applies, is switched off by
// name, and the file form keeps it; a bad entry is one line naming it.
#include <gtest/gtest.h>

#include "harness/sim/cluster_model.h"
#include "harness/sim/simulation.h"
#include "harness/sim/step_model.h"
#include "models/zoo.h"
#include "strategies/registry.h"
#include "tests/unit/sim_test_support.h"

namespace gradsync::sim {
namespace {

SimulationCase case_of(const std::string& strategy, int workers) {
  SimulationCase c;
  c.model = "vgg16";
  c.batch = 64;
  c.device_profile = "forced";
  c.emulate_img_per_sec = 130.9;
  c.strategy = &find_strategy(strategy);
  c.placement = {.workers = workers, .workers_per_node = 4};
  return c;
}

TEST(SimMechanisms, TheAchievedRateSlowsTheLinkBetweenNodesAlone) {
  ClusterModel slow = made_up_gpu_cluster(4);
  slow.mechanisms.achieved_fraction = {0.5, "assumed", ""};
  ClusterModel half = made_up_gpu_cluster(4);
  half.inter.bandwidth_bits_per_s.value /= 2;
  for (const char* s : {"nccl-ring", "ring-mpi"}) {
    const auto with = simulate(slow, case_of(s, 16));
    EXPECT_DOUBLE_EQ(with.step.step_s, simulate(half, case_of(s, 16)).step.step_s) << s;
    EXPECT_NE(with.costed_as.find("achieved-rate 0.5"), std::string::npos) << with.costed_as;
    SimulationCase off = case_of(s, 16);
    off.without = {"achieved-rate"};
    EXPECT_DOUBLE_EQ(simulate(slow, off).step.step_s,
                     simulate(made_up_gpu_cluster(4), case_of(s, 16)).step.step_s)
        << s;
  }
  // One worker moves nothing: no mechanism acts.
  EXPECT_TRUE(simulate(slow, case_of("nccl-ring", 1)).mechanisms.empty());
}

TEST(SimMechanisms, StagingCostsAHostStrategyOnGpusTwoCopiesAtTheNodesSharedRate) {
  ClusterModel m = made_up_gpu_cluster(4);
  m.mechanisms.staging_bytes_per_s = {16e9, "datasheet", ""};
  const auto staged = simulate(m, case_of("ring-mpi", 16));
  const auto bare = simulate(made_up_gpu_cluster(4), case_of("ring-mpi", 16));
  // With overlap off every bucket is after backward: the difference is the
  // copies alone, 2 x bytes at 16 GB/s / 4 GPUs.
  SimulationCase a = case_of("ring-mpi", 16), b = a;
  a.overlap = b.overlap = false;
  const double copies = 2 * bare.step.gradient_bytes / (16e9 / 4);
  EXPECT_NEAR(simulate(m, a).step.step_s - simulate(made_up_gpu_cluster(4), b).step.step_s, copies,
              1e-9 * copies);
  EXPECT_GT(staged.step.step_s, bare.step.step_s);
  // NCCL reduces device memory: nothing to stage.
  EXPECT_DOUBLE_EQ(simulate(m, case_of("nccl-ring", 16)).step.step_s,
                   simulate(made_up_gpu_cluster(4), case_of("nccl-ring", 16)).step.step_s);
}

TEST(SimMechanisms, AnIdleThreadSeesABucketAtItsNextCycle) {
  const Graph graph = build_vgg16();
  const auto compute = profile_from_flops(graph, 64, 3 * graph.forward_flops() * 130.9, "test");
  auto cost = [](double bytes) { return bytes / 3e9; };
  const double cycle = 0.005;
  const auto step = simulate_step(graph, compute, 64, true, cost, cycle);
  double free = 0;
  for (const auto& e : step.buckets) {
    if (e.ready_s > free) {
      // Idle: a whole number of cycles after it went idle, the first at or after ready.
      const double waited = e.start_s - free;
      EXPECT_NEAR(waited / cycle, std::round(waited / cycle), 1e-9);
      EXPECT_GE(e.start_s, e.ready_s - 1e-12);
      EXPECT_LT(e.start_s - e.ready_s, cycle);
    } else {
      EXPECT_DOUBLE_EQ(e.start_s, free);  // busy: at once
    }
    free = e.end_s;
  }
  EXPECT_GT(step.step_s, simulate_step(graph, compute, 64, true, cost).step_s);
}

TEST(SimMechanisms, TheFileKeepsThemAndRefusesWhatIsNotOne) {
  ClusterModel m = made_up_gpu_cluster(4);
  m.mechanisms.achieved_fraction = {0.96, "published", "a NIC"};
  m.mechanisms.framework_cycle_s = {0.005, "published", "Horovod"};
  const ClusterModel back = cluster_model_from_json(to_json(m), "c.json");
  EXPECT_DOUBLE_EQ(back.mechanisms.achieved_fraction.value, 0.96);
  EXPECT_DOUBLE_EQ(back.mechanisms.framework_cycle_s.value, 0.005);
  EXPECT_EQ(back.mechanisms.staging_bytes_per_s.value, 0.0);  // not stated: off
  auto doc = to_json(m);
  doc["mechanisms"]["achieved_fraction"]["value"] = 1.5;
  try {
    cluster_model_from_json(doc, "c.json");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "c.json: mechanisms.achieved_fraction.value: must be at most 1 (got 1.5)");
  }
  doc = to_json(m);
  doc["mechanisms"]["gpu_sharing"] = {{"value", 0.1}, {"source", "assumed"}, {"note", ""}};
  EXPECT_THROW(cluster_model_from_json(doc, "c.json"), std::runtime_error);
}

}  // namespace
}  // namespace gradsync::sim
