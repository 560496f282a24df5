#pragma once
// `ps-zmq`: a sharded parameter server over ZeroMQ, synchronous or not (--ps-mode).

#include <memory>
#include <optional>

#include "strategies/ps/ps_async_stats.h"
#include "strategies/ps/ps_options.h"
#include "strategies/ps/ps_rejections.h"
#include "strategies/core/availability.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_ps_zmq(const World& world, const StrategyOptions& options);
Availability ps_zmq_availability();

// What this rank's server shard refused so far (any time, any rank): nullopt
// when `strategy` is not ps-zmq or this rank hosts no shard (colocated: ranks
// [0, S); dedicated: the server ranks). Sum the ranks' counts for the job's.
std::optional<PsRejections> ps_rejections(const Strategy& strategy);

// In --ps-mode async|ssp, what this rank's shard applied and saw
// (ps_async_stats.h); nullopt otherwise, or when this rank hosts no shard.
std::optional<PsAsyncStats> ps_async_stats(const Strategy& strategy);

}  // namespace gradsync
