#pragma once
// The choice of this rank's GPU (over the GPU floor's gpu/device.h), for the
// strategies and workers that need one.

#include <string>

#include "strategies/core/world.h"

namespace gradsync {

// What a rank asks of the placement.
struct GpuNeed {
  // False: a rank that only serves (dedicated parameter-server ranks) takes
  // no GPU and may run on a host without one.
  bool needs_gpu = true;
  // Non-empty: the strategy, named in the refusal, that needs a GPU of its
  // own on every rank (NCCL); empty: ranks may share a GPU (host-staged
  // strategies, which CUDA lets several processes share).
  std::string exclusive_for;
};

// This rank's GPU and how it was chosen (gpu_placement.h's source, with
// "; shared by N ranks" when others use it too); ordinal -1: none.
struct LocalGpu {
  int ordinal = -1;
  std::string source;
};

// Collective over `world`. Places this rank (place_gpu: the one GPU visible
// to it, else its position on the node among the ranks that need one, modulo
// the visible GPUs), makes the GPU the calling thread's device, and checks
// over every rank that no two share one when `need.exclusive_for` says so.
// Throws one line when no GPU is visible, or on every rank when ranks would
// share a GPU the strategy needs alone (gpu_sharing_error). Returns ordinal
// -1 when !need.needs_gpu. In builds without CUDA, every rank throws the
// floor's "not built in" line when any needs a GPU.
LocalGpu place_local_gpu(const World& world, const GpuNeed& need = {});

// place_local_gpu's ordinal. gpu_name(ordinal) (gpu/device.h) names it.
int select_local_gpu(const World& world, const GpuNeed& need = {});

}  // namespace gradsync
