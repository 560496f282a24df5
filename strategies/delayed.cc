#include "strategies/delayed.h"

#include <chrono>
#include <thread>

namespace gradsync {

DelayedStrategy::DelayedStrategy(std::unique_ptr<Strategy> inner, double delay_ms)
    : inner_(std::move(inner)), delay_ms_(delay_ms) {}

// Strategy::traffic() is not virtual, so the wrapper keeps its own copy of
// the inner strategy's counters, refreshed after every call.
void DelayedStrategy::allreduce(std::span<float> buffer) {
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delay_ms_));
  inner_->allreduce(buffer);
  traffic_ = inner_->traffic();
}

void DelayedStrategy::broadcast(std::span<float> buffer, int root) {
  inner_->broadcast(buffer, root);
  traffic_ = inner_->traffic();
}

void DelayedStrategy::serve() {
  inner_->serve();
  traffic_ = inner_->traffic();
}

}  // namespace gradsync
