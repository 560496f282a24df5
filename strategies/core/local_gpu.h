#pragma once
// The choice of this rank's GPU (over the GPU floor's gpu/device.h), for the
// strategies and workers that need one.

#include "strategies/core/world.h"

namespace gradsync {

// The GPU this rank uses, one GPU per rank on each host: among the ranks of
// its host that need one, the k-th takes GPU k (so dedicated parameter-server
// ranks, which pass needs_gpu false, use none and may run on hosts without
// GPUs). Collective over `world`. Throws, naming the host and the counts,
// when no GPU is visible or the host has fewer GPUs than ranks needing one
// (choose_local_gpu). Makes it the calling thread's device; returns -1 when
// !needs_gpu. gpu_name(ordinal) (gpu/device.h) names it.
int select_local_gpu(const World& world, bool needs_gpu = true);

}  // namespace gradsync
