// Time to target loss (harness/engine/time_to_target.h): the workers' notes
// as one loss curve (in lockstep step by step, free-running in time order),
// smoothed over a window, reached at the first full window whose mean is at
// most the target; and the
// straggler wrapper (harness/engine/straggler_model.h), which makes a model's
// forward and backward take FACTOR times as long and hands each gradient over
// as late as a slower machine would.
#include "harness/engine/time_to_target.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <thread>

#include "harness/engine/straggler_model.h"

namespace gradsync {
namespace {

// A worker whose step s ends at (s + 1) x period + offset with loss `loss(s)`.
template <typename Loss>
std::vector<LossNote> worker(int steps, double period, double offset, Loss loss) {
  std::vector<LossNote> notes;
  for (int s = 0; s < steps; ++s) notes.push_back({(s + 1) * period + offset, double(loss(s))});
  return notes;
}

TEST(TimeToTarget, OneWorkerReachesAtTheFirstFullWindowAtOrBelowTheTarget) {
  // Loss 10 - s: the mean over the 2 steps ending at s is 10 - s + 0.5,
  // at most 4 first at s = 7 (mean of 4 and 3 = 3.5; at s = 6: 4.5).
  const std::vector<std::vector<LossNote>> notes = {worker(20, 1.0, 0, [](int s) { return 10 - s; })};
  const TimeToTarget t = time_to_target(notes, 4.0, 32, Pace::lockstep, 2);
  EXPECT_TRUE(t.reached);
  EXPECT_DOUBLE_EQ(t.seconds, 8.0);  // step 7 ends at 8 s
  EXPECT_EQ(t.samples, 8u * 32);
  EXPECT_DOUBLE_EQ(t.smoothed_loss, 3.5);
  EXPECT_EQ(t.window_steps, 2);
  EXPECT_DOUBLE_EQ(t.target_loss, 4.0);
}

TEST(TimeToTarget, LockstepAveragesTheWorkersAndWaitsForTheLast) {
  // Two workers in lockstep; worker 1's loss stays 2 above worker 0's and its
  // steps end 0.1 s later. Step s's loss is their mean, 11 - s <= 5 from
  // s = 6, which ends when worker 1 ends it.
  const std::vector<std::vector<LossNote>> notes = {
      worker(10, 1.0, 0.0, [](int s) { return 10 - s; }),
      worker(10, 1.0, 0.1, [](int s) { return 12 - s; })};
  const TimeToTarget t = time_to_target(notes, 5.0, 8, Pace::lockstep, 1);
  EXPECT_TRUE(t.reached);
  EXPECT_DOUBLE_EQ(t.seconds, 7.1);  // worker 1's step 6
  EXPECT_EQ(t.samples, 7u * 2 * 8);  // 7 steps of both
  EXPECT_DOUBLE_EQ(t.smoothed_loss, 5.0);
}

TEST(TimeToTarget, LockstepUsesTheStepsEveryWorkerHas) {
  const std::vector<std::vector<LossNote>> notes = {
      worker(5, 1.0, 0, [](int) { return 9; }), worker(3, 1.0, 0, [](int) { return 9; })};
  const TimeToTarget t = time_to_target(notes, 1.0, 2, Pace::lockstep, 1);
  EXPECT_FALSE(t.reached);
  EXPECT_EQ(t.samples, 3u * 2 * 2);
  EXPECT_DOUBLE_EQ(t.seconds, 3.0);
}

TEST(TimeToTarget, FreeRunningWorkersCountTheirOwnSteps) {
  // Worker 0 steps every second, worker 1 every 3 s; both at loss 1 from the
  // start. A window of 1 step x 2 workers is full at the second note (2 s,
  // worker 0): samples are the 2 steps noted by then, both worker 0's.
  const std::vector<std::vector<LossNote>> notes = {
      worker(6, 1.0, 0.0, [](int) { return 1; }), worker(2, 3.0, 0.5, [](int) { return 1; })};
  const TimeToTarget t = time_to_target(notes, 1.0, 4, Pace::free, 1);
  EXPECT_TRUE(t.reached);
  EXPECT_DOUBLE_EQ(t.seconds, 2.0);
  EXPECT_EQ(t.samples, 2u * 4);
}

TEST(TimeToTarget, NotReachedReportsWhereTheLossEnded) {
  const std::vector<std::vector<LossNote>> notes = {worker(5, 0.5, 0, [](int s) { return 3 + s; })};
  const TimeToTarget t = time_to_target(notes, 1.0, 16, Pace::lockstep, 2);
  EXPECT_FALSE(t.reached);
  EXPECT_DOUBLE_EQ(t.seconds, 2.5);
  EXPECT_EQ(t.samples, 5u * 16);
  EXPECT_DOUBLE_EQ(t.smoothed_loss, (6.0 + 7.0) / 2);
}

TEST(TimeToTarget, FewerNotesThanAWindowNeverReach) {
  const std::vector<std::vector<LossNote>> notes = {worker(3, 1.0, 0, [](int) { return 0.1; })};
  const TimeToTarget t = time_to_target(notes, 1.0, 1, Pace::lockstep, 10);
  EXPECT_FALSE(t.reached);
  EXPECT_NEAR(t.smoothed_loss, 0.1, 1e-12);
}

TEST(TimeToTarget, ALossThatIsNotFiniteCountsOnlyWhileInTheWindow) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<LossNote>> diverged = {worker(4, 1.0, 0, [&](int) { return nan; })};
  EXPECT_FALSE(time_to_target(diverged, 1.0, 1, Pace::lockstep, 1).reached);
  // NaN, then 0.1 twice: the window of 2 holds the NaN until step 2.
  const std::vector<std::vector<LossNote>> recovered = {
      worker(3, 1.0, 0, [&](int s) { return s == 0 ? nan : 0.1; })};
  const TimeToTarget t = time_to_target(recovered, 1.0, 1, Pace::lockstep, 2);
  EXPECT_TRUE(t.reached);
  EXPECT_DOUBLE_EQ(t.seconds, 3.0);
}

// A model whose forward and backward each take a known time, handing over
// two gradients, the second `tail` before backward ends.
class TimedModel final : public Model {
 public:
  using Clock = TraceClock;
  const std::string& name() const override { return name_; }
  ImageShape input_shape() const override { return {1, 1, 1}; }
  int classes() const override { return 2; }
  std::vector<Parameter>& parameters() override { return parameters_; }
  double forward_flops_per_sample() const override { return 1; }
  float forward(std::span<const float>, std::span<const int>, int) override {
    std::this_thread::sleep_for(kForward);
    return 0.5f;
  }
  void backward(const std::function<void(std::size_t)>& ready) override {
    std::this_thread::sleep_for(kBackwardPart);
    ready(0);
    std::this_thread::sleep_for(kBackwardPart);
    ready(1);
    std::this_thread::sleep_for(kBackwardPart);
  }
  static constexpr auto kForward = std::chrono::milliseconds(20);
  static constexpr auto kBackwardPart = std::chrono::milliseconds(10);

 private:
  std::string name_ = "timed";
  std::vector<Parameter> parameters_;
};

double since(TraceClock::time_point start) {
  return std::chrono::duration<double>(TraceClock::now() - start).count();
}

TEST(StragglerModel, ForwardAndBackwardTakeFactorTimesAsLong) {
  // Lower bounds only: a sleep never ends early, and the stretch is factor - 1
  // times what was measured, so each span is at least factor x its own.
  auto owned = std::make_unique<TimedModel>();
  TimedModel& inner = *owned;
  StragglerModel slowed(std::move(owned), 3.0);
  const auto start = TraceClock::now();
  EXPECT_FLOAT_EQ(slowed.forward({}, {}, 1), 0.5f);
  EXPECT_GE(since(start), 3 * 0.020);
  std::vector<double> handed;
  const auto backward_start = TraceClock::now();
  slowed.backward([&](std::size_t) { handed.push_back(since(backward_start)); });
  const double backward_s = since(backward_start);
  ASSERT_EQ(handed.size(), 2u);
  EXPECT_GE(handed[0], 3 * 0.010);  // the first gradient, as late as 3x slower compute gives it
  EXPECT_GE(handed[1], 3 * 0.020);
  EXPECT_GE(backward_s, 3 * 0.030);
  EXPECT_EQ(&slowed.parameters(), &inner.parameters());
}

TEST(StragglerModel, RefusesAFactorBelowOne) {
  EXPECT_THROW(StragglerModel(std::make_unique<TimedModel>(), 0.5), std::invalid_argument);
  EXPECT_THROW(StragglerModel(std::make_unique<TimedModel>(), std::nan("")), std::invalid_argument);
  EXPECT_NO_THROW(StragglerModel(std::make_unique<TimedModel>(), 1.0));
}

}  // namespace
}  // namespace gradsync
