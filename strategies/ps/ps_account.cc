#include "strategies/ps/ps_account.h"

#include <fmt/core.h>

#include <algorithm>

#include "strategies/ps/ps_async_json.h"
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

}  // namespace

RunAccount ps_zmq_merge_account(std::span<const std::string> per_rank,
                                const AccountInputs& inputs) {
  std::vector<nlohmann::json> refused, applied;
  int shards = 0, shared = 0;
  int fewest_threads = 0, most_threads = 0;  // a shared sum's, over the shards on that path
  std::uint64_t partition_bytes = 0;  // the same on every shard
  bool over_mpi = false;              // --ps-transport mpi (ps_mpi.h)
  for (const std::string& text : per_rank) {
    const nlohmann::json part = text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
    if (part.is_object() && part.contains("shared_memory")) {
      ++shards;
      if (part.at("shared_memory").get<bool>()) {
        const int threads = part.value("sum_threads", 1);
        fewest_threads = shared == 0 ? threads : std::min(fewest_threads, threads);
        most_threads = std::max(most_threads, threads);
        ++shared;
      }
      partition_bytes = part.value("partition_bytes", std::uint64_t{0});
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
  if (shards > 0) {
    out.fields["ps_shared_memory"] = {{"shards", shared}, {"of", shards}};
    if (shared > 0) out.fields["ps_shared_memory"]["sum_threads"] = most_threads;
    out.fields["ps_partition_bytes"] = partition_bytes;
    if (over_mpi)
      out.lines.push_back(fmt::format(
          "PS data path: MPI messages at {} shard{}; partitions of {} B", shards,
          shards == 1 ? "" : "s", partition_bytes));
    else
      out.lines.push_back(fmt::format(
          "PS data path: shared memory at {} of {} shard{}{}{}; partitions of {} B", shared, shards,
          shards == 1 ? "" : "s",
          shared == shards ? " (every worker on its shard's host; ZeroMQ carries headers only)"
          : shared == 0    ? " (ZeroMQ carries every byte)"
                           : " (the others have a worker on another host: ZeroMQ)",
          sum_threads_text(fewest_threads, most_threads), partition_bytes));
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
