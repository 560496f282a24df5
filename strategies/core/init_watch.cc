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

InitWatch::InitWatch(double timeout_s, int rank) : timeout_s_(timeout_s), rank_(rank) {
  if (timeout_s_ > 0) thread_ = std::thread([this] { watch(); });
}

InitWatch::~InitWatch() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void InitWatch::watch() {
  const auto tick = wait_duration(std::clamp(timeout_s_ / 50, 0.01, 0.1));
  const auto limit = wait_duration(init_give_up_s(timeout_s_, rank_));
  WaitClock clock("MPI_Init", tick, WaitClock::Clock::now(), rank_);
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, tick, [&] { return done_; })) {
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
