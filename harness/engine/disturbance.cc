#include "harness/engine/disturbance.h"

#include <fmt/format.h>

#include "strategies/core/activity.h"

namespace gradsync {

DisturbanceWatch::DisturbanceWatch(double timeout_s) : timeout_s_(timeout_s) { take_stalls(); }

void DisturbanceWatch::collect_stalls() {
  const Stalls stalls = take_stalls();
  if (stalls.count == 0) return;
  if (events_ == 0) first_ = stalls.first;
  events_ += stalls.count;
}

void DisturbanceWatch::timed(std::string_view kind, long index, double seconds) {
  if (timeout_s_ <= 0 || seconds <= timeout_s_) return;
  if (events_++ == 0)
    first_ = fmt::format("rank {}: {} {} took {:.1f} s, longer than the {:g} s --timeout",
                         world_rank(), kind, index, seconds, timeout_s_);
}

std::string DisturbanceWatch::agree(const World& peers) const {
  std::string first;
  std::uint64_t events = 0;
  for (const std::string& report : peers.allgather(fmt::format("{} {}", events_, first_))) {
    const auto space = report.find(' ');
    events += std::stoull(report.substr(0, space));
    if (first.empty()) first = report.substr(space + 1);
  }
  if (events > 1) first += fmt::format(" ({} events in all)", events);
  return first;
}

}  // namespace gradsync
