// Both builds: the ranks of each host that need a GPU are counted over the
// World, and the floor picks the GPU (choose_local_gpu).
#include "strategies/core/local_gpu.h"

#include "gpu/build.h"
#include "gpu/device.h"

namespace gradsync {

int select_local_gpu(const World& world, bool needs_gpu) {
  const auto needs = world.allgather(needs_gpu ? "1" : "0");
  if constexpr (!gpu_built()) {
    // Every rank fails together when any needs a GPU, so that none waits
    // for the others in a collective that will not come.
    for (const auto& n : needs)
      if (n == "1") throw_not_built("GPU selection");
  }
  // This rank's index among the ranks of its host that need a GPU.
  int index = 0, on_host = 0;
  for (int r = 0; r < world.size(); ++r) {
    if (world.hostnames()[r] != world.hostname() || needs[r] != "1") continue;
    if (r < world.rank()) ++index;
    ++on_host;
  }
  if (!needs_gpu) return -1;
  return choose_local_gpu(world.hostname(), index, on_host);
}

}  // namespace gradsync
