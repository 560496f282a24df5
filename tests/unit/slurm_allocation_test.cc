// The Slurm allocation a sweep reads from its environment, and where each
// run's ranks go in it (harness/cli/slurm_allocation.h).
#include "harness/cli/slurm_allocation.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

namespace gradsync {
namespace {

using Env = std::map<std::string, std::string>;

SlurmAllocation from(const Env& env) {
  return slurm_allocation(
      [&](const char* name) -> const char* {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      [](const std::string& list) {
        EXPECT_EQ(list, "n[1-4]");
        return std::vector<std::string>{"n1", "n2", "n3", "n4"};
      });
}

TEST(SlurmAllocation, ReadsNodesTasksAndGpus) {
  const Env base = {{"SLURM_JOB_ID", "77"}, {"SLURM_JOB_NODELIST", "n[1-4]"}};
  Env env = base;
  env["SLURM_NTASKS_PER_NODE"] = "2";
  env["SLURM_TASKS_PER_NODE"] = "8(x4)";  // the explicit request wins
  SlurmAllocation a = from(env);
  EXPECT_EQ(a.job_id, "77");
  EXPECT_EQ(a.nodes, (std::vector<std::string>{"n1", "n2", "n3", "n4"}));
  EXPECT_EQ(a.tasks_per_node, 2);
  EXPECT_EQ(a.gpus_per_node, 0);
  env = base;
  env["SLURM_TASKS_PER_NODE"] = "4(x3),2";
  env["SLURM_GPUS_PER_NODE"] = "a100:3";  // one GPU a task: 3 tasks a node, not 4
  a = from(env);
  EXPECT_EQ(a.gpus_per_node, 3);
  EXPECT_EQ(a.tasks_per_node, 3);
}

TEST(SlurmAllocation, OutsideAnAllocationOrWithoutATaskCountIsOneLine) {
  try {
    from({});
    FAIL() << "no allocation accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not inside a Slurm allocation"), std::string::npos);
  }
  try {
    from({{"SLURM_JOB_ID", "1"}, {"SLURM_JOB_NODELIST", "n[1-4]"}});
    FAIL() << "no task count accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--ntasks-per-node"), std::string::npos);
  }
}

SlurmAllocation four_nodes_of(int tasks) {
  return SlurmAllocation{"9", {"n1", "n2", "n3", "n4"}, tasks, 0};
}

TEST(SlurmPlacement, WorkersFillTheFewestNodesEvenlyAndServersGetNodesOfTheirOwn) {
  SlurmPlacement p = place_ranks(four_nodes_of(4), 6, 0);
  EXPECT_EQ(p.worker_nodes, 2);
  EXPECT_EQ(p.rank_hosts, (std::vector<std::string>{"n1", "n1", "n1", "n2", "n2", "n2"}));
  p = place_ranks(four_nodes_of(2), 4, 2);  // servers are ranks 0 and 1 (ps-zmq dedicated)
  EXPECT_EQ(p.rank_hosts, (std::vector<std::string>{"n3", "n4", "n1", "n1", "n2", "n2"}));
  EXPECT_EQ(hostfile_text(p.rank_hosts), "n3\nn4\nn1\nn1\nn2\nn2\n");
  p = place_ranks(four_nodes_of(2), 1, 0);
  EXPECT_EQ(p.rank_hosts, (std::vector<std::string>{"n1"}));
}

TEST(SlurmPlacement, WhatDoesNotFitIsRefusedWithTheCount) {
  try {
    place_ranks(four_nodes_of(2), 6, 2);
    FAIL() << "6 workers and 2 server nodes fit in 4 nodes of 2";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--workers 6 with 2 server nodes needs 5 nodes of 2 tasks, but the allocation "
                 "(job 9) has 4");
  }
}

TEST(SrunCommand, PmixArbitraryPlacementAndAGpuATaskWhenThereAreGpus) {
  SlurmAllocation a = four_nodes_of(2);
  const SlurmPlacement p = place_ranks(a, 3, 1);
  EXPECT_EQ(srun_command(a, p, MpiFamily::openmpi),
            (std::vector<std::string>{"srun", "--mpi=pmix", "--distribution=arbitrary", "--nodes",
                                      "3", "--ntasks", "4", "--kill-on-bad-exit=1"}));
  a.gpus_per_node = 2;
  EXPECT_EQ(srun_command(a, p, MpiFamily::openmpi).back(), "--gpus-per-task=1");
}

TEST(SrunCommand, MpichsFamilySpeaksPmi2) {
  const SlurmAllocation a = four_nodes_of(2);
  EXPECT_EQ(srun_command(a, place_ranks(a, 3, 1), MpiFamily::mpich)[1], "--mpi=pmi2");
}

}  // namespace
}  // namespace gradsync
