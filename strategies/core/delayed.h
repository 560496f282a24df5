#pragma once
// A test-only decorator: every allreduce of the strategy it wraps sleeps a
// fixed time first, so that tests (and `scripts/ci-compare.sh`) can slow any
// strategy by a known amount and check that `gradsync compare` notices.
// make_strategy wraps a strategy in it when TestFaults::delay_ms > 0.

#include <memory>

#include "strategies/core/decorator.h"

namespace gradsync {

class DelayedStrategy final : public StrategyDecorator {
 public:
  DelayedStrategy(std::unique_ptr<Strategy> inner, double delay_ms);

  void allreduce(std::span<float> buffer) override;

 private:
  double delay_ms_;
};

}  // namespace gradsync
