#include "strategies/core/gpu_placement.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <sstream>

namespace gradsync {
namespace {

std::optional<int> count_of(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// Where the rank stands among the ranks of its node that share its visible
// GPUs, and who said so.
struct NodePosition {
  int index = 0;
  int count = 1;
  std::string source;
};

// The scheduler's or launcher's local rank when it counts the same ranks as
// the World does on this host (every rank of the host needs a GPU, and the
// counts agree), so that dedicated server ranks and sub-worlds, which the
// launcher does not know of, fall back to the World's count.
NodePosition node_position(const GpuPlacementInput& in) {
  const GpuEnvironment& env = in.env;
  const bool all_need = in.on_host == in.host_ranks;
  if (all_need && env.slurm_local_id && env.slurm_tasks_on_node == in.host_ranks &&
      *env.slurm_local_id < in.host_ranks)
    return {*env.slurm_local_id, in.host_ranks,
            fmt::format("SLURM_LOCALID={} of {} task(s) on the node", *env.slurm_local_id,
                        in.host_ranks)};
  if (all_need && env.launcher_local_rank && env.launcher_local_size == in.host_ranks &&
      *env.launcher_local_rank < in.host_ranks)
    return {*env.launcher_local_rank, in.host_ranks,
            fmt::format("{}={} of {} rank(s) on the node", env.launcher_rank_name,
                        *env.launcher_local_rank, in.host_ranks)};
  return {
      in.index, in.on_host,
      fmt::format("rank {} of the {} on host {} that need a GPU", in.index, in.on_host, in.host)};
}

// Entry `ordinal` of a CUDA_VISIBLE_DEVICES list, empty when it has none.
std::string visible_entry(const std::string& list, int ordinal) {
  std::istringstream entries(list);
  std::string entry;
  for (int i = 0; std::getline(entries, entry, ','); ++i)
    if (i == ordinal) return entry;
  return "";
}

}  // namespace

GpuEnvironment gpu_environment(const std::function<const char*(const char*)>& env) {
  auto text = [&](const char* name) -> std::optional<std::string> {
    const char* value = env(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  auto count = [&](const char* name) { return count_of(text(name).value_or("")); };
  auto first_of = [&](const char* name, const char* otherwise) {
    return text(name) ? text(name) : text(otherwise);
  };
  GpuEnvironment out;
  out.cuda_visible_devices = text("CUDA_VISIBLE_DEVICES");
  out.slurm_local_id = count("SLURM_LOCALID");
  const auto tasks = first_of("SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE");
  if (tasks) out.slurm_tasks_on_node = slurm_tasks_on(*tasks, count("SLURM_NODEID").value_or(0));
  out.slurm_gpus = first_of("SLURM_STEP_GPUS", "SLURM_JOB_GPUS");
  if (!out.slurm_gpus && count("SLURM_GPUS_ON_NODE"))
    out.slurm_gpus = *text("SLURM_GPUS_ON_NODE") + " GPU(s) on the node";
  // Open MPI, then MPICH's Hydra, then PMI's own names.
  for (const auto& [rank, size] :
       {std::pair{"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
        std::pair{"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
        std::pair{"PMI_LOCAL_RANK", "PMI_LOCAL_SIZE"}}) {
    if (!count(rank) || !count(size)) continue;
    out.launcher_local_rank = count(rank);
    out.launcher_local_size = count(size);
    out.launcher_rank_name = rank;
    break;
  }
  return out;
}

std::optional<int> slurm_tasks_on(const std::string& tasks_per_node, int node_id) {
  std::istringstream entries(tasks_per_node);
  std::string entry;
  int node = 0;
  while (std::getline(entries, entry, ',')) {
    const auto paren = entry.find("(x");
    const auto tasks = count_of(std::string_view(entry).substr(0, paren));
    std::optional<int> repeat = 1;
    if (paren != std::string::npos) {
      if (entry.back() != ')') return std::nullopt;
      repeat = count_of(std::string_view(entry).substr(paren + 2, entry.size() - paren - 3));
    }
    if (!tasks || !repeat) return std::nullopt;
    if (node_id < node + *repeat) return tasks;
    node += *repeat;
  }
  return std::nullopt;
}

GpuPlacement place_gpu(const GpuPlacementInput& in) {
  GpuPlacement out;
  const auto& visible = in.env.cuda_visible_devices;
  if (in.visible_gpus <= 0) {
    out.error = fmt::format("no GPU visible on {} ({}{})", in.host, in.no_gpu_reason,
                            visible ? ", CUDA_VISIBLE_DEVICES=" + *visible : "");
    return out;
  }
  // A scheduler that binds GPUs per task (srun --gpus-per-task=1), or a
  // CUDA_VISIBLE_DEVICES per rank, shows each rank its own GPU as ordinal 0.
  if (in.visible_gpus == 1) {
    out.ordinal = 0;
    out.source = "the one GPU visible to this rank";
    if (visible)
      out.source += " (CUDA_VISIBLE_DEVICES=" + *visible + ")";
    else if (in.env.slurm_gpus)
      out.source += " (Slurm: " + *in.env.slurm_gpus + ")";
    return out;
  }
  const NodePosition position = node_position(in);
  out.ordinal = position.index % in.visible_gpus;
  out.source = fmt::format("{}; {} GPUs visible", position.source, in.visible_gpus);
  if (visible && !visible_entry(*visible, out.ordinal).empty())
    out.source += fmt::format(" (CUDA_VISIBLE_DEVICES={}: device {})", *visible,
                              visible_entry(*visible, out.ordinal));
  return out;
}

std::string gpu_sharing_error(const std::vector<PlacedGpu>& ranks,
                              const std::string& exclusive_for) {
  if (exclusive_for.empty()) return "";
  for (std::size_t i = 0; i < ranks.size(); ++i)
    for (std::size_t j = i + 1; j < ranks.size(); ++j)
      if (!ranks[i].identity.empty() && ranks[i].identity == ranks[j].identity &&
          ranks[i].host == ranks[j].host)
        return fmt::format(
            "{}: ranks {} and {} on host {} would share GPU {}; NCCL needs one GPU per rank: start "
            "at most 1 rank per visible GPU or use a host-staged strategy such as ring-mpi",
            exclusive_for, i, j, ranks[i].host, ranks[i].ordinal);
  return "";
}

int gpu_users(const std::vector<PlacedGpu>& ranks, int rank) {
  int users = 0;
  for (const auto& other : ranks)
    users += !other.identity.empty() && other.identity == ranks[rank].identity &&
             other.host == ranks[rank].host;
  return std::max(users, 1);
}

}  // namespace gradsync
