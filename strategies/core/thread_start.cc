#include "strategies/core/thread_start.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gradsync {
namespace {

// "Resource temporarily unavailable": the error's own words, without the
// library's prefix ("thread constructor failed: ").
std::string reason(const std::system_error& e) { return e.code().message(); }

}  // namespace

void throw_refused_thread(const std::string& what, const std::system_error& e) {
  throw std::runtime_error(fmt::format(
      "{}: cannot start a thread: {} (the host's limit on threads or memory is reached)", what,
      reason(e)));
}

std::vector<std::thread> start_threads(const std::string& what, int count,
                                       const std::function<void(int)>& body,
                                       const std::function<void()>& stop) {
  std::vector<std::thread> threads;
  threads.reserve(std::size_t(count));
  for (int i = 0; i < count; ++i) {
    try {
      threads.emplace_back([body, i] { body(i); });
    } catch (const std::system_error& e) {
      stop();
      for (auto& thread : threads) thread.join();
      throw std::runtime_error(
          fmt::format("{}: cannot start thread {} of {}: {} (this host started {}; ask for fewer)",
                      what, i + 1, count, reason(e), i));
    }
  }
  return threads;
}

}  // namespace gradsync
