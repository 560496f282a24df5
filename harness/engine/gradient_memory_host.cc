// Buckets in host memory: a std::vector per bucket, memcpy in, and a
// read-divide-write pass out. Division, not multiplication by 1/workers: the
// result is the correctly rounded average, the same on every rank and for
// every fusion size. Nothing to fence: the main thread hands a bucket over
// under the synchronizer's mutex, which orders its copies before the
// communication thread's reads.
#include <cstring>
#include <vector>

#include "harness/engine/gradient_memory.h"

namespace gradsync {
namespace {

class HostGradientMemory final : public GradientMemory {
 public:
  explicit HostGradientMemory(std::size_t buckets) : buffers_(buckets) {}

  MemoryKind kind() const override { return MemoryKind::host; }

  float* grow(std::size_t bucket, std::size_t elements) override {
    std::vector<float>& buffer = buffers_.at(bucket);
    if (buffer.size() < elements) buffer.resize(elements);
    return buffer.data();
  }

  void pack(float* to, std::span<const float> from) override {
    if (!from.empty()) std::memcpy(to, from.data(), from.size_bytes());
  }

  void close(std::size_t) override {}

  void release() override {
    for (auto& buffer : buffers_) std::vector<float>().swap(buffer);
  }
  void wait_closed(std::size_t) override {}

  void average(std::span<float> to, const float* from, float workers) override {
    if (workers == 1.0f) {
      if (to.data() != from && !to.empty()) std::memcpy(to.data(), from, to.size_bytes());
      return;
    }
    for (std::size_t j = 0; j < to.size(); ++j) to[j] = from[j] / workers;
  }

 private:
  // Sized once: growing one bucket never moves another's vector, which the
  // communication thread may be reading.
  std::vector<std::vector<float>> buffers_;
};

}  // namespace

std::unique_ptr<GradientMemory> make_host_gradient_memory(std::size_t buckets) {
  return std::make_unique<HostGradientMemory>(buckets);
}

}  // namespace gradsync
