#include "strategies/ps/ps_async_json.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace gradsync {
namespace {

nlohmann::json stat_json(const PsStalenessStat& s) {
  return {{"max", s.max}, {"sum", s.sum}, {"count", s.count}};
}

PsStalenessStat stat_from_json(const nlohmann::json& j) {
  return {j.at("max").get<std::uint64_t>(), j.at("sum").get<double>(),
          j.at("count").get<std::uint64_t>()};
}

void merge(PsStalenessStat& into, const PsStalenessStat& other) {
  into.max = std::max(into.max, other.max);
  into.sum += other.sum;
  into.count += other.count;
}

nlohmann::json summary_json(const PsStalenessStat& s) {
  return {{"max", s.max}, {"mean", s.mean()}};
}

}  // namespace

nlohmann::json to_json(const PsAsyncStats& stats) {
  return {{"steps", stats.steps}, {"lead", stat_json(stats.lead)}, {"delay", stat_json(stats.delay)}};
}

nlohmann::json ps_async_record(std::span<const nlohmann::json> per_rank,
                               std::span<const std::uint64_t> worker_steps, PsMode mode,
                               int staleness_bound) {
  PsStalenessStat lead, delay;
  nlohmann::json shard_steps = nlohmann::json::array();
  std::uint64_t lost = 0;
  for (const nlohmann::json& shard : per_rank) {
    if (shard.is_null()) continue;
    const auto steps = shard.at("steps").get<std::vector<std::uint64_t>>();
    for (std::size_t w = 0; w < std::max(steps.size(), worker_steps.size()); ++w) {
      const std::uint64_t applied = w < steps.size() ? steps[w] : 0;
      const std::uint64_t taken = w < worker_steps.size() ? worker_steps[w] : 0;
      lost += applied > taken ? applied - taken : taken - applied;
    }
    shard_steps.push_back(steps);
    merge(lead, stat_from_json(shard.at("lead")));
    merge(delay, stat_from_json(shard.at("delay")));
  }
  return {{"mode", to_string(mode)},
          {"staleness_bound", mode == PsMode::ssp ? nlohmann::json(staleness_bound) : nlohmann::json()},
          {"worker_steps", worker_steps},
          {"shard_steps", shard_steps},
          {"lost_steps", lost},
          {"staleness", summary_json(lead)},
          {"delay", summary_json(delay)}};
}

std::string ps_async_text(const nlohmann::json& r) {
  const std::string bound =
      r.at("staleness_bound").is_null() ? "" : fmt::format(" (K = {})", r.at("staleness_bound").get<int>());
  const std::uint64_t lost = r.at("lost_steps").get<std::uint64_t>();
  return fmt::format(
      "PS {}{}: worker steps {}, {}; staleness (steps ahead of the slowest) max {}, mean {:.2f}; "
      "delay (others' steps applied between a worker's pull and its push) max {}, mean {:.2f}",
      r.at("mode").get<std::string>(), bound,
      fmt::join(r.at("worker_steps").get<std::vector<std::uint64_t>>(), ", "),
      lost == 0 ? std::string("every shard applied all of them")
                : fmt::format("LOST: {} step(s) a shard did not apply", lost),
      r.at("staleness").at("max").get<std::uint64_t>(), r.at("staleness").at("mean").get<double>(),
      r.at("delay").at("max").get<std::uint64_t>(), r.at("delay").at("mean").get<double>());
}

}  // namespace gradsync
