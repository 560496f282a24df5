#pragma once
// The GPU side of the strategies: `nccl-ring` and `nccl-tree` (nccl_cuda.cc),
// the staging decorator that lets any strategy take buffers in the other kind
// of memory (staged_cuda.cc), and the choice of this rank's GPU
// (gpu_strategies.cc, over the GPU floor's gpu/device.h). The *_cuda.cc files
// are compiled in CUDA builds only; in other builds the factories below throw
// the GPU floor's "not built" line and the availability gives its reason.

#include <memory>
#include <string>

#include "gpu/build.h"
#include "gpu/device.h"
#include "strategies/registry.h"

namespace gradsync {

// CUDA builds only (called under `if constexpr (gpu_built())`, see gpu/build.h).
namespace cuda {
// nccl-tree when `tree`, else nccl-ring.
std::unique_ptr<Strategy> make_nccl(const World& world, const StrategyOptions& options, bool tree);
std::unique_ptr<Strategy> make_staged(std::unique_ptr<Strategy> inner, MemoryKind buffers);
}  // namespace cuda

// nccl-ring and nccl-tree: usable when built with NCCL and a GPU is visible;
// otherwise the detail says "built, no GPU visible (...)" or "not built in (...)".
Availability nccl_availability();

// The table's factories for nccl-ring and nccl-tree.
template <bool tree>
std::unique_ptr<Strategy> make_nccl(const World& world, const StrategyOptions& options) {
  if constexpr (gpu_built())
    return cuda::make_nccl(world, options, tree);
  else
    throw_not_built(tree ? "nccl-tree" : "nccl-ring");
}
inline constexpr auto make_nccl_ring = &make_nccl<false>;
inline constexpr auto make_nccl_tree = &make_nccl<true>;

// Wraps `inner` (which does not accept `buffers`) so that it takes buffers in
// `buffers` memory: each call copies the buffer into a staging buffer in the
// memory `inner` accepts (pinned host memory, or device memory), runs `inner`
// there and copies the result back. The copies' time is staging_seconds().
inline std::unique_ptr<Strategy> make_staged(std::unique_ptr<Strategy> inner, MemoryKind buffers) {
  if constexpr (gpu_built())
    return cuda::make_staged(std::move(inner), buffers);
  else
    throw_not_built(std::string(inner->name()) + " on device buffers");
}

// The GPU this rank uses, one GPU per rank on each host: among the ranks of
// its host that need one, the k-th takes GPU k (so dedicated parameter-server
// ranks, which pass needs_gpu false, use none and may run on hosts without
// GPUs). Collective over `world`. Throws, naming the host and the counts,
// when no GPU is visible or the host has fewer GPUs than ranks needing one
// (choose_local_gpu). Makes it the calling thread's device; returns -1 when
// !needs_gpu. gpu_name(ordinal) (gpu/device.h) names it.
int select_local_gpu(const World& world, bool needs_gpu = true);

}  // namespace gradsync
