// Builds without CUDA (see gpu/CMakeLists.txt): the one stand-in of the
// tree. Every entry point of the GPU floor says, in one wording, that this
// gradsync has no GPU side; the libraries above reach that wording through
// throw_not_built() and not_built_reason() (gpu/build.h). CUDA builds compile
// the *_cuda.cc files of this folder instead.
#include <stdexcept>
#include <string>

#include "gpu/buffer.h"
#include "gpu/build.h"
#include "gpu/device.h"
#include "gpu/probe.h"

namespace gradsync {

std::string not_built_reason() {
  return "not built in (this gradsync was built without CUDA: configured with GRADSYNC_CUDA=OFF, "
         "or no CUDA toolkit with NCCL and cuDNN was found)";
}

void throw_not_built(std::string_view what) {
  throw std::runtime_error(std::string(what) + ": " + not_built_reason());
}

GpuProbe probe_gpus() {
  GpuProbe probe;
  probe.detail = probe.no_gpu_reason = not_built_reason();
  return probe;
}

void use_device(int) { throw_not_built("GPU selection"); }
int current_device() { throw_not_built("GPU selection"); }
std::string gpu_name(int) { throw_not_built("GPU names"); }
std::string gpu_identity(int) { throw_not_built("GPU names"); }
std::string gpu_unusable(int) { return not_built_reason(); }

void* device_alloc(std::size_t, std::string_view) { throw_not_built("device buffers"); }
void device_free(void*) noexcept {}
void* pinned_alloc(std::size_t, std::string_view) { throw_not_built("pinned host buffers"); }
void pinned_free(void*) noexcept {}
void copy_memory(void*, const void*, std::size_t, void*, std::string_view) {
  throw_not_built("device copies");
}
void zero_device_memory(void*, std::size_t, void*, std::string_view) {
  throw_not_built("device copies");
}

}  // namespace gradsync
