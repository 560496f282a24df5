#pragma once
// What the synchronizer's multi-rank tests share (synchronizer_test.cc,
// synchronizer_switch_test.cc): FakeSum, a strategy that talks to no one and
// emulates peers().size() workers that all hold the buffer plus one (a
// gradient x comes back as exactly x + 1 after averaging when it was reduced
// once), recording the size of each call and failing on demand; gradients of
// awkward sizes, separate or in one block; small-integer inputs; scrambled
// hand-over orders; and the bucket sizes the fusion rule gives.

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/engine/fusion_plan.h"
#include "models/gradient_block.h"
#include "strategies/core/strategy.h"

namespace gradsync {

inline constexpr double kKiB = 1.0 / 1024;  // in MiB

class FakeSum final : public Strategy {
 public:
  explicit FakeSum(int fail_on_call = -1) : world_(MPI_COMM_WORLD), fail_on_call_(fail_on_call) {}
  std::string_view name() const override { return "fake-sum"; }
  void allreduce(std::span<float> buffer) override {
    const int call = calls_.load();
    {
      std::lock_guard lock(mu_);
      sizes_.push_back(buffer.size());
    }
    calls_.store(call + 1);
    if (call == fail_on_call_)
      throw std::runtime_error("fake transport failed on call " + std::to_string(call));
    const auto k = static_cast<float>(world_.size());
    for (float& x : buffer) x = k * (x + 1);
  }
  void broadcast(std::span<float>, int) override {}
  const World& peers() const override { return world_; }

  int calls() const { return calls_.load(); }
  std::vector<std::size_t> take_sizes() {
    std::lock_guard lock(mu_);
    return std::exchange(sizes_, {});
  }

 private:
  World world_;
  int fail_on_call_;
  std::atomic<int> calls_{0};
  std::mutex mu_;
  std::vector<std::size_t> sizes_;
};

// Gradients of awkward sizes: empty, tiny, above and below the tiny threshold.
inline const std::vector<std::size_t> kShapes = {1,  7,     1000, 3,   4099, 0,
                                                 64, 12000, 5,    257, 2,    2048};

// Gradients in one allocation each (every fused bucket is packed), or in one
// block laid out back to back in a given order, as a model lays out its own
// (buckets handed over in that order are reduced where they lie).
struct Gradients {
  std::vector<std::vector<float>> separate;
  std::vector<float> block;
  std::vector<std::span<float>> data;
  explicit Gradients(const std::vector<std::size_t>& shapes) {
    for (std::size_t n : shapes) data.emplace_back(separate.emplace_back(n));
  }
  Gradients(const std::vector<std::size_t>& shapes, const std::vector<std::size_t>& layout)
      : block(std::accumulate(shapes.begin(), shapes.end(), std::size_t{0})) {
    const std::vector<std::size_t> offsets = gradient_offsets(shapes, layout);
    for (std::size_t g = 0; g < shapes.size(); ++g)
      data.push_back(std::span<float>(block).subspan(offsets[g], shapes[g]));
  }
  std::vector<std::span<float>> spans() { return data; }
  std::vector<std::vector<float>> values() const {
    std::vector<std::vector<float>> v;
    for (const auto& g : data) v.emplace_back(g.begin(), g.end());
    return v;
  }
  std::vector<std::size_t> bytes() const {
    std::vector<std::size_t> b;
    for (const auto& g : data) b.push_back(g.size() * sizeof(float));
    return b;
  }
  std::size_t total_bytes() const {
    std::size_t t = 0;
    for (std::size_t b : bytes()) t += b;
    return t;
  }
};

// Small integers, different per rank, gradient, element and step.
inline float input(int rank, std::size_t gradient, std::size_t i, int step) {
  return static_cast<float>(static_cast<int>((rank * 31 + gradient * 13 + i * 7 + step * 5) % 17) -
                            8);
}

// A scrambled order of the gradients, the same on every rank for a given seed.
inline std::vector<std::size_t> scrambled(std::size_t n, unsigned seed) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  return order;
}

inline std::vector<std::size_t> bucket_elements(const std::vector<std::size_t>& order,
                                                const Gradients& grads, double fusion_mb) {
  std::vector<std::size_t> elements;
  for (const auto& bucket : plan_buckets(order, grads.bytes(), FusionRule(fusion_mb))) {
    std::size_t n = 0;
    for (std::size_t index : bucket) n += grads.data[index].size();
    elements.push_back(n);
  }
  return elements;
}

}  // namespace gradsync
