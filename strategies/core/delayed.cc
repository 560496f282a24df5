#include "strategies/core/delayed.h"

#include <chrono>
#include <thread>

namespace gradsync {

DelayedStrategy::DelayedStrategy(std::unique_ptr<Strategy> inner, double delay_ms)
    : StrategyDecorator(std::move(inner)), delay_ms_(delay_ms) {}

void DelayedStrategy::allreduce(std::span<float> buffer) {
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delay_ms_));
  StrategyDecorator::allreduce(buffer);
}

}  // namespace gradsync
