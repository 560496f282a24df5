// The sweep's plan: which `gradsync train` runs a sweep starts, in which
// order, with which arguments, and the lists it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

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
  o.out = "/tmp/sweep";
  o.train_args = "--batch-size 64 --precision mixed";
  const auto runs = plan_sweep(o, "gradsync");
  ASSERT_EQ(runs.size(), 8u);
  EXPECT_EQ(runs[0].model, "small-cnn");
  EXPECT_EQ(runs[0].strategy, "none");
  EXPECT_EQ(runs[1].strategy, "ring-mpi");
  EXPECT_EQ(runs[2].workers, 2);
  EXPECT_EQ(runs[4].model, "resnet50");
  EXPECT_EQ(runs[4].compute, "cuda");  // GPU clusters sweep real cuDNN training
  EXPECT_TRUE(has_pair(runs[4].argv, "--compute", "cuda"));
  EXPECT_TRUE(has_pair(runs[4].argv, "--precision", "mixed"));
  EXPECT_TRUE(has_pair(runs[7].argv, "--strategy", "ring-mpi"));
}

TEST(SweepPlan, MalformedListsAreRefusedNamingTheFlag) {
  auto refused = [](SweepOptions o, const std::string& words) {
    o.out = "/tmp/sweep";
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
}

}  // namespace
}  // namespace gradsync
