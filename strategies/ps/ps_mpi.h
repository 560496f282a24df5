#pragma once
// ps-zmq's protocol over MPI point-to-point messages (--ps-transport mpi):
// the carrier a simulated engine (SMPI) can run, where ZeroMQ's sockets and
// the shards' threads would run outside the simulation. ps_mpi.cc says what
// is the same as over ZeroMQ and what differs.

#include <memory>

#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"
#include "strategies/core/world.h"

namespace gradsync {

std::unique_ptr<Strategy> make_ps_mpi(const World& world, const StrategyOptions& options);

}  // namespace gradsync
