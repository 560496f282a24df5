#include "strategies/ps/ps_job.h"

#include <fmt/core.h>

namespace gradsync {
namespace {

// Joins the first `limit` items as `item(i)` and says how many were left out.
template <typename Item>
std::string joined(std::size_t count, std::size_t limit, Item item) {
  std::string text;
  for (std::size_t i = 0; i < count && i < limit; ++i) text += (i ? ", " : "") + item(i);
  if (count > limit) text += fmt::format(" and {} more", count - limit);
  return text;
}

}  // namespace

PsJob ps_job_ranks(int world_size, const PsZmqOptions& ps, bool spans_hosts) {
  const bool dedicated = ps.placement == PsPlacement::dedicated;
  PsJob job;
  for (int s = 0; s < ps.servers; ++s) job.shard_ranks.push_back(s);
  for (int r = dedicated ? ps.servers : 0; r < world_size; ++r) job.worker_ranks.push_back(r);
  job.spans_hosts = spans_hosts;
  return job;
}

World ps_role_peers(const World& world, const PsZmqOptions& ps) {
  if (ps.placement == PsPlacement::colocated) return world.duplicate();
  return world.split(world.rank() < ps.servers ? 0 : 1);
}

std::string describe_workers(const PsJob& job, std::span<const std::uint32_t> workers,
                             std::size_t limit) {
  return (workers.size() == 1 ? "worker " : "workers ") +
         joined(workers.size(), limit, [&](std::size_t i) {
           return fmt::format("{} (rank {})", workers[i],
                              job.worker_rank(static_cast<int>(workers[i])));
         });
}

std::string alive_question(const PsJob& job, std::span<const std::uint32_t> workers,
                           std::size_t limit) {
  return (workers.size() == 1 ? "is rank " : "are ranks ") +
         joined(workers.size(), limit,
                [&](std::size_t i) {
                  return std::to_string(job.worker_rank(static_cast<int>(workers[i])));
                }) +
         " alive?";
}

std::string list_text(std::span<const std::uint32_t> values, std::size_t limit) {
  return joined(values.size(), limit, [&](std::size_t i) { return std::to_string(values[i]); });
}

}  // namespace gradsync
