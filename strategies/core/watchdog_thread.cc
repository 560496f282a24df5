#include "strategies/core/watchdog_thread.h"

#include "strategies/core/thread_start.h"

namespace gradsync {

bool WatchdogThread::Ticks::next(std::chrono::steady_clock::duration period) {
  std::unique_lock lock(owner_.mu_);
  return !owner_.wake_.wait_for(lock, period, [&] { return owner_.stop_; });
}

WatchdogThread::WatchdogThread(bool on, std::function<void(Ticks&)> body) {
  if (!on) return;
  thread_ = start_thread("a --timeout watchdog", [&] {
    return std::thread([this, body = std::move(body)] {
      Ticks ticks(*this);
      body(ticks);
    });
  });
}

WatchdogThread::~WatchdogThread() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

}  // namespace gradsync
