#pragma once
// The current device and facts about a GPU, with no MPI: the choice of this
// process's GPU is strategies' select_local_gpu (over its World). Both builds
// declare them; without CUDA they throw that they are not built, and
// gpu_unusable says so (gpu/absent.cc).

#include <string>
#include <string_view>

namespace gradsync {

// Makes `gpu` the calling thread's current device. CUDA keeps the current
// device per thread, so every entry point that may run on another thread (the
// synchronizer's communication thread) calls this first.
void use_device(int gpu);
// The calling thread's current device.
int current_device();

// The name of GPU `gpu`, e.g. "NVIDIA H200", for what runs print and record.
std::string gpu_name(int gpu);

// What tells GPU `gpu` apart from every other, whatever ordinal a process
// sees it as: its UUID ("GPU-8f2c...", as nvidia-smi -L writes it).
std::string gpu_identity(int gpu);

// Empty when GPU `gpu` can be used here; else one line saying why: "no GPU
// visible (<CUDA's text>)", "GPU 3 does not exist (2 visible, ordinals 0..1)",
// or "not built in (...)".
std::string gpu_unusable(int gpu);

}  // namespace gradsync
