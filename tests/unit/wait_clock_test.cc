// WaitClock (strategies/core/wait_clock.h): a wait's time leaves out the gaps in
// which its own process did not run, and says so once per gap.
#include "strategies/core/wait_clock.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "strategies/core/activity.h"

namespace gradsync {
namespace {

using Clock = WaitClock::Clock;
using std::chrono::milliseconds;

TEST(WaitClock, CountsGapsUpToTheSleepPlusTheSlack) {
  const Clock::time_point t0{};
  WaitClock clock("test wait", milliseconds(100), t0);
  take_stalls();
  Clock::time_point t = t0;
  for (int i = 0; i < 10; ++i) {  // 10 readings 100 ms apart, then one 600 ms later
    t += milliseconds(100);
    clock.read(t);
  }
  t += milliseconds(100) + WaitClock::kPauseSlack;  // exactly at the bound: still waiting
  EXPECT_EQ(clock.read(t), milliseconds(1600));
  EXPECT_EQ(clock.paused(), Clock::duration::zero());
  EXPECT_EQ(take_stalls().count, 0u);
}

TEST(WaitClock, LeavesOutAPauseAndWarnsOnce) {
  const Clock::time_point t0{};
  WaitClock clock("test wait", Clock::duration::zero(), t0);
  take_stalls();
  set_activity("step 58");
  clock.read(t0 + milliseconds(300));
  const Clock::time_point resumed = t0 + milliseconds(4500);  // stopped for 4.2 s
  EXPECT_EQ(clock.read(resumed), milliseconds(300));
  EXPECT_EQ(clock.read(resumed + milliseconds(200)), milliseconds(500));
  EXPECT_EQ(clock.paused(), milliseconds(4200));
  const Stalls stalls = take_stalls();
  EXPECT_EQ(stalls.count, 1u);
  EXPECT_EQ(stalls.first,
            "rank 0: not running for 4.2 s in step 58 (test wait): stopped, or starved of CPU; "
            "not counted against --timeout");
  set_activity("");
}

TEST(WaitClock, RestartCountsFromZeroButStillReportsAPauseBeforeIt) {
  const Clock::time_point t0{};
  WaitClock clock("test wait", milliseconds(100), t0);
  take_stalls();
  clock.read(t0 + milliseconds(90));
  clock.restart(t0 + milliseconds(2000));  // a pause, then the progress
  EXPECT_EQ(take_stalls().count, 1u);
  EXPECT_EQ(clock.read(t0 + milliseconds(2050)), milliseconds(50));
  EXPECT_EQ(clock.paused(), milliseconds(1910));
}

TEST(WaitClock, ANonMonotonicReadingCountsNothing) {
  const Clock::time_point t0 = Clock::time_point{} + milliseconds(1000);
  WaitClock clock("test wait", milliseconds(100), t0);
  EXPECT_EQ(clock.read(t0 - milliseconds(10)), Clock::duration::zero());
  EXPECT_EQ(clock.read(t0 + milliseconds(40)), milliseconds(50));
}

// A resume (SIGCONT, as mpirun sends before it ends a job) is seen by
// resumed_within for the time asked, then no longer.
TEST(WaitClock, AResumeIsSeenForTheTimeAsked) {
  WaitClock clock("test wait", milliseconds(100));  // installs the handler
  ASSERT_EQ(raise(SIGCONT), 0);
  EXPECT_TRUE(resumed_within(60));
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(resumed_within(0.01));
  EXPECT_TRUE(resumed_within(60));
}

}  // namespace
}  // namespace gradsync
