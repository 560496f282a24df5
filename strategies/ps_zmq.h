#pragma once
// `ps-zmq`: a synchronous, sharded parameter server over ZeroMQ.

#include <memory>

#include "strategies/ps_options.h"
#include "strategies/registry.h"

namespace gradsync {

std::unique_ptr<Strategy> make_ps_zmq(const World& world, const StrategyOptions& options);
Availability ps_zmq_availability();

}  // namespace gradsync
