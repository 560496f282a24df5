// Both builds: the ranks of each host that need a GPU are counted over the
// World, each rank places itself (place_gpu) from that count and what it was
// handed, and a second gather shows every rank which GPU each uses.
#include "strategies/core/local_gpu.h"

#include <fmt/format.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "gpu/build.h"
#include "gpu/device.h"
#include "gpu/probe.h"
#include "strategies/core/gpu_placement.h"

namespace gradsync {
namespace {

// This rank's placement from the World's counts and its environment.
GpuPlacement place_this_rank(const World& world, const std::vector<std::string>& needs) {
  GpuPlacementInput in;
  in.host = world.hostname();
  in.on_host = in.host_ranks = 0;
  for (int r = 0; r < world.size(); ++r) {
    if (world.hostnames()[r] != world.hostname()) continue;
    ++in.host_ranks;
    if (needs[r] != "1") continue;
    if (r < world.rank()) ++in.index;
    ++in.on_host;
  }
  const GpuProbe gpus = probe_gpus();
  in.visible_gpus = gpus.visible_gpus;
  in.no_gpu_reason = gpus.no_gpu_reason;
  in.env = gpu_environment([](const char* name) { return std::getenv(name); });
  return place_gpu(in);
}

// Every rank's GPU, from the gathered "ordinal identity" of each ("-1" for
// a rank without one).
std::vector<PlacedGpu> placed_gpus(const World& world, const std::vector<std::string>& gathered) {
  std::vector<PlacedGpu> ranks(gathered.size());
  for (std::size_t r = 0; r < gathered.size(); ++r) {
    ranks[r].host = world.hostnames()[r];
    std::istringstream(gathered[r]) >> ranks[r].ordinal >> ranks[r].identity;
  }
  return ranks;
}

}  // namespace

LocalGpu place_local_gpu(const World& world, const GpuNeed& need) {
  const auto needs = world.allgather(need.needs_gpu ? "1" : "0");
  if constexpr (!gpu_built()) {
    // Every rank fails together when any needs a GPU, so that none waits
    // for the others in a collective that will not come.
    for (const auto& n : needs)
      if (n == "1") throw_not_built("GPU selection");
    return {};
  }
  GpuPlacement placed;
  std::string identity;
  if (need.needs_gpu) placed = place_this_rank(world, needs);
  if (placed.ordinal >= 0) {
    try {
      use_device(placed.ordinal);
      identity = gpu_identity(placed.ordinal);
    } catch (const std::exception& e) {
      placed = {.error = e.what()};
    }
  }
  // Every rank joins, a failed one too, so that none waits for another.
  const auto ranks = placed_gpus(
      world, world.allgather(placed.error.empty() ? fmt::format("{} {}", placed.ordinal, identity)
                                                  : std::string("-1")));
  if (!placed.error.empty()) throw std::runtime_error(placed.error);
  // The same on every rank, so that every rank throws it.
  if (const auto shared = gpu_sharing_error(ranks, need.exclusive_for); !shared.empty())
    throw std::runtime_error(shared);
  if (placed.ordinal < 0) return {};
  const int users = gpu_users(ranks, world.rank());
  return {placed.ordinal,
          placed.source + (users > 1 ? fmt::format("; shared by {} ranks", users) : "")};
}

int select_local_gpu(const World& world, const GpuNeed& need) {
  return place_local_gpu(world, need).ordinal;
}

}  // namespace gradsync
