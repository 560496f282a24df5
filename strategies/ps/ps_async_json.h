#pragma once
// What the parameter server's shards saw of asynchronous training
// (strategies/ps/ps_async_stats.h), as ranks exchange it, as a train record
// holds it ("ps_async") and as the run's output says it.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "strategies/ps/ps_async_stats.h"
#include "strategies/ps/ps_options.h"

namespace gradsync {

// One shard's, for the exchange between ranks: {"steps": [...], "lead":
// {"max", "sum", "count"}, "delay": {...}}.
nlohmann::json to_json(const PsAsyncStats& stats);

// The record's "ps_async", from every rank's to_json (null for a rank without
// a shard, in rank order: shard order) and every worker's own step count:
//   {"mode", "staleness_bound" (ssp; else null), "worker_steps": [...],
//    "shard_steps": [[...] per shard], "lost_steps": the steps some shard did
//    not apply, summed (0 when every shard applied every worker's every step),
//    "staleness": {"max", "mean"} (lead), "delay": {"max", "mean"}}
nlohmann::json ps_async_record(std::span<const nlohmann::json> per_rank,
                               std::span<const std::uint64_t> worker_steps, PsMode mode,
                               int staleness_bound);

// "PS ssp (K = 2): worker steps 30, 30, 30, 30, every shard applied all of
// them; staleness ... ; delay ...", one line without its newline.
std::string ps_async_text(const nlohmann::json& record);

}  // namespace gradsync
