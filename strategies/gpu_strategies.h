#pragma once
// The GPU side of the strategies: `nccl-ring` and `nccl-tree` (nccl.cc), the
// staging decorator that lets any strategy take buffers in the other kind of
// memory (staged.cc), and the choice of this rank's GPU (cuda_util.cc). CUDA
// builds compile those files; builds without CUDA compile gpu_absent.cc
// instead, where the factories throw and the availability says why.

#include <memory>
#include <string>

#include "strategies/registry.h"

namespace gradsync {

// nccl-ring and nccl-tree: usable when built with NCCL and a GPU is visible;
// otherwise the detail says "built, no GPU visible (...)" or "not built (...)".
Availability nccl_availability();
std::unique_ptr<Strategy> make_nccl_ring(const World& world, const StrategyOptions& options);
std::unique_ptr<Strategy> make_nccl_tree(const World& world, const StrategyOptions& options);

// Wraps `inner` (which does not accept `buffers`) so that it takes buffers in
// `buffers` memory: each call copies the buffer into a staging buffer in the
// memory `inner` accepts (pinned host memory, or device memory), runs `inner`
// there and copies the result back. The copies' time is staging_seconds().
std::unique_ptr<Strategy> make_staged(std::unique_ptr<Strategy> inner, MemoryKind buffers);

// The GPU this rank uses, one GPU per rank on each host: among the ranks of
// its host that need one, the k-th takes GPU k (so dedicated parameter-server
// ranks, which pass needs_gpu false, use none and may run on hosts without
// GPUs). Collective over `world`. Throws, naming the host and the counts,
// when no GPU is visible or the host has fewer GPUs than ranks needing one.
// Makes it the calling thread's device; returns -1 when !needs_gpu.
int select_local_gpu(const World& world, bool needs_gpu = true);

// The name of CUDA device `gpu`, e.g. "NVIDIA H200", for what runs print and
// record.
std::string gpu_name(int gpu);

}  // namespace gradsync
