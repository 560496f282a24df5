#pragma once
// Where the synchronizer's fusion buckets live and how gradients go in and
// out of them: host memory (memcpy and a division loop, the synchronizer's
// original code) or the memory of the model's GPU (copies queued on the
// model's CUDA stream, events as fences, cuBLAS for the averaging). The
// synchronizer's bucket logic is the same for both; only these operations
// differ.
//
// Threads: grow, pack and close run on the main thread (inside backward);
// bind_thread, wait_closed, average and unpacked on the communication thread.
// A bucket is touched by one thread at a time: by the main thread while it is
// open, by the communication thread once closed, until finish() returns.

#include <cstddef>
#include <memory>
#include <span>

#include "gpu/build.h"
#include "models/model.h"
#include "strategies/core/memory_kind.h"

namespace gradsync {

class GradientMemory {
 public:
  virtual ~GradientMemory() = default;

  virtual MemoryKind kind() const = 0;

  // Main thread. Bucket `bucket`'s buffer, grown to hold at least `elements`
  // floats; what it held is kept. The pointer stays valid until the next grow
  // of the same bucket.
  virtual float* grow(std::size_t bucket, std::size_t elements) = 0;
  // Main thread: copies gradient `from` to `to` (inside a bucket buffer),
  // ordered after the work that produced `from`.
  virtual void pack(float* to, std::span<const float> from) = 0;
  // Main thread: bucket `bucket` holds all it will hold this step (its packs,
  // or, for a bucket reduced where its gradients lie, those gradients, have
  // been handed over).
  virtual void close(std::size_t bucket) = 0;
  // Main thread, between steps: frees every bucket buffer (the synchronizer
  // changed its threshold; the next grow allocates afresh).
  virtual void release() = 0;

  // Communication thread, once, before anything else it does.
  virtual void bind_thread() {}
  // Communication thread: returns once bucket `bucket`'s contents, as of its
  // close(), are in memory and may go to the strategy.
  virtual void wait_closed(std::size_t bucket) = 0;
  // Communication thread: to[i] = from[i] / workers; `from` may be `to`
  // itself (a bucket reduced in place) or a slice of a bucket buffer.
  virtual void average(std::span<float> to, const float* from, float workers) = 0;
  // Communication thread: returns once every average() so far is complete.
  virtual void unpacked() {}
};

// Host memory; `buckets` is the most buckets a step can form (one per gradient).
std::unique_ptr<GradientMemory> make_host_gradient_memory(std::size_t buckets);

namespace cuda {
// CUDA builds only (gradient_memory_cuda.cc).
std::unique_ptr<GradientMemory> make_gradient_memory(const Model::DeviceState& device,
                                                     std::size_t buckets);
}  // namespace cuda

// Device memory on `device`'s GPU, ordered after its stream. In a build
// without CUDA it throws the GPU floor's "not built in" line.
inline std::unique_ptr<GradientMemory> make_device_gradient_memory(const Model::DeviceState& device,
                                                                   std::size_t buckets) {
  if constexpr (gpu_built())
    return cuda::make_gradient_memory(device, buckets);
  else
    throw_not_built("gradients in device memory");
}

}  // namespace gradsync
