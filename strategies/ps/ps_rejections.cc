#include "strategies/ps/ps_rejections.h"

namespace gradsync {

const char* to_string(PsRejectReason reason) {
  switch (reason) {
    case PsRejectReason::malformed:
      return "malformed";
    case PsRejectReason::unknown_worker:
      return "unknown_worker";
    case PsRejectReason::handshake:
      return "handshake";
    case PsRejectReason::wrong_identity:
      return "wrong_identity";
    case PsRejectReason::after_bye:
      return "after_bye";
    case PsRejectReason::plan_mismatch:
      return "plan_mismatch";
    case PsRejectReason::stale_step:
      return "stale_step";
    case PsRejectReason::out_of_window:
      return "out_of_window";
    case PsRejectReason::duplicate:
      return "duplicate";
    case PsRejectReason::wrong_direction:
      return "wrong_direction";
    case PsRejectReason::wrong_mode:
      return "wrong_mode";
  }
  return "unknown";
}

void PsRejections::add(PsRejectReason reason, std::string why) {
  ++total;
  ++by_reason[to_string(reason)];
  last = std::move(why);
}

void PsRejections::merge(const PsRejections& other) {
  total += other.total;
  for (const auto& [reason, count] : other.by_reason) by_reason[reason] += count;
  if (!other.last.empty()) last = other.last;
}

}  // namespace gradsync
