#pragma once
// The thread under the watchdogs (init_watch.h's bound on MPI_Init,
// bounded_wait.h's BlockingCallWatch around a blocking collective): it runs
// a body that sleeps a tick at a time (Ticks::next) and looks at what it
// watches in between, until the WatchdogThread is destroyed, whose
// destructor wakes the body at once and joins it. A watchdog that is off (a
// timeout of 0 or less) starts no thread at all. The body keeps its state
// on its own thread, from start to end.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace gradsync {

class WatchdogThread {
 public:
  // What the body sleeps on.
  class Ticks {
   public:
    // Sleeps `period`, or less once the watchdog is being destroyed;
    // false then: the body returns.
    bool next(std::chrono::steady_clock::duration period);

   private:
    friend class WatchdogThread;
    explicit Ticks(WatchdogThread& owner) : owner_(owner) {}
    WatchdogThread& owner_;
  };

  // Runs `body` on a thread of its own when `on` (else does nothing). The
  // body may block or end the process between ticks; no lock is held then.
  WatchdogThread(bool on, std::function<void(Ticks&)> body);
  ~WatchdogThread();
  WatchdogThread(const WatchdogThread&) = delete;
  WatchdogThread& operator=(const WatchdogThread&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace gradsync
