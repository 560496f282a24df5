#include "strategies/core/stall_marks.h"

#include <algorithm>

#include "strategies/core/activity.h"

namespace gradsync {
namespace {

StallMarks::Clock::duration after(double seconds) {
  return std::chrono::duration_cast<StallMarks::Clock::duration>(
      std::chrono::duration<double>(std::min(seconds, 1e9)));
}

}  // namespace

double hold_s(double timeout_s) { return std::min(timeout_s / 2, 5.0); }

StallMarks::StallMarks(double timeout_s, int rank, Voice voice)
    : rank_(rank),
      speaks_(voice == Voice::speaks),
      marks_{after(timeout_s / 4), after(timeout_s / 2), after(timeout_s),
             after(timeout_s + hold_s(timeout_s))} {}

std::optional<Blame> StallMarks::pass(std::span<const int> whom,
                                      const std::function<std::string(const Blame&)>& warning) {
  switch (passed_++) {
    case 0:
      report_.emplace(whom);
      return std::nullopt;
    case 1: {
      const Blame blame = report_->judge(whom);
      if (speaks_ && blame.speaker == rank_) warn_stall(warning(blame));
      else note_stall(warning(blame));
      return std::nullopt;
    }
    case 2: {
      Blame blame = report_->judge(whom);
      if (speaks_ && blame.speaker == rank_) return blame;
      return std::nullopt;
    }
    default:
      passed_ = 3;
      return report_->judge(whom);
  }
}

void StallMarks::reset() {
  passed_ = 0;
  report_.reset();
}

}  // namespace gradsync
