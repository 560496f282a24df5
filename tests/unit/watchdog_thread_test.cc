// The thread under the watchdogs (strategies/core/watchdog_thread.h): off,
// its body never runs; on, the body runs on a thread of its own and its
// ticks go on until the watchdog is destroyed, which wakes a body asleep
// in a tick of an hour at once (a destructor that waited out the tick would
// hang this test until CTest's timeout).
#include "strategies/core/watchdog_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace gradsync {
namespace {

using namespace std::chrono_literals;

TEST(WatchdogThread, OffRunsNothing) {
  std::atomic<bool> ran{false};
  {
    WatchdogThread off(false, [&](WatchdogThread::Ticks&) { ran = true; });
  }
  EXPECT_FALSE(ran);
}

TEST(WatchdogThread, TicksUntilDestroyedAndWakesAtOnce) {
  std::atomic<int> ticks{0};
  std::atomic<bool> returned{false};
  std::thread::id body_thread;
  {
    WatchdogThread on(true, [&](WatchdogThread::Ticks& t) {
      body_thread = std::this_thread::get_id();
      while (t.next(ticks < 3 ? 1ms : 1h)) ++ticks;
      returned = true;
    });
    while (ticks < 3) std::this_thread::sleep_for(1ms);
  }  // the body sleeps in a tick of an hour here
  EXPECT_EQ(ticks, 3);
  EXPECT_TRUE(returned);
  EXPECT_NE(body_thread, std::this_thread::get_id());
}

}  // namespace
}  // namespace gradsync
