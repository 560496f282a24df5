#include "harness/cli/slurm_allocation.h"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>

#include "harness/engine/counted.h"

namespace gradsync {
namespace {

// The leading whole number of `text` ("4(x2),2" -> 4, "a100:4" after the
// colon -> 4); nullopt when there is none or it is not positive.
std::optional<int> leading_count(std::string text) {
  if (const auto colon = text.rfind(':'); colon != std::string::npos) text = text.substr(colon + 1);
  std::size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || n < 1) return std::nullopt;
  return n;
}

}  // namespace

SlurmAllocation slurm_allocation(
    const std::function<const char*(const char*)>& env,
    const std::function<std::vector<std::string>(const std::string&)>& expand) {
  auto get = [&](const char* name) -> std::string {
    const char* value = env(name);
    return value ? value : "";
  };
  SlurmAllocation a;
  a.job_id = get("SLURM_JOB_ID");
  const std::string nodelist = get("SLURM_JOB_NODELIST");
  if (a.job_id.empty() || nodelist.empty())
    throw std::invalid_argument(
        "--launcher srun: not inside a Slurm allocation (no SLURM_JOB_ID or SLURM_JOB_NODELIST); "
        "run the sweep from a batch script (scripts/slurm/sweep.sbatch) or salloc");
  a.nodes = expand(nodelist);
  if (a.nodes.empty())
    throw std::invalid_argument("--launcher srun: the allocation's node list '" + nodelist +
                                "' names no node");
  std::optional<int> tasks = leading_count(get("SLURM_NTASKS_PER_NODE"));
  if (!tasks) tasks = leading_count(get("SLURM_TASKS_PER_NODE"));
  if (!tasks)
    throw std::invalid_argument(
        "--launcher srun: the allocation does not say how many tasks a node takes (neither "
        "SLURM_NTASKS_PER_NODE nor SLURM_TASKS_PER_NODE); give sbatch --ntasks-per-node");
  a.tasks_per_node = *tasks;
  std::optional<int> gpus = leading_count(get("SLURM_GPUS_PER_NODE"));
  if (!gpus) gpus = leading_count(get("SLURM_GPUS_ON_NODE"));
  a.gpus_per_node = gpus.value_or(0);
  // One GPU a task: a node takes no more tasks than it has GPUs.
  if (a.gpus_per_node > 0) a.tasks_per_node = std::min(a.tasks_per_node, a.gpus_per_node);
  return a;
}

SlurmPlacement place_ranks(const SlurmAllocation& a, int workers, int servers) {
  SlurmPlacement p;
  p.worker_nodes = (workers + a.tasks_per_node - 1) / a.tasks_per_node;
  p.server_nodes = servers;
  const int needed = p.worker_nodes + p.server_nodes;
  if (needed > static_cast<int>(a.nodes.size()))
    throw std::invalid_argument(fmt::format(
        "--workers {}{} needs {} of {}, but the allocation (job {}) has {}", workers,
        servers ? fmt::format(" with {}", counted(servers, "server node")) : std::string(),
        counted(needed, "node"), counted(a.tasks_per_node, "task"), a.job_id, a.nodes.size()));
  for (int s = 0; s < servers; ++s) p.rank_hosts.push_back(a.nodes[p.worker_nodes + s]);
  // Workers spread evenly: the first (workers % nodes) nodes take one more.
  const int base = workers / p.worker_nodes, extra = workers % p.worker_nodes;
  for (int node = 0; node < p.worker_nodes; ++node)
    for (int t = 0; t < base + (node < extra ? 1 : 0); ++t) p.rank_hosts.push_back(a.nodes[node]);
  return p;
}

std::vector<std::string> srun_command(const SlurmAllocation& a, const SlurmPlacement& p,
                                      MpiFamily family) {
  const int ranks = static_cast<int>(p.rank_hosts.size());
  std::vector<std::string> argv = {
      "srun", srun_mpi_flag(family), "--distribution=arbitrary",
      // Exactly the nodes the hostfile names, and one failing rank ends the step.
      "--nodes", std::to_string(p.worker_nodes + p.server_nodes), "--ntasks", std::to_string(ranks),
      "--kill-on-bad-exit=1"};
  if (a.gpus_per_node > 0) argv.push_back("--gpus-per-task=1");
  return argv;
}

std::string hostfile_text(const std::vector<std::string>& rank_hosts) {
  std::string text;
  for (const auto& host : rank_hosts) text += host + "\n";
  return text;
}

}  // namespace gradsync
