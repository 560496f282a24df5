#pragma once
// The Slurm allocation a sweep runs in (sbatch or salloc), and where each run
// of the sweep puts its ranks in it.
//
// The allocation comes from the environment Slurm gives the batch script:
// SLURM_JOB_ID, SLURM_JOB_NODELIST (expanded by Slurm's own `scontrol show
// hostnames`), the tasks a node takes (SLURM_NTASKS_PER_NODE when the job
// asked for it, else the first count of SLURM_TASKS_PER_NODE, "4(x2),2") and
// its GPUs (SLURM_GPUS_PER_NODE, "4" or "a100:4"; SLURM_GPUS_ON_NODE).
//
// Placement, as scaling studies count nodes: n workers fill whole nodes
// first (ceil(n / tasks per node) nodes, the fewest that hold them, tasks
// spread evenly over them), and each of K dedicated parameter-server ranks
// (ps-zmq --ps-placement dedicated, ranks [0, K)) gets a node of its own
// after them, so that a server's links carry only its own traffic, as
// BytePS's server machines. The ranks' hosts are written one a line for
// srun --distribution=arbitrary (SLURM_HOSTFILE), and each task gets one
// GPU when the allocation has GPUs.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/cli/mpi_launch.h"

namespace gradsync {

struct SlurmAllocation {
  std::string job_id;
  std::vector<std::string> nodes;  // in the allocation's order
  int tasks_per_node = 1;
  int gpus_per_node = 0;  // 0: no GPUs allocated
};

// The allocation described by `env` (a getenv; nullptr for unset), with
// `expand` turning SLURM_JOB_NODELIST into node names. Throws
// std::invalid_argument with one line when `env` is not an allocation's.
SlurmAllocation slurm_allocation(const std::function<const char*(const char*)>& env,
                                 const std::function<std::vector<std::string>(const std::string&)>& expand);

// Where one run's ranks go: rank_hosts[r] is the node of world rank r.
struct SlurmPlacement {
  std::vector<std::string> rank_hosts;
  int worker_nodes = 0;
  int server_nodes = 0;
};

// `workers` workers and `servers` dedicated server ranks (ranks [0, servers))
// in `allocation`; throws std::invalid_argument when they do not fit
// ("--workers 16 with 2 server nodes needs 6 nodes of 4 tasks, but the
// allocation has 4").
SlurmPlacement place_ranks(const SlurmAllocation& allocation, int workers, int servers);

// The srun command that starts the run's ranks where `placement` says,
// speaking the PMI of `family`'s library; the caller sets SLURM_HOSTFILE to
// a file holding hostfile_text(placement).
std::vector<std::string> srun_command(const SlurmAllocation& allocation,
                                      const SlurmPlacement& placement, MpiFamily family);

// The ranks' hosts (SlurmPlacement::rank_hosts), one a line, for SLURM_HOSTFILE.
std::string hostfile_text(const std::vector<std::string>& rank_hosts);

}  // namespace gradsync
