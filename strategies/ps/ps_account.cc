#include "strategies/ps/ps_account.h"

#include <fmt/core.h>

#include <algorithm>
#include <vector>

#include "strategies/ps/ps_async_json.h"
#include "strategies/ps/ps_job.h"
#include "strategies/ps/ps_rejections_json.h"

namespace gradsync {
namespace {

// How many threads each shared-memory sum ran on, "" when no shard took
// that path: "; sums on 2 threads", or "; sums on 1 to 2 threads" when the
// shards differ (hosts with other cores).
std::string sum_threads_text(int fewest, int most) {
  if (most == 0) return "";
  if (fewest == most) return fmt::format("; sums on {} thread{}", most, most == 1 ? "" : "s");
  return fmt::format("; sums on {} to {} threads", fewest, most);
}

// Which workers a shard serves through shared memory (its part's
// "shared_workers"), and of those which it reads in place
// ("in_place_workers"); the others take ZeroMQ.
struct ShardPath {
  std::uint32_t shard = 0;
  std::vector<std::uint32_t> shared, in_place;
};

// The shards' data paths, merged. Parts written before the per-worker path
// (and --ps-transport mpi's) carry only a shard's "shared_memory" flag:
// `workers` stays 0 and `by_shard` empty.
struct DataPath {
  int shards = 0;             // every shard
  int shared = 0;             // those serving some worker through shared memory
  std::uint64_t workers = 0;  // the job's workers, when the parts say
  std::vector<ShardPath> by_shard;
  bool says_in_place = false;                // parts written before in-place reads do not
  int fewest_threads = 0, most_threads = 0;  // a shared sum's, over the shards on that path

  void add(const nlohmann::json& part) {
    ++shards;
    if (part.at("shared_memory").get<bool>()) {
      const int threads = part.value("sum_threads", 1);
      fewest_threads = shared == 0 ? threads : std::min(fewest_threads, threads);
      most_threads = std::max(most_threads, threads);
      ++shared;
    }
    if (!part.contains("shared_workers")) return;
    workers = part.at("workers").get<std::uint64_t>();
    says_in_place = says_in_place || part.contains("in_place_workers");
    ShardPath path{
        part.at("shard").get<std::uint32_t>(),
        part.at("shared_workers").get<std::vector<std::uint32_t>>(),
        part.value("in_place_workers", std::vector<std::uint32_t>{}),
    };
    std::sort(path.shared.begin(), path.shared.end());
    std::sort(path.in_place.begin(), path.in_place.end());
    const auto after = std::find_if(by_shard.begin(), by_shard.end(),
                                    [&](const ShardPath& p) { return p.shard > path.shard; });
    by_shard.insert(after, std::move(path));  // in shard order
  }

  nlohmann::json record() const {
    nlohmann::json out = {{"shards", shared}, {"of", shards}};
    if (shared > 0) out["sum_threads"] = most_threads;
    if (workers == 0) return out;
    out["workers"] = workers;
    out["by_shard"] = nlohmann::json::array();
    for (const ShardPath& path : by_shard) {
      std::vector<std::uint32_t> zeromq;
      for (std::uint32_t w = 0; w < workers; ++w)
        if (!std::binary_search(path.shared.begin(), path.shared.end(), w)) zeromq.push_back(w);
      nlohmann::json shard = {
          {"shard", path.shard}, {"shared_memory", path.shared}, {"zeromq", zeromq}};
      if (says_in_place) shard["in_place"] = path.in_place;
      out["by_shard"].push_back(std::move(shard));
    }
    if (says_in_place) out["in_place_pairs"] = in_place_pairs();
    return out;
  }

  // Of those pairs, the ones whose values the shard read where they lie.
  std::uint64_t in_place_pairs() const {
    std::uint64_t pairs = 0;
    for (const ShardPath& path : by_shard) pairs += path.in_place.size();
    return pairs;
  }

  // How the shared pairs' values moved: "; read and written in place" (all),
  // "; in place for 2 of 4 pairs, copied for the others", or "; copied
  // through segments"; "" without shared pairs or parts that say.
  std::string in_place_text() const {
    const std::uint64_t shared = shared_pairs(), in_place = in_place_pairs();
    if (shared == 0 || !says_in_place) return "";
    if (in_place == shared) return "; read and written in place";
    if (in_place == 0) return "; copied through segments";
    return fmt::format("; in place for {} of {} pairs, copied for the others", in_place, shared);
  }

  // Worker-shard pairs through shared memory, of all.
  std::uint64_t shared_pairs() const {
    std::uint64_t pairs = 0;
    for (const ShardPath& path : by_shard) pairs += path.shared.size();
    return pairs;
  }

  // "2 of 4 workers at 2 of 2 shards (shards 0, 1: workers 0, 1)": shards
  // with the same shared workers in one group, at most 4 groups named.
  std::string mixed_text() const {
    std::vector<std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>>> groups;
    std::size_t fewest = workers, most = 0;
    for (const ShardPath& path : by_shard) {
      if (path.shared.empty()) continue;
      fewest = std::min(fewest, path.shared.size());
      most = std::max(most, path.shared.size());
      auto same = std::find_if(groups.begin(), groups.end(),
                               [&](const auto& group) { return group.first == path.shared; });
      if (same == groups.end()) same = groups.insert(groups.end(), {path.shared, {}});
      same->second.push_back(path.shard);
    }
    std::string named;
    constexpr std::size_t kGroups = 4;
    for (std::size_t i = 0; i < groups.size() && i < kGroups; ++i)
      named += fmt::format("{}shard{} {}: worker{} {}", i ? "; " : "",
                           groups[i].second.size() == 1 ? "" : "s", list_text(groups[i].second),
                           groups[i].first.size() == 1 ? "" : "s", list_text(groups[i].first));
    if (groups.size() > kGroups) named += fmt::format("; and {} more", groups.size() - kGroups);
    return fmt::format(
        "{} of {} workers at {} of {} shard{} ({})",
        fewest == most ? fmt::format("{}", most) : fmt::format("{}-{}", fewest, most), workers,
        shared, shards, shards == 1 ? "" : "s", named);
  }

  std::string text(std::uint64_t partition_bytes) const {
    const std::uint64_t pairs = shared_pairs();
    const bool mixed = workers > 0 && pairs > 0 && pairs < workers * by_shard.size();
    if (mixed)
      return fmt::format(
          "PS data path: shared memory for {}, ZeroMQ for the others{}{}; partitions of {} B",
          mixed_text(), in_place_text(), sum_threads_text(fewest_threads, most_threads),
          partition_bytes);
    return fmt::format(
        "PS data path: shared memory at {} of {} shard{}{}{}{}; partitions of {} B", shared, shards,
        shards == 1 ? "" : "s",
        shared == shards ? " (every worker on its shard's host; ZeroMQ carries headers only)"
        : shared == 0    ? " (ZeroMQ carries every byte)"
                         : " (the others have a worker on another host: ZeroMQ)",
        in_place_text(), sum_threads_text(fewest_threads, most_threads), partition_bytes);
  }
};

}  // namespace

RunAccount ps_zmq_merge_account(std::span<const std::string> per_rank,
                                const AccountInputs& inputs) {
  std::vector<nlohmann::json> refused, applied;
  DataPath path;
  int rotated = 0;
  std::uint64_t partition_bytes = 0;  // the same on every shard
  bool over_mpi = false;              // --ps-transport mpi (ps_mpi.h)
  for (const std::string& text : per_rank) {
    const nlohmann::json part = text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
    if (part.is_object() && part.contains("shared_memory")) {
      path.add(part);
      partition_bytes = part.value("partition_bytes", std::uint64_t{0});
      rotated += part.value("rotated", false) ? 1 : 0;
      over_mpi = part.value("transport", "") == "mpi";
    }
    refused.push_back(part.is_object() ? part.value("rejected", nlohmann::json())
                                       : nlohmann::json());
    applied.push_back(part.is_object() ? part.value("async", nlohmann::json()) : nlohmann::json());
  }
  RunAccount out;
  const PsZmqOptions& ps = inputs.options->ps;
  if (ps.mode != PsMode::sync && !inputs.worker_steps.empty()) {
    const nlohmann::json async =
        ps_async_record(applied, inputs.worker_steps, ps.mode, ps.staleness);
    out.fields["ps_async"] = async;
    out.lines.push_back(ps_async_text(async));
    if (const auto lost = async.at("lost_steps").get<std::uint64_t>(); lost > 0)
      out.failure = fmt::format(
          "the PS shards did not apply {} of the workers' gradient steps (worker steps {}, shard "
          "steps {})",
          lost, async.at("worker_steps").dump(), async.at("shard_steps").dump());
  }
  if (path.shards > 0) {
    out.fields["ps_shared_memory"] = path.record();
    out.fields["ps_partition_bytes"] = partition_bytes;
    if (over_mpi)
      out.lines.push_back(
          fmt::format("PS data path: MPI messages at {} shard{}; partitions of {} B", path.shards,
                      path.shards == 1 ? "" : "s", partition_bytes));
    else
      out.lines.push_back(path.text(partition_bytes));
  }
  if (path.shards > 0 && !over_mpi) {
    out.fields["ps_schedule"] = {{"rotated", rotated}, {"of", path.shards}, {"window", ps.window}};
    out.lines.push_back(
        rotated == 0
            ? "PS schedule: all at once (every push leaves together; each sum goes to "
              "every worker when ready)"
            : fmt::format("PS schedule: rotated at {} of {} shard{} (worker w starts at "
                          "shard w; at most {} push{} unacknowledged and {} pull{} "
                          "outstanding per worker)",
                          rotated, path.shards, path.shards == 1 ? "" : "s", ps.window,
                          ps.window == 1 ? "" : "es", ps.window, ps.window == 1 ? "" : "s"));
  }
  const nlohmann::json rejected = merged_ps_rejections(refused);
  if (!rejected.is_null()) {
    out.fields["ps_rejected"] = rejected;
    out.lines.push_back("Refused by PS shards: " +
                        ps_rejections_text(ps_rejections_from_json(rejected)));
  }
  return out;
}

}  // namespace gradsync
