#include "strategies/core/init_watch.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "strategies/core/wait_clock.h"

namespace gradsync {

double init_give_up_s(double timeout_s, int rank) {
  constexpr int kMaxTurns = 8;
  constexpr double kTurnS = 2.5;
  return timeout_s + std::clamp(rank, 0, kMaxTurns) * kTurnS;
}

InitWatch::InitWatch(double timeout_s, int rank)
    : timeout_s_(timeout_s),
      rank_(rank),
      thread_(timeout_s > 0, [this](WatchdogThread::Ticks& ticks) { watch(ticks); }) {}

InitWatch::~InitWatch() = default;

void InitWatch::watch(WatchdogThread::Ticks& ticks) {
  const auto tick = wait_duration(std::clamp(timeout_s_ / 50, 0.01, 0.1));
  const auto limit = wait_duration(init_give_up_s(timeout_s_, rank_));
  WaitClock clock("MPI_Init", tick, WaitClock::Clock::now(), rank_);
  while (ticks.next(tick)) {
    if (clock.read() < limit) continue;
    const std::string line = fmt::format(
        "gradsync: error: rank {}: MPI_Init did not complete within {:g} s (--timeout + 3 s): a "
        "rank of the job did not start, or stopped while starting, and every rank waits there "
        "for all; is every rank alive?\n",
        rank_, timeout_s_);
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    std::_Exit(1);
  }
}

}  // namespace gradsync
