// Placeholder until the parameter server lands.
#include "ps_zmq.h"

#include <stdexcept>

namespace gradsync {

std::unique_ptr<Strategy> make_ps_zmq(const World&, const StrategyOptions&) {
  throw std::runtime_error("ps-zmq: not built yet");
}
Availability ps_zmq_availability() { return {false, "not built yet"}; }

}  // namespace gradsync
