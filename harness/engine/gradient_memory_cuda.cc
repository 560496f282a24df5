// CUDA builds only (see harness/CMakeLists.txt): fusion buckets in the memory
// of the model's GPU, for a model that computes there (cuda compute).
//
// The model calls ready(i) once the work that writes gradient i is queued on
// its stream, not finished. So every step that reads a gradient orders itself
// after that stream instead of after the host: a pack is a device-to-device
// cudaMemcpyAsync queued on the model's stream (behind the gradient's
// producer), and closing a bucket records a CUDA event there (behind its last
// pack, or, for a bucket reduced where its gradients lie, behind their
// producers). The communication thread waits for that event on the host
// (cudaEventSynchronize) and only then hands the device memory to the
// strategy, whose allreduce is blocking. The averaging runs on a stream of
// this object's own: copy a packed bucket's slice back into the gradient
// (cudaMemcpyAsync) and scale it by 1/workers (cublasSscal; a bucket reduced
// in place is only scaled), and the bucket counts as done once that stream is
// idle, so when finish() returns every gradient is averaged in device memory.
//
// Cost on top of the strategy, per step: for packed buckets one device copy
// of every fused gradient in and one out; one scaling pass over every
// gradient; one event and one host wait per bucket: at device memory
// bandwidth (several TB/s) a 100 MB model costs well under a millisecond.
//
// Averaging multiplies by 1/workers (cuBLAS has no element-wise division):
// exact when the worker count is a power of two, otherwise within one unit in
// the last place of x / workers; the same on every rank, since every rank
// scales the same sums the same way.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/check.h"
#include "gpu/device.h"
#include "gpu/stream.h"
#include "harness/engine/cublas_util.h"
#include "harness/engine/gradient_memory.h"

namespace gradsync {
namespace {

class DeviceGradientMemory final : public GradientMemory {
 public:
  DeviceGradientMemory(const Model::DeviceState& device, std::size_t buckets)
      : gpu_(device.gpu),
        model_stream_(static_cast<cudaStream_t>(device.stream)),
        buffers_(buckets),
        events_(buckets, nullptr) {
    use_device(gpu_);
    // Owned, so that a failure below (cuBLAS) frees it.
    stream_.emplace("gradient averaging");
    blas_.emplace(stream_->get());
  }

  ~DeviceGradientMemory() override {
    cudaSetDevice(gpu_);
    cudaStreamSynchronize(model_stream_);
    cudaStreamSynchronize(stream_->get());
    for (cudaEvent_t e : events_)
      if (e) cudaEventDestroy(e);
    blas_.reset();  // before the stream it is bound to (a member, destroyed after this)
  }

  MemoryKind kind() const override { return MemoryKind::device; }

  float* grow(std::size_t bucket, std::size_t elements) override {
    DeviceBuffer& b = buffers_.at(bucket);
    if (b.size() >= elements) return b.data();
    // Geometric growth: a bucket of many small gradients reallocates a few
    // times in the first step, not once per gradient. The copy of what the
    // bucket held runs on the model's stream, behind the packs already queued
    // into the old buffer.
    use_device(gpu_);
    b.grow(std::max(elements, b.size() + b.size() / 2), model_stream_, "growing a fusion bucket");
    return b.data();
  }

  void pack(float* to, std::span<const float> from) override {
    if (from.empty()) return;
    check_cuda(cudaMemcpyAsync(to, from.data(), from.size_bytes(), cudaMemcpyDeviceToDevice,
                               model_stream_),
               "packing a gradient");
  }

  void close(std::size_t bucket) override {
    cudaEvent_t& event = events_.at(bucket);
    if (!event)
      check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaEventRecord(event, model_stream_), "closing a bucket");
  }

  void release() override {
    // Behind any pack still queued into the buffers on the model's stream.
    use_device(gpu_);
    check_cuda(cudaStreamSynchronize(model_stream_), "releasing the fusion buckets");
    for (auto& buffer : buffers_) buffer = DeviceBuffer();
  }

  void bind_thread() override { use_device(gpu_); }

  void wait_closed(std::size_t bucket) override {
    check_cuda(cudaEventSynchronize(events_.at(bucket)), "waiting for a bucket's gradients");
  }

  void average(std::span<float> to, const float* from, float workers) override {
    if (to.empty()) return;
    if (to.data() != from)
      check_cuda(cudaMemcpyAsync(to.data(), from, to.size_bytes(), cudaMemcpyDeviceToDevice,
                                 stream_->get()),
                 "unpacking a bucket");
    if (workers == 1.0f) return;
    const float scale = 1.0f / workers;
    check_cuda(cublasSscal(blas_->get(), blas_count(to.size(), "averaging a gradient"), &scale,
                           to.data(), 1),
               "cublasSscal (averaging a gradient)");
  }

  void unpacked() override {
    check_cuda(cudaStreamSynchronize(stream_->get()), "averaging gradients");
  }

 private:
  int gpu_;
  cudaStream_t model_stream_;
  std::optional<CudaStream> stream_;  // averaging; made on gpu_
  std::optional<BlasHandle> blas_;    // on stream_
  // Sized once, one per possible bucket, so that the threads never see them move.
  std::vector<DeviceBuffer> buffers_;
  std::vector<cudaEvent_t> events_;
};

}  // namespace

std::unique_ptr<GradientMemory> cuda::make_gradient_memory(const Model::DeviceState& device,
                                                           std::size_t buckets) {
  return std::make_unique<DeviceGradientMemory>(device, buckets);
}

}  // namespace gradsync
