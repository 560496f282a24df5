#pragma once
// Which GPU a rank uses, decided from what the rank was handed (the GPUs CUDA
// shows it, the scheduler's or launcher's facts about its place on the node)
// and from the World's count of the host's ranks that need a GPU. Pure and
// CUDA-free: select_local_gpu (local_gpu.h) gathers the inputs and acts on
// the answer; the unit tests state visible-device sets and environments.

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gradsync {

// What the launcher and the scheduler told this process, read once from its
// environment (gpu_environment). Absent values are nullopt.
struct GpuEnvironment {
  // CUDA_VISIBLE_DEVICES as set ("2,3", "GPU-8f2c...", "" for none).
  std::optional<std::string> cuda_visible_devices;
  // Slurm: this task's index on its node (SLURM_LOCALID), the tasks the
  // step runs on this node (SLURM_STEP_TASKS_PER_NODE or SLURM_TASKS_PER_NODE
  // at SLURM_NODEID) and the GPUs it gave (SLURM_STEP_GPUS, else
  // SLURM_JOB_GPUS, e.g. "0,1"; else SLURM_GPUS_ON_NODE's count).
  std::optional<int> slurm_local_id;
  std::optional<int> slurm_tasks_on_node;
  std::optional<std::string> slurm_gpus;
  // mpirun: this rank's index and the ranks on its node
  // (OMPI_COMM_WORLD_LOCAL_RANK/LOCAL_SIZE; MPICH's MPI_LOCALRANKID/
  // MPI_LOCALNRANKS, or PMI_LOCAL_RANK/PMI_LOCAL_SIZE).
  std::optional<int> launcher_local_rank;
  std::optional<int> launcher_local_size;
  std::string launcher_rank_name;  // the variable it came from, for the source
};

// The facts of `env` (a getenv: nullptr for unset). Values that are not
// counts (SLURM_LOCALID=x) are left absent.
GpuEnvironment gpu_environment(const std::function<const char*(const char*)>& env);

// The tasks on node `node_id` of a Slurm tasks-per-node list ("2(x3),1");
// nullopt when the list does not reach that node or is not such a list.
std::optional<int> slurm_tasks_on(const std::string& tasks_per_node, int node_id);

struct GpuPlacementInput {
  std::string host;
  int visible_gpus = 0;       // as CUDA reports them to this rank
  std::string no_gpu_reason;  // CUDA's words when none is
  int index = 0;              // among the host's ranks that need a GPU (World)
  int on_host = 1;            // the host's ranks that need a GPU
  int host_ranks = 1;         // all the World's ranks on the host
  GpuEnvironment env;
};

// The GPU chosen, and how (e.g. "the one GPU visible to this rank
// (CUDA_VISIBLE_DEVICES=3)"), or why none can be: error is one line and
// ordinal -1.
struct GpuPlacement {
  int ordinal = -1;
  std::string source;
  std::string error;
};

// Places one rank: the one visible GPU when CUDA shows one; else the rank's
// position on the node (Slurm's SLURM_LOCALID, mpirun's local rank, or the
// World's index, the launcher's only when its count agrees with the World's)
// modulo the visible GPUs, so that ranks beyond the GPUs share them. Whether
// ranks may share is decided over all ranks (gpu_sharing_error).
GpuPlacement place_gpu(const GpuPlacementInput& in);

// One rank's GPU as every rank sees it: its host, ordinal and the GPU's
// identity (its UUID; empty when the rank has none).
struct PlacedGpu {
  std::string host;
  int ordinal = -1;
  std::string identity;
};

// Empty when no two ranks share a GPU or `exclusive_for` is empty (the
// strategy lets ranks share); else one line naming the strategy, the first
// two world ranks that would share, the host and the GPU, and what to do.
std::string gpu_sharing_error(const std::vector<PlacedGpu>& ranks,
                              const std::string& exclusive_for);

// How many ranks use the GPU of `rank` (1 when it has it alone).
int gpu_users(const std::vector<PlacedGpu>& ranks, int rank);

}  // namespace gradsync
