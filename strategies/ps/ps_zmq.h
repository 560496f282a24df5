#pragma once
// `ps-zmq`: a sharded parameter server over ZeroMQ, synchronous or not (--ps-mode).

#include <memory>

#include "strategies/core/availability.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"
#include "strategies/ps/ps_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_ps_zmq(const World& world, const StrategyOptions& options);
Availability ps_zmq_availability();

}  // namespace gradsync
