#pragma once
// How long a wait has lasted while this process was running.
//
// A rank that was itself stopped (SIGSTOP, a debugger, a suspended job) must
// not blame its peers for the time it did not run. mpirun ends a job by
// sending SIGCONT before SIGTERM, so a stopped rank is resumed for a moment
// when another rank gives up on it; with a plain deadline its own wait would
// find the timeout long past and print a second error naming an innocent
// peer, racing the true one.
//
// A wait reads this clock at least every `longest_sleep` (its own poll
// slice). A gap between two readings longer than that plus kPauseSlack is
// time the process did not run: it is left out of the waited time, and
// reported once as a warning that marks the run disturbed (activity.h):
// "gradsync: warning: rank 1: not running for 4.2 s in step 58 (ps-zmq
// pull): stopped, or starved of CPU; not counted against --timeout".

#include <algorithm>
#include <chrono>

namespace gradsync {

class WaitClock {
 public:
  using Clock = std::chrono::steady_clock;
  // Beyond a wait's own sleep, how long a gap must be to count as a pause:
  // far above a busy scheduler's delays (milliseconds), far below a timeout.
  static constexpr std::chrono::milliseconds kPauseSlack{500};

  // `operation` names the wait in the warning ("ps-zmq pull"); a string
  // literal. `rank` names this process in it; -1: its rank in
  // MPI_COMM_WORLD, asked when a pause is seen (give it before MPI_Init).
  WaitClock(const char* operation, Clock::duration longest_sleep,
            Clock::time_point start = Clock::now(), int rank = -1);

  // The time waited since the start or the last restart, pauses left out.
  Clock::duration read(Clock::time_point now = Clock::now());
  double read_s(Clock::time_point now = Clock::now());
  // Starts counting again from zero (the wait made progress).
  void restart(Clock::time_point now = Clock::now());
  // The process has been working since the last reading, not waiting (a
  // shard summing what arrived): that time is neither waited nor a pause.
  void skip(Clock::time_point now = Clock::now()) { last_ = now; }
  // The total of the pauses seen since construction.
  Clock::duration paused() const { return paused_; }

 private:
  const char* operation_;
  int rank_;
  Clock::duration longest_sleep_;
  Clock::time_point last_;
  Clock::duration waited_{};
  Clock::duration paused_{};
};

// Whether this process was resumed (SIGCONT) within the last `seconds`.
// A rank stopped outside any wait has no gap in a wait's clock to tell it
// (above); and mpirun ends a job by resuming its ranks a second before it
// terminates them, so a rank that was itself stopped, and is resumed only
// to be ended, would otherwise wait that second on peers that gave up on
// it, and warn that it waits for them (stall_marks.h keeps it silent).
// The handler is installed by the first WaitClock.
bool resumed_within(double seconds);

// `seconds` as a duration of the clock waits read, capped at 1e9 s so that a
// huge timeout does not overflow it.
inline WaitClock::Clock::duration wait_duration(double seconds) {
  return std::chrono::duration_cast<WaitClock::Clock::duration>(
      std::chrono::duration<double>(std::min(seconds, 1e9)));
}

}  // namespace gradsync
