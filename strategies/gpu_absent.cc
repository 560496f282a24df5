// Builds without CUDA (see strategies/CMakeLists.txt): the GPU side of the
// strategies is absent, and every entry point says so. CUDA builds compile
// nccl.cc, staged.cc and cuda_util.cc instead.
#include <stdexcept>

#include "strategies/gpu_strategies.h"

namespace gradsync {
namespace {

const char* const kNotBuilt =
    "not built (this build has no CUDA/NCCL: configured with GRADSYNC_CUDA=OFF, or no CUDA "
    "toolkit with NCCL and cuDNN was found)";

[[noreturn]] void not_built(const std::string& what) {
  throw std::runtime_error(what + ": " + kNotBuilt);
}

}  // namespace

Availability nccl_availability() { return {false, kNotBuilt}; }

std::unique_ptr<Strategy> make_nccl_ring(const World&, const StrategyOptions&) {
  not_built("nccl-ring");
}

std::unique_ptr<Strategy> make_nccl_tree(const World&, const StrategyOptions&) {
  not_built("nccl-tree");
}

std::unique_ptr<Strategy> make_staged(std::unique_ptr<Strategy> inner, MemoryKind) {
  not_built(std::string(inner->name()) + " on device buffers");
}

std::string gpu_name(int) { not_built("GPU names"); }

int select_local_gpu(const World& world, bool needs_gpu) {
  const auto needs = world.allgather(needs_gpu ? "1" : "0");  // collective, as in CUDA builds
  for (const auto& n : needs)
    if (n == "1") not_built("GPU selection");
  return -1;
}

}  // namespace gradsync
