#include "strategies/core/wait_clock.h"

#include "strategies/core/activity.h"
#include "strategies/core/world.h"

namespace gradsync {

WaitClock::WaitClock(const char* operation, Clock::duration longest_sleep, Clock::time_point start,
                     int rank)
    : operation_(operation), rank_(rank), longest_sleep_(longest_sleep), last_(start) {}

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
