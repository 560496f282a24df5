#pragma once
// A benchmark buffer in device memory, filled and read from the host: how
// `gradsync collectives` runs strategies on device buffers (as nccl-tests
// does) while its correctness pass keeps filling and checking on the host.
// CUDA builds compile device_mirror_cuda.cc; others gpu_absent.cc, whose
// constructor throws saying device buffers are not built.

#include <cstddef>
#include <span>

namespace gradsync {

class DeviceMirror {
 public:
  // `elements` floats on the calling thread's current GPU (see
  // select_local_gpu).
  explicit DeviceMirror(std::size_t elements);
  ~DeviceMirror();
  DeviceMirror(const DeviceMirror&) = delete;
  DeviceMirror& operator=(const DeviceMirror&) = delete;

  // The first `elements` device floats.
  std::span<float> span(std::size_t elements);
  // Copies host values into the first host.size() device floats, or back.
  void upload(std::span<const float> host);
  void download(std::span<float> host);
  // Sets the first `elements` device floats to 0.
  void zero(std::size_t elements);

 private:
  float* device_ = nullptr;
  std::size_t elements_ = 0;
  int gpu_ = 0;
};

}  // namespace gradsync
