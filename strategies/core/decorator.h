#pragma once
// The base of the strategies that wrap another (delayed.h, compressed.h):
// every call goes to the wrapped strategy, and a decorator overrides only
// what it changes. Strategy::traffic() is not virtual, so the decorator keeps
// its own copy of the wrapped strategy's counters, refreshed after every call.

#include <memory>

#include "strategies/core/strategy.h"

namespace gradsync {

class StrategyDecorator : public Strategy {
 public:
  explicit StrategyDecorator(std::unique_ptr<Strategy> inner) : inner_(std::move(inner)) {}

  std::string_view name() const override { return inner_->name(); }
  void allreduce(std::span<float> buffer) override {
    inner_->allreduce(buffer);
    refresh_traffic();
  }
  void allreduce_compressed(std::span<std::uint16_t> buffer, Compression format) override {
    inner_->allreduce_compressed(buffer, format);
    refresh_traffic();
  }
  void broadcast(std::span<float> buffer, int root) override {
    inner_->broadcast(buffer, root);
    refresh_traffic();
  }
  const World& peers() const override { return inner_->peers(); }
  bool synchronizes() const override { return inner_->synchronizes(); }
  bool is_worker() const override { return inner_->is_worker(); }
  void serve() override {
    inner_->serve();
    refresh_traffic();
  }
  bool accepts(MemoryKind kind) const override { return inner_->accepts(kind); }
  double staging_seconds() const override { return inner_->staging_seconds(); }
  std::string account() const override { return inner_->account(); }
  std::string path_for(std::size_t count, std::size_t element_bytes) const override {
    return inner_->path_for(count, element_bytes);
  }
  Sharding sharding() const override { return inner_->sharding(); }
  Range shard(std::size_t count) const override { return inner_->shard(count); }
  void reduce_scatter(std::span<float> buffer) override {
    inner_->reduce_scatter(buffer);
    refresh_traffic();
  }
  void all_gather(std::span<float> buffer) override {
    inner_->all_gather(buffer);
    refresh_traffic();
  }

  const Strategy& inner() const { return *inner_; }

 protected:
  Strategy& inner() { return *inner_; }
  void refresh_traffic() { traffic_ = inner_->traffic(); }

 private:
  std::unique_ptr<Strategy> inner_;
};

}  // namespace gradsync
