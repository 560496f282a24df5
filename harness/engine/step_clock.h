#pragma once
// The clock the training step's times are taken on, and its durations in
// seconds.

#include <chrono>

namespace gradsync {

using StepClock = std::chrono::steady_clock;

inline double seconds(StepClock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace gradsync
