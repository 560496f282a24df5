#pragma once
// The choice of this process's GPU and facts about a GPU, with no MPI: the
// caller counts the ranks of its host (strategies' select_local_gpu does, over
// its World). Both builds declare them; without CUDA they throw that they are
// not built, and gpu_unusable says so (gpu/absent.cc).

#include <string>
#include <string_view>

namespace gradsync {

// The GPU of the `index`-th (from 0) of the `on_host` ranks of host `host`
// that need one: GPU `index`, one GPU per rank. Throws one line naming the
// host and the counts when no GPU is visible or the host has fewer GPUs than
// such ranks. Makes it the calling thread's current device.
int choose_local_gpu(std::string_view host, int index, int on_host);

// Makes `gpu` the calling thread's current device. CUDA keeps the current
// device per thread, so every entry point that may run on another thread (the
// synchronizer's communication thread) calls this first.
void use_device(int gpu);
// The calling thread's current device.
int current_device();

// The name of GPU `gpu`, e.g. "NVIDIA H200", for what runs print and record.
std::string gpu_name(int gpu);

// Empty when GPU `gpu` can be used here; else one line saying why: "no GPU
// visible (<CUDA's text>)", "GPU 3 does not exist (2 visible, ordinals 0..1)",
// or "not built in (...)".
std::string gpu_unusable(int gpu);

}  // namespace gradsync
