#pragma once
// A benchmark buffer in device memory, filled and read from the host: how
// `gradsync collectives` runs strategies on device buffers (as nccl-tests
// does) while its correctness pass keeps filling and checking on the host.
// A thin use of the GPU floor's DeviceBuffer; in a build without CUDA the
// constructor throws the floor's "not built in" line.

#include <cstddef>
#include <span>

#include "gpu/buffer.h"

namespace gradsync {

class DeviceMirror {
 public:
  // `elements` floats on the calling thread's current GPU (see
  // select_local_gpu).
  explicit DeviceMirror(std::size_t elements);

  // The first `elements` device floats.
  std::span<float> span(std::size_t elements);
  // Copies host values into the first host.size() device floats, or back.
  void upload(std::span<const float> host);
  void download(std::span<float> host);
  // Sets the first `elements` device floats to 0.
  void zero(std::size_t elements);

 private:
  int gpu_ = 0;
  DeviceBuffer device_;
};

}  // namespace gradsync
