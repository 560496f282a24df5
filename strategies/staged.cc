// The staging decorator: a strategy that takes buffers in one kind of memory
// runs on buffers of the other kind, as Horovod and BytePS stage GPU tensors
// for CPU transports.
//
// Each call copies the caller's buffer into a staging buffer in the memory the
// wrapped strategy accepts (pinned host memory for the MPI and ZeroMQ
// strategies; device memory for NCCL given host buffers), runs the wrapped
// strategy there, and copies the result back. Both copies go through one
// CUDA stream of the decorator's own and are waited for, so the call stays
// blocking and in place. Cost on top of the transport: two copies of n bytes
// over PCIe (or NVLink-C2C), about 2n / 25 GB/s on a PCIe 4 x16 link; the
// time is counted in staging_seconds(), apart from the transport's. The
// staging buffer grows to the largest buffer seen and is kept.

#include <chrono>

#include "strategies/cuda_util.h"
#include "strategies/gpu_strategies.h"

namespace gradsync {
namespace {

using Clock = std::chrono::steady_clock;

class Staged final : public Strategy {
 public:
  Staged(std::unique_ptr<Strategy> inner, MemoryKind buffers)
      : inner_(std::move(inner)), buffers_(buffers) {
    check_cuda(cudaGetDevice(&device_), "cudaGetDevice");
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~Staged() override {
    cudaSetDevice(device_);
    free_staging();
    cudaStreamDestroy(stream_);
  }

  std::string_view name() const override { return inner_->name(); }
  const World& peers() const override { return inner_->peers(); }
  bool synchronizes() const override { return inner_->synchronizes(); }
  bool is_worker() const override { return inner_->is_worker(); }
  bool accepts(MemoryKind kind) const override { return kind == buffers_; }
  double staging_seconds() const override { return staging_s_ + inner_->staging_seconds(); }

  void serve() override {
    inner_->serve();
    traffic_ = inner_->traffic();
  }

  void allreduce(std::span<float> buffer) override {
    const std::span<float> staged = stage_in(buffer);
    inner_->allreduce(staged);
    stage_out(staged, buffer);
    traffic_ = inner_->traffic();
  }

  void broadcast(std::span<float> buffer, int root) override {
    const std::span<float> staged = stage_in(buffer);
    inner_->broadcast(staged, root);
    stage_out(staged, buffer);
    traffic_ = inner_->traffic();
  }

 private:
  std::span<float> stage_in(std::span<const float> buffer) {
    use_device(device_);
    if (buffer.size() > capacity_) {
      free_staging();
      const std::size_t bytes = buffer.size_bytes();
      if (buffers_ == MemoryKind::device)
        check_cuda(cudaHostAlloc(reinterpret_cast<void**>(&staging_), bytes, cudaHostAllocDefault),
                   "cudaHostAlloc (pinned staging buffer)");
      else
        check_cuda(cudaMalloc(reinterpret_cast<void**>(&staging_), bytes),
                   "cudaMalloc (device staging buffer)");
      capacity_ = buffer.size();
    }
    copy(staging_, buffer.data(), buffer.size_bytes());
    return {staging_, buffer.size()};
  }

  void stage_out(std::span<const float> staged, std::span<float> buffer) {
    use_device(device_);
    copy(buffer.data(), staged.data(), staged.size_bytes());
  }

  void copy(float* to, const float* from, std::size_t bytes) {
    if (bytes == 0) return;
    const auto start = Clock::now();
    check_cuda(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDefault, stream_), "staging copy");
    check_cuda(cudaStreamSynchronize(stream_), "staging copy");
    staging_s_ += std::chrono::duration<double>(Clock::now() - start).count();
  }

  void free_staging() {
    if (!staging_) return;
    if (buffers_ == MemoryKind::device) cudaFreeHost(staging_);
    else cudaFree(staging_);
    staging_ = nullptr;
    capacity_ = 0;
  }

  std::unique_ptr<Strategy> inner_;
  MemoryKind buffers_;  // where the caller's buffers live
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  float* staging_ = nullptr;  // in the other kind of memory
  std::size_t capacity_ = 0;  // elements
  double staging_s_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_staged(std::unique_ptr<Strategy> inner, MemoryKind buffers) {
  return std::make_unique<Staged>(std::move(inner), buffers);
}

}  // namespace gradsync
