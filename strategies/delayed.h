#pragma once
// A test-only decorator: every allreduce of the strategy it wraps sleeps a
// fixed time first, so that tests (and `scripts/ci-compare.sh`) can slow any
// strategy by a known amount and check that `gradsync compare` notices.
// make_strategy wraps a strategy in it when TestFaults::delay_ms > 0.

#include <memory>

#include "strategies/strategy.h"

namespace gradsync {

class DelayedStrategy final : public Strategy {
 public:
  DelayedStrategy(std::unique_ptr<Strategy> inner, double delay_ms);

  std::string_view name() const override { return inner_->name(); }
  void allreduce(std::span<float> buffer) override;
  void broadcast(std::span<float> buffer, int root) override;
  const World& peers() const override { return inner_->peers(); }
  bool synchronizes() const override { return inner_->synchronizes(); }
  bool is_worker() const override { return inner_->is_worker(); }
  void serve() override;
  bool accepts(MemoryKind kind) const override { return inner_->accepts(kind); }
  double staging_seconds() const override { return inner_->staging_seconds(); }

 private:
  std::unique_ptr<Strategy> inner_;
  double delay_ms_;
};

}  // namespace gradsync
