#pragma once
// The name of a CUDA device, for what train prints and records.

#include <string>

namespace gradsync {

// e.g. "NVIDIA H100 80GB HBM3"; CUDA builds only (elsewhere it throws).
std::string gpu_name(int gpu);

}  // namespace gradsync
