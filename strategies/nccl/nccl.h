#pragma once
// `nccl-ring` and `nccl-tree`, and the sharded `zero2-nccl` and `zero3-nccl`
// (nccl_cuda.cc, CUDA builds only): in other builds the factories throw the
// GPU floor's "not built" line and the availability gives its reason.

#include <memory>

#include "gpu/build.h"
#include "strategies/core/availability.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

// CUDA builds only (called under `if constexpr (gpu_built())`, see gpu/build.h).
namespace cuda {
// nccl-tree when `tree`, else nccl-ring.
std::unique_ptr<Strategy> make_nccl(const World& world, const StrategyOptions& options, bool tree);
// zero2-nccl (Sharding::optimizer_state) or zero3-nccl (Sharding::parameters).
std::unique_ptr<Strategy> make_nccl_sharded(const World& world, const StrategyOptions& options,
                                            Sharding sharding);
}  // namespace cuda

// Usable when built with NCCL and a GPU is visible; otherwise the detail says
// "built, no GPU visible (...)" or "not built in (...)".
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

// The table's factories for zero2-nccl and zero3-nccl.
template <Sharding sharding>
std::unique_ptr<Strategy> make_nccl_sharded(const World& world, const StrategyOptions& options) {
  if constexpr (gpu_built())
    return cuda::make_nccl_sharded(world, options, sharding);
  else
    throw_not_built(sharding == Sharding::parameters ? "zero3-nccl" : "zero2-nccl");
}
inline constexpr auto make_zero2_nccl = &make_nccl_sharded<Sharding::optimizer_state>;
inline constexpr auto make_zero3_nccl = &make_nccl_sharded<Sharding::parameters>;

}  // namespace gradsync
