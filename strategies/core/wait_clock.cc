#include "strategies/core/wait_clock.h"

#include <signal.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "strategies/core/activity.h"
#include "strategies/core/world.h"

namespace gradsync {
namespace {

// When the process was last resumed, in nanoseconds of the steady clock
// (CLOCK_MONOTONIC, which a signal handler may read); never, at first.
std::atomic<std::int64_t> g_resumed_ns{INT64_MIN};

void on_resumed(int) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  g_resumed_ns.store(std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec);
}

void watch_resumes() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_handler = on_resumed;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGCONT, &action, nullptr);
  });
}

}  // namespace

bool resumed_within(double seconds) {
  const std::int64_t resumed = g_resumed_ns.load();
  if (resumed == INT64_MIN) return false;
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const std::int64_t now_ns = std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
  return static_cast<double>(now_ns - resumed) < seconds * 1e9;
}

WaitClock::WaitClock(const char* operation, Clock::duration longest_sleep, Clock::time_point start,
                     int rank)
    : operation_(operation), rank_(rank), longest_sleep_(longest_sleep), last_(start) {
  watch_resumes();
}

WaitClock::Clock::duration WaitClock::read(Clock::time_point now) {
  const Clock::duration gap = now - last_;
  last_ = now;
  if (gap > longest_sleep_ + kPauseSlack) {
    paused_ += gap;
    warn_stall(pause_line(rank_ >= 0 ? rank_ : world_rank(), std::chrono::duration<double>(gap).count(), operation_));
  } else if (gap > Clock::duration::zero()) {
    waited_ += gap;
  }
  return waited_;
}

double WaitClock::read_s(Clock::time_point now) {
  return std::chrono::duration<double>(read(now)).count();
}

void WaitClock::restart(Clock::time_point now) {
  read(now);  // a pause just before the progress is still reported
  waited_ = Clock::duration::zero();
}

}  // namespace gradsync
