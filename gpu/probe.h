#pragma once
// What this build and this machine offer on the GPU side: whether the CUDA and
// NCCL parts were compiled in, their versions, and how many GPUs are visible.

#include <string>

namespace gradsync {

struct GpuProbe {
  bool built = false;  // compiled with CUDA and NCCL
  int visible_gpus = 0;
  std::string cuda_version;  // runtime version, e.g. "13.0"
  std::string nccl_version;  // e.g. "2.28.9"
  std::string detail;        // one line for people, e.g. "no GPU visible (...)"
  // Why no GPU is visible, as the CUDA runtime says it (e.g. "CUDA driver
  // version is insufficient for CUDA runtime version"); empty when one is.
  // Every "no GPU visible" message in the tree is made from it.
  std::string no_gpu_reason;
};

GpuProbe probe_gpus();

}  // namespace gradsync
