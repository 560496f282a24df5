#pragma once
// `ps-zmq`: a sharded parameter server over ZeroMQ, synchronous or not
// (--ps-mode), or its synchronous protocol over MPI messages (ps_mpi.h).

#include <memory>
#include <span>

#include "strategies/core/availability.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"
#include "strategies/ps/ps_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_ps_zmq(const World& world, const StrategyOptions& options);
Availability ps_zmq_availability();

// Both carriers' broadcast: an allreduce of `ps` in which every worker but
// `root` (a rank of ps.peers()) pushes -0.0.
void broadcast_by_sum(Strategy& ps, std::span<float> buffer, int root);

}  // namespace gradsync
