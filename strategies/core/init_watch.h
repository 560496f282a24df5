#pragma once
// MPI_Init, bounded. Open MPI's MPI_Init ends with a fence (PMIx) that waits
// for every rank of the job without a bound: a rank that never starts, or
// stops while starting, would leave the others there until mpirun is
// killed. While an InitWatch lives, a watchdog thread counts the time this
// process runs (wait_clock.h: a pause of the process itself is not counted)
// and, once it passes `timeout_s`, prints one line and ends the process
// with status 1; mpirun then takes the rest of the job down. No MPI call can
// be made yet, so the ranks cannot tell each other whom they wait for (as
// stall_board.h does later): they give up in turn by launcher rank, 2.5 s
// apart (init_give_up_s), so that the first line ends the job before the
// next is due: Open MPI's mpirun, once a rank exits, sends the others
// SIGCONT, then SIGTERM a second later (seen with strace), and the line
// names no rank. With a timeout of 0 or less
// there is no thread.

#include "strategies/core/watchdog_thread.h"

namespace gradsync {

// When the rank at launcher rank `rank` gives up: `timeout_s`, then 2.5 s
// per rank before it, for at most 8 ranks.
double init_give_up_s(double timeout_s, int rank);

class InitWatch {
 public:
  // `rank`: this process's rank as its launcher announced it (environment).
  InitWatch(double timeout_s, int rank);
  // MPI_Init returned: the watchdog stops.
  ~InitWatch();
  InitWatch(const InitWatch&) = delete;
  InitWatch& operator=(const InitWatch&) = delete;

 private:
  void watch(WatchdogThread::Ticks& ticks);

  const double timeout_s_;
  const int rank_;
  WatchdogThread thread_;  // last: its body reads the members above
};

}  // namespace gradsync
