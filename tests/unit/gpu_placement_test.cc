// Which GPU a rank takes (strategies/core/gpu_placement.h), on the CPU: each
// case states what CUDA shows the rank, the World's counts and what the
// scheduler or launcher put in its environment.
#include "strategies/core/gpu_placement.h"

#include <gtest/gtest.h>

#include <map>

namespace gradsync {
namespace {

using Env = std::map<std::string, std::string>;

GpuEnvironment environment(const Env& vars) {
  return gpu_environment([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

// Rank `index` of `on_host` ranks on host "n1", every one needing a GPU,
// seeing `visible` GPUs, in environment `vars`.
GpuPlacement place(int visible, int index, int on_host, const Env& vars = {}) {
  return place_gpu({.host = "n1",
                    .visible_gpus = visible,
                    .no_gpu_reason = visible ? "" : "CUDA reports no devices",
                    .index = index,
                    .on_host = on_host,
                    .host_ranks = on_host,
                    .env = environment(vars)});
}

TEST(GpuPlacement, NoVisibleGpuIsOneLineNamingTheHostAndCudasReason) {
  const GpuPlacement p = place(0, 0, 1, {{"CUDA_VISIBLE_DEVICES", ""}});
  EXPECT_EQ(p.ordinal, -1);
  EXPECT_EQ(p.error, "no GPU visible on n1 (CUDA reports no devices, CUDA_VISIBLE_DEVICES=)");
}

TEST(GpuPlacement, SlurmGpusPerTaskShowsEachTaskOneGpuAsOrdinalZero) {
  // srun --gpus-per-task=1, 4 tasks on the node: task 3 sees only its GPU.
  const GpuPlacement p = place(1, 3, 4,
                               {{"SLURM_LOCALID", "3"},
                                {"SLURM_STEP_TASKS_PER_NODE", "4"},
                                {"SLURM_STEP_GPUS", "3"},
                                {"CUDA_VISIBLE_DEVICES", "0"}});
  EXPECT_EQ(p.ordinal, 0);
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(p.source, "the one GPU visible to this rank (CUDA_VISIBLE_DEVICES=0)");
}

TEST(GpuPlacement, OneGpuFromSlurmWithoutCudaVisibleDevicesNamesSlurmsGpus) {
  const GpuPlacement p = place(1, 1, 2, {{"SLURM_LOCALID", "1"}, {"SLURM_JOB_GPUS", "5"}});
  EXPECT_EQ(p.ordinal, 0);
  EXPECT_EQ(p.source, "the one GPU visible to this rank (Slurm: 5)");
}

TEST(GpuPlacement, SlurmGpusPerNodeShowsEveryTaskTheNodesGpusAndLocalIdPicks) {
  // srun --gpus-per-node=4 (no per-task binding): every task sees the 4.
  const Env slurm = {{"SLURM_LOCALID", "2"},
                     {"SLURM_STEP_TASKS_PER_NODE", "4(x2)"},
                     {"SLURM_NODEID", "1"},
                     {"SLURM_STEP_GPUS", "4,5,6,7"},
                     {"CUDA_VISIBLE_DEVICES", "4,5,6,7"}};
  const GpuPlacement p = place(4, 2, 4, slurm);
  EXPECT_EQ(p.ordinal, 2);
  EXPECT_EQ(
      p.source,
      "SLURM_LOCALID=2 of 4 task(s) on the node; 4 GPUs visible (CUDA_VISIBLE_DEVICES=4,5,6,7: "
      "device 6)");
}

TEST(GpuPlacement, OpenMpisLocalRankPicksAmongTheNodesGpus) {
  const GpuPlacement p =
      place(8, 5, 8, {{"OMPI_COMM_WORLD_LOCAL_RANK", "5"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "8"}});
  EXPECT_EQ(p.ordinal, 5);
  EXPECT_EQ(p.source, "OMPI_COMM_WORLD_LOCAL_RANK=5 of 8 rank(s) on the node; 8 GPUs visible");
}

TEST(GpuPlacement, MpichsLocalRankIdPicksToo) {
  const GpuPlacement p = place(2, 1, 2, {{"MPI_LOCALRANKID", "1"}, {"MPI_LOCALNRANKS", "2"}});
  EXPECT_EQ(p.ordinal, 1);
  EXPECT_EQ(p.source, "MPI_LOCALRANKID=1 of 2 rank(s) on the node; 2 GPUs visible");
}

TEST(GpuPlacement, WithoutLauncherFactsTheWorldsIndexPicks) {
  const GpuPlacement p = place(4, 1, 2);
  EXPECT_EQ(p.ordinal, 1);
  EXPECT_EQ(p.source, "rank 1 of the 2 on host n1 that need a GPU; 4 GPUs visible");
}

TEST(GpuPlacement, ALauncherCountThatDisagreesWithTheWorldsIsNotUsed) {
  // A dedicated server (local rank 0) needs no GPU: the World counts the
  // workers alone, so the first worker takes GPU 0, not 1.
  GpuPlacementInput in{.host = "n1", .visible_gpus = 2, .index = 0, .on_host = 2, .host_ranks = 3};
  in.env = environment({{"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "3"}});
  const GpuPlacement p = place_gpu(in);
  EXPECT_EQ(p.ordinal, 0);
  EXPECT_EQ(p.source, "rank 0 of the 2 on host n1 that need a GPU; 2 GPUs visible");
}

TEST(GpuPlacement, FewerGpusThanRanksWrapsSoThatRanksShare) {
  EXPECT_EQ(place(1, 3, 4).ordinal, 0);
  EXPECT_EQ(place(2, 2, 4).ordinal, 0);
  EXPECT_EQ(place(2, 3, 4).ordinal, 1);
  EXPECT_EQ(place(3, 3, 4).error, "");
}

TEST(GpuPlacement, CudaVisibleDevicesUuidsAreNamedByEntry) {
  const GpuPlacement p = place(2, 1, 2, {{"CUDA_VISIBLE_DEVICES", "GPU-aaaa,GPU-bbbb"}});
  EXPECT_EQ(p.ordinal, 1);
  EXPECT_EQ(p.source,
            "rank 1 of the 2 on host n1 that need a GPU; 2 GPUs visible "
            "(CUDA_VISIBLE_DEVICES=GPU-aaaa,GPU-bbbb: device GPU-bbbb)");
}

// What srun gave each of 4 tasks on 2 nodes of 2 GPUs (gres gpu:2), as
// tests/cli/cluster_slurm.sh checks Slurm gives it on the emulated nodes:
// per task "SLURM_NODEID SLURM_LOCALID CUDA_VISIBLE_DEVICES SLURM_STEP_GPUS",
// every task with SLURM_STEP_TASKS_PER_NODE=2(x2). Without device cgroups a
// task bound to GPU 1 sees CUDA_VISIBLE_DEVICES=1; with them, 0: either way
// CUDA shows it one GPU.
struct SlurmTask {
  std::string node_id, local_id, visible, step_gpus;
};
const std::vector<SlurmTask> gpus_per_task = {
    {"0", "0", "0", "0"}, {"0", "1", "1", "1"}, {"1", "0", "0", "0"}, {"1", "1", "1", "1"}};
const std::vector<SlurmTask> gpus_per_node = {{"0", "0", "0,1", "0,1"},
                                              {"0", "1", "0,1", "0,1"},
                                              {"1", "0", "0,1", "0,1"},
                                              {"1", "1", "0,1", "0,1"}};

// The device (CUDA_VISIBLE_DEVICES entry) each task of `tasks` uses, when
// CUDA shows it as many GPUs as its CUDA_VISIBLE_DEVICES names.
std::vector<std::string> devices_used(const std::vector<SlurmTask>& tasks) {
  std::vector<std::string> devices;
  for (int t = 0; t < int(tasks.size()); ++t) {
    const SlurmTask& task = tasks[t];
    const int visible = task.visible.find(',') == std::string::npos ? 1 : 2;
    const GpuPlacement p = place(visible, t % 2, 2,
                                 {{"SLURM_NODEID", task.node_id},
                                  {"SLURM_LOCALID", task.local_id},
                                  {"SLURM_STEP_TASKS_PER_NODE", "2(x2)"},
                                  {"SLURM_STEP_GPUS", task.step_gpus},
                                  {"CUDA_VISIBLE_DEVICES", task.visible}});
    EXPECT_EQ(p.error, "");
    devices.push_back(task.node_id + ":" + task.visible.substr(2 * p.ordinal, 1));
  }
  return devices;
}

TEST(GpuPlacement, SrunGpusPerTaskGivesEveryTaskOfANodeItsOwnGpu) {
  EXPECT_EQ(devices_used(gpus_per_task), (std::vector<std::string>{"0:0", "0:1", "1:0", "1:1"}));
}

TEST(GpuPlacement, SrunGpusPerNodeLetsLocalIdGiveEveryTaskItsOwnGpu) {
  EXPECT_EQ(devices_used(gpus_per_node), (std::vector<std::string>{"0:0", "0:1", "1:0", "1:1"}));
}

TEST(GpuEnvironment, ReadsSlurmsStepCountsAtThisNode) {
  const GpuEnvironment e = environment({{"SLURM_LOCALID", "1"},
                                        {"SLURM_TASKS_PER_NODE", "3,2(x2)"},
                                        {"SLURM_NODEID", "2"},
                                        {"SLURM_GPUS_ON_NODE", "2"}});
  EXPECT_EQ(e.slurm_local_id, 1);
  EXPECT_EQ(e.slurm_tasks_on_node, 2);
  EXPECT_EQ(e.slurm_gpus, "2 GPU(s) on the node");
  EXPECT_FALSE(e.cuda_visible_devices);
  EXPECT_FALSE(e.launcher_local_rank);
}

TEST(GpuEnvironment, StepGpusWinOverJobGpusAndNonCountsAreAbsent) {
  const GpuEnvironment e = environment({{"SLURM_STEP_GPUS", "1"},
                                        {"SLURM_JOB_GPUS", "0,1"},
                                        {"SLURM_LOCALID", "x"},
                                        {"PMI_LOCAL_RANK", "0"},
                                        {"PMI_LOCAL_SIZE", "-1"}});
  EXPECT_EQ(e.slurm_gpus, "1");
  EXPECT_FALSE(e.slurm_local_id);
  EXPECT_FALSE(e.launcher_local_rank);
}

TEST(SlurmTasksOn, ExpandsRepeatsAndStopsAtTheEnd) {
  EXPECT_EQ(slurm_tasks_on("4", 0), 4);
  EXPECT_EQ(slurm_tasks_on("2(x3),1", 2), 2);
  EXPECT_EQ(slurm_tasks_on("2(x3),1", 3), 1);
  EXPECT_EQ(slurm_tasks_on("2(x3),1", 4), std::nullopt);
  EXPECT_EQ(slurm_tasks_on("2(x3", 0), std::nullopt);
  EXPECT_EQ(slurm_tasks_on("", 0), std::nullopt);
}

// Ranks 0..3 on hosts a, a, b, b, with the GPU identities given.
std::vector<PlacedGpu> four_ranks(const std::vector<std::string>& ids) {
  return {{"a", 0, ids[0]}, {"a", 1, ids[1]}, {"b", 0, ids[2]}, {"b", 0, ids[3]}};
}

TEST(GpuSharing, HostStagedStrategiesMayShareAGpu) {
  const auto ranks = four_ranks({"GPU-1", "GPU-1", "GPU-2", "GPU-2"});
  EXPECT_EQ(gpu_sharing_error(ranks, ""), "");
  EXPECT_EQ(gpu_users(ranks, 0), 2);
  EXPECT_EQ(gpu_users(ranks, 3), 2);
}

TEST(GpuSharing, NcclOnASharedGpuIsRefusedInOneLine) {
  // Per-rank CUDA_VISIBLE_DEVICES that name one GPU twice: both see ordinal 0.
  const auto ranks = four_ranks({"GPU-1", "GPU-2", "GPU-3", "GPU-3"});
  EXPECT_EQ(gpu_sharing_error(ranks, "nccl-ring"),
            "nccl-ring: ranks 2 and 3 on host b would share GPU 0; NCCL needs one GPU per rank: "
            "start at most 1 rank per visible GPU or use a host-staged strategy such as ring-mpi");
}

TEST(GpuSharing, DistinctGpusAndRanksWithoutOneAreNotSharing) {
  const auto ranks = four_ranks({"GPU-1", "GPU-2", "", ""});  // b's ranks only serve
  EXPECT_EQ(gpu_sharing_error(ranks, "nccl-tree"), "");
  EXPECT_EQ(gpu_users(ranks, 0), 1);
  EXPECT_EQ(gpu_users(ranks, 2), 1);
}

TEST(GpuSharing, TheSameIdentityOnTwoHostsIsTwoGpus) {
  const std::vector<PlacedGpu> ranks = {{"a", 0, "GPU-1"}, {"b", 0, "GPU-1"}};
  EXPECT_EQ(gpu_sharing_error(ranks, "nccl-ring"), "");
}

}  // namespace
}  // namespace gradsync
