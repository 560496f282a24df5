#pragma once
// `ps-zmq`: a synchronous, sharded parameter server over ZeroMQ.

#include <memory>

#include "strategies/registry.h"

namespace gradsync {

std::unique_ptr<Strategy> make_ps_zmq(const World& world, const StrategyOptions& options);
Availability ps_zmq_availability();

// Whether world rank `rank` is a dedicated server (it serves, never reduces).
bool ps_zmq_serves_only(const StrategyOptions& options, int rank);

}  // namespace gradsync
