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

#include <cuda_runtime_api.h>

#include <chrono>
#include <optional>

#include "gpu/buffer.h"
#include "gpu/check.h"
#include "gpu/device.h"
#include "gpu/stream.h"
#include "strategies/core/partition.h"
#include "strategies/core/staged.h"

namespace gradsync {
namespace {

using Clock = std::chrono::steady_clock;

class Staged final : public Strategy {
 public:
  Staged(std::unique_ptr<Strategy> inner, MemoryKind buffers)
      : inner_(std::move(inner)), buffers_(buffers) {
    device_ = current_device();
    stream_.emplace("staging copies");  // owned: freed with the decorator, on its device
  }

  std::string_view name() const override { return inner_->name(); }
  const World& peers() const override { return inner_->peers(); }
  bool synchronizes() const override { return inner_->synchronizes(); }
  bool is_worker() const override { return inner_->is_worker(); }
  bool accepts(MemoryKind kind) const override { return kind == buffers_; }
  double staging_seconds() const override { return staging_s_ + inner_->staging_seconds(); }
  std::string account() const override { return inner_->account(); }
  std::string path_for(std::size_t count, std::size_t element_bytes) const override {
    return inner_->path_for(count, element_bytes);
  }

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

  // A sharded strategy's calls: a reduce-scatter brings back only this
  // worker's shard (the rest is undefined), an all-gather takes only it.
  Sharding sharding() const override { return inner_->sharding(); }
  Range shard(std::size_t count) const override { return inner_->shard(count); }
  void reduce_scatter(std::span<float> buffer) override {
    const std::span<float> staged = stage_in(buffer);
    inner_->reduce_scatter(staged);
    const Range mine = inner_->shard(buffer.size());
    stage_out(staged.subspan(mine.offset, mine.count), buffer.subspan(mine.offset, mine.count));
    traffic_ = inner_->traffic();
  }
  void all_gather(std::span<float> buffer) override {
    const Range mine = inner_->shard(buffer.size());
    const std::span<float> staged = stage_in(buffer, mine);
    inner_->all_gather(staged);
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
  // A staging buffer as large as `buffer`, holding its `copied` range (all of it by default).
  std::span<float> stage_in(std::span<const float> buffer,
                            std::optional<Range> copied = std::nullopt) {
    use_device(device_);
    // Only one of the two is used: the kind the caller's buffers are not in.
    // The old buffer is freed before a larger one is taken.
    float* staging = nullptr;
    if (buffers_ == MemoryKind::device) {
      if (buffer.size() > pinned_.size()) {
        pinned_ = PinnedBuffer();
        pinned_ = PinnedBuffer(buffer.size(), "pinned staging buffer");
      }
      staging = pinned_.data();
    } else {
      if (buffer.size() > device_staging_.size()) {
        device_staging_ = DeviceBuffer();
        device_staging_ = DeviceBuffer(buffer.size(), "device staging buffer");
      }
      staging = device_staging_.data();
    }
    const Range range = copied.value_or(Range{0, buffer.size()});
    copy(staging + range.offset, buffer.data() + range.offset, range.count * sizeof(float));
    return {staging, buffer.size()};
  }

  void stage_out(std::span<const float> staged, std::span<float> buffer) {
    use_device(device_);
    copy(buffer.data(), staged.data(), staged.size_bytes());
  }

  void copy(float* to, const float* from, std::size_t bytes) {
    if (bytes == 0) return;
    const auto start = Clock::now();
    copy_memory(to, from, bytes, stream_->get(), "staging copy");
    staging_s_ += std::chrono::duration<double>(Clock::now() - start).count();
  }

  std::unique_ptr<Strategy> inner_;
  MemoryKind buffers_;  // where the caller's buffers live
  int device_ = 0;
  std::optional<CudaStream> stream_;  // made on device_
  PinnedBuffer pinned_;               // staging for device buffers
  DeviceBuffer device_staging_;       // staging for host buffers
  double staging_s_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> cuda::make_staged(std::unique_ptr<Strategy> inner, MemoryKind buffers) {
  return std::make_unique<Staged>(std::move(inner), buffers);
}

}  // namespace gradsync
