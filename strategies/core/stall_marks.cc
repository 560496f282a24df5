#include "strategies/core/stall_marks.h"

#include <algorithm>
#include <cstddef>

#include "strategies/core/activity.h"
#include "strategies/core/wait_clock.h"

namespace gradsync {
namespace {

// How many places apart the holding ranks give up at most (the 9th and
// later ranks give up together).
constexpr int kMaxPlace = 8;

}  // namespace

double hold_s(double timeout_s) { return std::clamp(timeout_s / 2, 1.5, 5.0); }

double give_up_delay_s(double timeout_s, int place) {
  return std::min(place, kMaxPlace) * std::min(hold_s(timeout_s) / 4, 0.5);
}

StallMarks::StallMarks(double timeout_s, int rank, Voice voice)
    : timeout_s_(timeout_s),
      rank_(rank),
      speaks_(voice == Voice::speaks),
      marks_{wait_duration(timeout_s / 4), wait_duration(timeout_s / 2), wait_duration(timeout_s),
             wait_duration(timeout_s + hold_s(timeout_s))} {}

std::optional<Blame> StallMarks::pass(std::span<const int> whom,
                                      const std::function<std::string(const Blame&)>& warning) {
  switch (passed_++) {
    case 0:
      report_.emplace(rank_, whom);
      return std::nullopt;
    case 1: {
      const Blame blame = report_->judge(whom);
      // A rank resumed within the timeout was itself stopped: its peers
      // may have given up on it, and it does not warn of them.
      if (speaks_ && blame.speaker == rank_ && !resumed_within(timeout_s_))
        warn_stall(warning(blame));
      else
        note_stall(warning(blame));
      return std::nullopt;
    }
    case 2: {
      Blame blame = report_->judge(whom);
      if (speaks_ && blame.speaker == rank_) return blame;
      // Ranks that judged differently (they saw different reports) may all
      // hold; they give up in turn, the lowest first, a little apart, so
      // that the first one's line ends the job before the next one's.
      const auto me = std::find(blame.behind.begin(), blame.behind.end(), rank_);
      marks_[3] += wait_duration(give_up_delay_s(timeout_s_, static_cast<int>(me - blame.behind.begin())));
      return std::nullopt;
    }
    default:
      passed_ = 3;
      return report_->judge(whom);
  }
}

void StallMarks::reset() {
  passed_ = 0;
  marks_[3] = wait_duration(timeout_s_ + hold_s(timeout_s_));
  report_.reset();
}

}  // namespace gradsync
