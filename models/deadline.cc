#include "models/deadline.h"

#include <thread>

namespace gradsync {

void wait_until(SteadyTime deadline) {
  using namespace std::chrono;
  constexpr auto kSpin = microseconds(100);  // the last stretch is spun, not slept
  const auto now = steady_clock::now();
  if (deadline - now > kSpin) std::this_thread::sleep_until(deadline - kSpin);
  while (steady_clock::now() < deadline) {
  }
}

}  // namespace gradsync
