#include "strategies/ps/ps_rejections_json.h"

#include <fmt/format.h>

namespace gradsync {

nlohmann::json to_json(const PsRejections& rejections) {
  return {{"total", rejections.total}, {"reasons", rejections.by_reason}, {"last", rejections.last}};
}

PsRejections ps_rejections_from_json(const nlohmann::json& json) {
  PsRejections out;
  out.total = json.at("total").get<std::uint64_t>();
  out.by_reason = json.at("reasons").get<std::map<std::string, std::uint64_t>>();
  out.last = json.value("last", "");
  return out;
}

nlohmann::json merged_ps_rejections(const std::vector<nlohmann::json>& per_rank) {
  std::optional<PsRejections> all;
  for (const auto& rank : per_rank) {
    if (rank.is_null()) continue;
    if (!all) all.emplace();
    all->merge(ps_rejections_from_json(rank));
  }
  return all ? to_json(*all) : nlohmann::json();
}

std::string ps_rejections_text(const PsRejections& rejections) {
  if (rejections.total == 0) return "none";
  std::string reasons;
  for (const auto& [reason, count] : rejections.by_reason)
    reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", reason, count);
  return fmt::format("{} message{} ({}); last: {}", rejections.total,
                     rejections.total == 1 ? "" : "s", reasons, rejections.last);
}

}  // namespace gradsync
