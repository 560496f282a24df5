#include "harness/engine/step_marks.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "gpu/build.h"
#include "harness/engine/timeline.h"

namespace gradsync {

StepBreakdown breakdown_of(const StepMarkTimes& m) {
  std::vector<StepClock::time_point> order = {m.compute_start, m.forward_end};
  order.insert(order.end(), m.hand_overs.begin(), m.hand_overs.end());
  order.push_back(m.backward_end);
  for (std::size_t i = 1; i < order.size(); ++i)
    if (order[i] < order[i - 1])
      throw std::logic_error(
          fmt::format("step marks out of order: mark {} before mark {}", i, i - 1));
  if (m.update_end < m.update_start || m.wait_end < m.wait_start)
    throw std::logic_error("step marks out of order: an end before its start");
  StepBreakdown b;
  const double forward_wait_s =
      std::min(m.forward_wait_s, seconds(m.forward_end - m.compute_start));
  b.forward_s = seconds(m.forward_end - m.compute_start) - forward_wait_s;
  const double backward_wait_s =
      std::min(m.backward_wait_s, seconds(m.backward_end - m.forward_end));
  b.backward_s = seconds(m.backward_end - m.forward_end) - backward_wait_s;
  b.compute_s = b.forward_s + b.backward_s;
  b.exposed_comm_s = forward_wait_s + backward_wait_s +
                     std::max(0.0, seconds(m.wait_end - std::max(m.wait_start, m.backward_end)));
  b.update_s = seconds(m.update_end - m.update_start);
  return b;
}

namespace {

// The host's clock: a mark is the time it is taken; the compute has passed
// it as soon as it is taken.
class HostComputeClock final : public ComputeClock {
 public:
  void begin(std::size_t slot, std::size_t marks) override {
    if (slot >= slots_.size()) slots_.resize(slot + 1);
    slots_[slot].assign(marks, StepClock::time_point{});
  }
  void take(std::size_t slot, std::size_t index) override {
    slots_.at(slot).at(index) = StepClock::now();
  }
  bool passed(std::size_t, bool) override { return true; }
  StepClock::time_point read(std::size_t slot, std::size_t index) override {
    return slots_.at(slot).at(index);
  }
  bool on_device() const override { return false; }

 private:
  std::vector<std::vector<StepClock::time_point>> slots_;
};

}  // namespace

std::unique_ptr<ComputeClock> make_host_compute_clock() {
  return std::make_unique<HostComputeClock>();
}

std::unique_ptr<ComputeClock> make_compute_clock(const Model& model) {
  const Model::DeviceState* device = model.device_state();
  if (!device) return make_host_compute_clock();
  if constexpr (gpu_built())
    return cuda::make_compute_clock(*device);
  else
    throw_not_built("step marks on a GPU");
}

void StepMarks::begin(int step, std::size_t gradients, TraceSink* trace) {
  // A slot no ended step still holds: the oldest pending ones hold the lowest.
  std::size_t slot = 0;
  while (
      std::any_of(ended_.begin(), ended_.end(), [&](const Pending& p) { return p.slot == slot; }))
    ++slot;
  current_ = {.step = step, .slot = slot, .hand_overs = 0, .trace = trace};
  clock_->begin(slot, compute_mark_count + gradients);
}

void StepMarks::take(ComputeMark mark) {
  clock_->take(current_.slot, static_cast<std::size_t>(mark));
}

void StepMarks::take_hand_over() {
  clock_->take(current_.slot, compute_mark_count + current_.hand_overs++);
}

void StepMarks::end(StepClock::time_point wait_start, StepClock::time_point wait_end,
                    double forward_wait_s, double backward_wait_s) {
  current_.wait_start = wait_start;
  current_.wait_end = wait_end;
  current_.forward_wait_s = forward_wait_s;
  current_.backward_wait_s = backward_wait_s;
  ended_.push_back(current_);
}

StepMarkTimes StepMarks::read(const Pending& p) {
  auto at = [&](ComputeMark mark) { return clock_->read(p.slot, static_cast<std::size_t>(mark)); };
  StepMarkTimes m{.compute_start = at(ComputeMark::compute_start),
                  .forward_end = at(ComputeMark::forward_end),
                  .backward_end = at(ComputeMark::backward_end),
                  .update_start = at(ComputeMark::update_start),
                  .update_end = at(ComputeMark::update_end),
                  .hand_overs = {},
                  .wait_start = p.wait_start,
                  .wait_end = p.wait_end,
                  .forward_wait_s = p.forward_wait_s,
                  .backward_wait_s = p.backward_wait_s};
  for (std::size_t k = 0; k < p.hand_overs; ++k)
    m.hand_overs.push_back(clock_->read(p.slot, compute_mark_count + k));
  return m;
}

// A device's compute as the host's model traces it: forward, backward up to
// each hand-off, and the optimizer step, on the compute thread.
void StepMarks::trace_compute(const Pending& p, const StepMarkTimes& m) const {
  if (!p.trace || !clock_->on_device()) return;
  p.trace->event("forward", "forward", m.compute_start, m.forward_end, kComputeThread);
  StepClock::time_point from = m.forward_end;
  for (std::size_t k = 0; k < m.hand_overs.size(); ++k) {
    p.trace->event(fmt::format("backward to gradient {}", k), "backward", from, m.hand_overs[k],
                   kComputeThread);
    from = m.hand_overs[k];
  }
  if (m.backward_end > from)
    p.trace->event("backward", "backward", from, m.backward_end, kComputeThread);
  if (m.update_end > m.update_start)
    p.trace->event("optimizer step", "optimizer", m.update_start, m.update_end, kComputeThread);
}

void StepMarks::settle(std::vector<StepTiming>* steps, bool wait) {
  if (!steps) {
    ended_.clear();  // a slot's events may be recorded again while queued
    return;
  }
  while (!ended_.empty() && clock_->passed(ended_.front().slot, wait)) {
    const Pending p = ended_.front();
    ended_.pop_front();
    if (p.step < 0 || static_cast<std::size_t>(p.step) >= steps->size()) continue;
    const StepMarkTimes marks = read(p);
    const StepBreakdown b = breakdown_of(marks);
    StepTiming& timing = (*steps)[p.step];
    timing.compute_s = b.compute_s;
    timing.wait_s = b.exposed_comm_s;
    trace_compute(p, marks);
  }
}

}  // namespace gradsync
