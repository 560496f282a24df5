// place_local_gpu over a real World: a rank that needs no GPU (a dedicated
// server) takes none, a rank whose placement fails still joins the ranks'
// gather, so that no rank waits for another, and only that rank throws.
#include "strategies/core/local_gpu.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "gpu/build.h"
#include "gpu/probe.h"

namespace gradsync {
namespace {

// What place_local_gpu did on this rank: "-1", "ordinal N" or the error.
std::string outcome(const World& world, const GpuNeed& need) {
  try {
    const LocalGpu gpu = place_local_gpu(world, need);
    return gpu.ordinal < 0 ? "-1" : "ordinal " + std::to_string(gpu.ordinal);
  } catch (const std::exception& e) {
    return e.what();
  }
}

TEST(PlaceLocalGpu, RankZeroServesAndTheOthersNeedAGpu) {
  World world;
  const std::string got = outcome(world, {.needs_gpu = world.rank() != 0});
  const GpuProbe probe = probe_gpus();
  if (!gpu_built()) {
    // Any rank's need makes every rank fail alike.
    if (world.size() > 1)
      EXPECT_EQ(got, "GPU selection: " + not_built_reason());
    else
      EXPECT_EQ(got, "-1");
  } else if (world.rank() == 0) {
    EXPECT_EQ(got, "-1");
  } else if (probe.visible_gpus == 0) {
    EXPECT_EQ(
        got, "no GPU visible on " + world.hostname() + " (" + probe.no_gpu_reason +
                 (std::getenv("CUDA_VISIBLE_DEVICES")
                      ? ", CUDA_VISIBLE_DEVICES=" + std::string(std::getenv("CUDA_VISIBLE_DEVICES"))
                      : "") +
                 ")");
  } else {
    EXPECT_EQ(got.rfind("ordinal ", 0), 0u) << got;  // host-staged: ranks may share
  }
  // Every rank got here: a second collective over the same World completes.
  EXPECT_EQ(world.allgather("x").size(), std::size_t(world.size()));
}

}  // namespace
}  // namespace gradsync
