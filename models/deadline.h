#pragma once
// Waiting until a point on the steady clock, accurately: sleep while the
// deadline is far, spin for the last stretch (a sleep can overshoot by tens
// of microseconds; a spin by nanoseconds).

#include <chrono>

namespace gradsync {

using SteadyTime = std::chrono::steady_clock::time_point;

void wait_until(SteadyTime deadline);

}  // namespace gradsync
