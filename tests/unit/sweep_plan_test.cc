// The sweep's plan: which `gradsync train` runs a sweep starts, in which
// order, with which arguments, and the lists it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "harness/cli/cluster_spec.h"
#include "harness/cli/sweep_command.h"

namespace gradsync {
namespace {

bool has_pair(const std::vector<std::string>& argv, const std::string& flag,
              const std::string& value) {
  const auto it = std::find(argv.begin(), argv.end(), flag);
  return it != argv.end() && std::next(it) != argv.end() && *std::next(it) == value;
}

TEST(SweepPlan, EveryModelWorkerCountAndStrategyInOrder) {
  SweepOptions o;
  o.workers = "1,2";
  o.strategies = "none,ring-mpi";
  o.models = "small-cnn:cpu,resnet50:cuda";
  o.results_dir = "/tmp/sweep";
  o.train_args = "--batch-size 64 --precision mixed";
  const auto runs = plan_sweep(o, "gradsync");
  ASSERT_EQ(runs.size(), 8u);
  EXPECT_EQ(runs[0].model, "small-cnn");
  EXPECT_EQ(runs[0].strategy, "none");
  EXPECT_EQ(runs[1].strategy, "ring-mpi");
  EXPECT_EQ(runs[2].workers, 2);
  EXPECT_EQ(runs[4].model, "resnet50");
  EXPECT_EQ(runs[4].compute, "cuda");  // GPU clusters sweep real cuDNN training
  EXPECT_TRUE(has_pair(runs[4].command, "--compute", "cuda"));
  EXPECT_TRUE(has_pair(runs[4].command, "--precision", "mixed"));
  EXPECT_TRUE(has_pair(runs[7].command, "--strategy", "ring-mpi"));
}

// --input is an axis of its own: every input stage's runs, each with its
// --input (none for synthetic, whose runs are a plain sweep's) and a config
// digest of its own, so that a resumed sweep tells them apart.
TEST(SweepPlan, EachInputStageIsItsOwnRunsWithTheirOwnDigests) {
  SweepOptions o;
  o.workers = "1,2";
  o.strategies = "none";
  o.models = "small-cnn:cpu";
  o.results_dir = "/tmp/sweep";
  o.inputs = "synthetic,decode:2ms";
  o.train_args = "--input-threads 2";
  const auto runs = plan_sweep(o, "gradsync");
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(std::find(runs[0].command.begin(), runs[0].command.end(), "--input"),
            runs[0].command.end());
  EXPECT_EQ(runs[2].input, "decode:2ms");
  EXPECT_TRUE(has_pair(runs[2].command, "--input", "decode:2ms"));
  EXPECT_TRUE(has_pair(runs[2].command, "--input-threads", "2"));
  EXPECT_NE(runs[0].config_digest, runs[2].config_digest);
  EXPECT_NE(runs[0].log, runs[2].log);
  o.inputs = "synthetic";
  EXPECT_EQ(plan_sweep(o, "gradsync")[0].config_digest, runs[0].config_digest);
  o.inputs = "decode:2";
  EXPECT_THROW(plan_sweep(o, "gradsync"), std::invalid_argument);
  // The stage is the sweep's axis: in --train-args it would run unnamed.
  o.inputs = "synthetic";
  o.train_args = "--input jpeg";
  EXPECT_THROW(plan_sweep(o, "gradsync"), std::invalid_argument);
}

TEST(SweepPlan, ATimeScaleGoesToEveryRunOfEmulatedModelsOnly) {
  SweepOptions o;  // the default strategies: the baseline and every default one
  o.models = "resnet101:emulated";
  o.results_dir = "/tmp/sweep";
  o.time_scale = 16;
  const auto runs = plan_sweep(o, "gradsync");
  ASSERT_FALSE(runs.empty());
  for (const auto& run : runs) EXPECT_TRUE(has_pair(run.command, "--time-scale", "16"));
  o.time_scale = 1;  // the default adds nothing
  for (const auto& run : plan_sweep(o, "gradsync"))
    EXPECT_EQ(std::find(run.command.begin(), run.command.end(), "--time-scale"), run.command.end());
  o.time_scale = 2;
  o.models = "resnet50:emulated,small-cnn:cpu";
  try {
    (void)plan_sweep(o, "gradsync");
    FAIL() << "a time scale was accepted for cpu compute";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--time-scale: 2 needs emulated compute: cpu compute is real and cannot "
                           "be slowed faithfully (--models small-cnn:cpu)");
  }
}

TEST(SweepPlan, MalformedListsAreRefusedNamingTheFlag) {
  auto refused = [](SweepOptions o, const std::string& words) {
    o.results_dir = "/tmp/sweep";
    try {
      plan_sweep(o, "gradsync");
      ADD_FAILURE() << "accepted, expected an error naming " << words;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  SweepOptions o;
  o.models = "resnet50:gpu";
  refused(o, "compute must be cpu, emulated or cuda");
  o = {};
  o.workers = "1,x";
  refused(o, "--workers: 'x'");
  o = {};
  o.strategies = "ring-mpi,bogus";
  refused(o, "unknown strategy 'bogus'");
  o = {};
  o.cluster = "4 hosts";
  refused(o, "--cluster: '4 hosts' is not HOSTS x SLOTS @ RATE");
  o = {};
  o.cluster = "2x1@1gbit";
  o.workers = "1,2,4";
  refused(o, "--workers 4 does not fit on the --cluster's 2 hosts x 1 slots @ 1gbit");
  o = {};
  o.cluster = "2x2@1gbit";
  o.hostfile = "hosts";
  refused(o, "--cluster makes its own hosts");
}

TEST(ClusterSpec, HostsSlotsRateAndDelay) {
  ClusterSpec spec = parse_cluster_spec(" 8 x 1 @ 500mbit / 1ms ");
  EXPECT_EQ(spec.hosts, 8);
  EXPECT_EQ(spec.slots, 1);
  EXPECT_EQ(spec.rate, "500mbit");
  EXPECT_EQ(spec.delay, "1ms");
  spec = parse_cluster_spec("4X2@1gbit");
  EXPECT_EQ(spec.hosts, 4);
  EXPECT_EQ(spec.slots, 2);
  EXPECT_EQ(spec.rate, "1gbit");
  EXPECT_EQ(spec.delay, "");
  EXPECT_EQ(describe(spec), "4 hosts x 2 slots @ 1gbit");
  EXPECT_EQ(spec.mtu, 0);
  spec = parse_cluster_spec("8 x 1 @ 250mbit, mtu 9000");
  EXPECT_EQ(spec.rate, "250mbit");
  EXPECT_EQ(spec.mtu, 9000);
  EXPECT_EQ(describe(spec), "8 hosts x 1 slots @ 250mbit, MTU 9000");
  spec = parse_cluster_spec("2x1@1gbit/1ms,MTU1500");
  EXPECT_EQ(spec.delay, "1ms");
  EXPECT_EQ(spec.mtu, 1500);
  for (const char* bad : {"0x1@1gbit", "4x0@1gbit", "4x2@", "4x2@fast", "4x2", "x2@1gbit",
                          "999x1@1gbit", "99999999999x1@1gbit", "4x2@1gbit,mtu", "4x2@1gbit,mtu100",
                          "4x2@1gbit,mtu70000", "4x2@1gbit,mtu99999999999", "4x2@1gbit,9000"})
    EXPECT_THROW(parse_cluster_spec(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace gradsync
