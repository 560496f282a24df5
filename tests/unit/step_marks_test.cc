// The breakdown a step's marks give (step_marks.h), with marks stated as a
// CPU and as a GPU would take them, and the host's marks taken for real.
#include "harness/engine/step_marks.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "tests/unit/device_test_support.h"

namespace gradsync {
namespace {

using namespace std::chrono_literals;

StepClock::time_point at_ms(double ms) {
  return StepClock::time_point{} + std::chrono::duration_cast<StepClock::duration>(
                                       std::chrono::duration<double, std::milli>(ms));
}

// On the CPU backward runs on the calling thread: it has ended when the host
// starts to wait, so the exposed communication is the whole wait.
TEST(StepMarks, CpuExposedCommunicationIsTheWholeWait) {
  const StepMarkTimes m{.compute_start = at_ms(0),
                        .forward_end = at_ms(10),
                        .backward_end = at_ms(30),
                        .update_start = at_ms(45),
                        .update_end = at_ms(47),
                        .hand_overs = {at_ms(15), at_ms(22), at_ms(30)},
                        .wait_start = at_ms(31),
                        .wait_end = at_ms(44)};
  const StepBreakdown b = breakdown_of(m);
  EXPECT_NEAR(b.forward_s, 0.010, 1e-9);
  EXPECT_NEAR(b.backward_s, 0.020, 1e-9);
  EXPECT_NEAR(b.compute_s, 0.030, 1e-9);
  EXPECT_NEAR(b.exposed_comm_s, 0.013, 1e-9);
  EXPECT_NEAR(b.update_s, 0.002, 1e-9);
}

// On a GPU the host queues forward and backward and starts waiting at 4 ms,
// while the GPU's backward runs to 30 ms: the host's clock would say compute
// 4 ms and exposed 40 ms; the marks say compute 30 ms and exposed 14 ms.
TEST(StepMarks, GpuBackwardAfterTheWaitStartsIsComputeNotCommunication) {
  const StepMarkTimes m{.compute_start = at_ms(0),
                        .forward_end = at_ms(10),
                        .backward_end = at_ms(30),
                        .update_start = at_ms(44.5),
                        .update_end = at_ms(45),
                        .hand_overs = {at_ms(18), at_ms(30)},
                        .wait_start = at_ms(4),
                        .wait_end = at_ms(44)};
  const StepBreakdown b = breakdown_of(m);
  EXPECT_NEAR(b.compute_s, 0.030, 1e-9);
  EXPECT_NEAR(b.exposed_comm_s, 0.014, 1e-9);
  EXPECT_NEAR(b.update_s, 0.0005, 1e-9);
}

// Communication that ended before backward did (all of it overlapped, the
// last bucket's reduction included) exposes nothing.
TEST(StepMarks, CommunicationHiddenBehindBackwardExposesNothing) {
  const StepMarkTimes m{.compute_start = at_ms(0),
                        .forward_end = at_ms(5),
                        .backward_end = at_ms(20),
                        .update_start = at_ms(21),
                        .update_end = at_ms(22),
                        .hand_overs = {},
                        .wait_start = at_ms(2),
                        .wait_end = at_ms(19)};
  EXPECT_EQ(breakdown_of(m).exposed_comm_s, 0.0);
}

TEST(StepMarks, MarksOutOfOrderAreRefused) {
  StepMarkTimes m{.compute_start = at_ms(0),
                  .forward_end = at_ms(10),
                  .backward_end = at_ms(30),
                  .update_start = at_ms(31),
                  .update_end = at_ms(32),
                  .hand_overs = {at_ms(20), at_ms(12)},
                  .wait_start = at_ms(30),
                  .wait_end = at_ms(31)};
  EXPECT_THROW(breakdown_of(m), std::logic_error);
  m.hand_overs = {at_ms(40)};  // after backward's end
  EXPECT_THROW(breakdown_of(m), std::logic_error);
  m.hand_overs = {};
  m.update_end = at_ms(30);
  EXPECT_THROW(breakdown_of(m), std::logic_error);
}

// The host's clock, for real: marks taken around sleeps give at least the
// slept times, and settle writes each step into its own timing.
TEST(StepMarks, HostMarksSettleIntoTheirSteps) {
  StepMarks marks(make_host_compute_clock());
  std::vector<StepTiming> steps(2);
  for (int step = 0; step < 2; ++step) {
    marks.begin(step, 2, nullptr);
    marks.take(ComputeMark::compute_start);
    std::this_thread::sleep_for(2ms);
    marks.take(ComputeMark::forward_end);
    marks.take_hand_over();
    std::this_thread::sleep_for(3ms);
    marks.take_hand_over();
    marks.take(ComputeMark::backward_end);
    const auto wait_start = StepClock::now();
    std::this_thread::sleep_for(step == 0 ? 1ms : 6ms);
    const auto wait_end = StepClock::now();
    marks.take(ComputeMark::update_start);
    marks.take(ComputeMark::update_end);
    marks.end(wait_start, wait_end);
    marks.settle(&steps, false);
  }
  EXPECT_GE(steps[0].compute_s, 0.005);
  EXPECT_GE(steps[1].compute_s, 0.005);
  EXPECT_GE(steps[0].wait_s, 0.001);
  EXPECT_GE(steps[1].wait_s, 0.006);
}

// A step that hands over more gradients than it said it would is a bug the
// marks do not hide.
TEST(StepMarks, MoreHandOffsThanGradientsThrow) {
  StepMarks marks(make_host_compute_clock());
  marks.begin(0, 1, nullptr);
  marks.take_hand_over();
  EXPECT_THROW(marks.take_hand_over(), std::out_of_range);
}

#ifdef GRADSYNC_WITH_CUDA
// On a GPU: copies queued between the marks take milliseconds on the GPU and
// microseconds of the host's time to queue. The marks must time the GPU's
// work (about the host's wall time to the stream's end), not the queueing,
// and a host that never waited exposes no communication.
TEST(StepMarksOnGpu, TimeTheQueuedWorkNotTheQueueing) {
  if (const std::string why = testing::no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
  const std::size_t floats = std::size_t{64} << 20;  // 256 MiB a copy
  testing::DeviceBlock block(0, {floats});
  const Model::DeviceState& state = block.state();
  const auto stream = static_cast<cudaStream_t>(state.stream);
  auto copies = [&](int n) {
    for (int i = 0; i < n; ++i)
      check_cuda(cudaMemcpyAsync(state.grads.data(), state.values.data(), state.values.size_bytes(),
                                 cudaMemcpyDeviceToDevice, stream),
                 "cudaMemcpyAsync");
  };
  StepMarks marks(cuda::make_compute_clock(state));
  std::vector<StepTiming> steps(1);
  const auto queued_from = StepClock::now();
  marks.begin(0, 1, nullptr);
  marks.take(ComputeMark::compute_start);
  copies(10);
  marks.take(ComputeMark::forward_end);
  copies(20);
  marks.take_hand_over();
  marks.take(ComputeMark::backward_end);
  const auto queued_to = StepClock::now();
  marks.take(ComputeMark::update_start);
  marks.take(ComputeMark::update_end);
  marks.end(queued_to, queued_to);
  marks.settle(&steps, false);  // never waits
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const double wall_s = seconds(StepClock::now() - queued_from);
  marks.settle(&steps, true);
  const double queueing_s = seconds(queued_to - queued_from);
  EXPECT_GT(steps[0].compute_s, 5 * queueing_s) << "queueing took " << queueing_s << " s";
  EXPECT_LE(steps[0].compute_s, wall_s);
  EXPECT_GT(steps[0].compute_s, 0.5 * wall_s) << "wall " << wall_s << " s";
  EXPECT_EQ(steps[0].wait_s, 0.0);
}
#endif

}  // namespace
}  // namespace gradsync
