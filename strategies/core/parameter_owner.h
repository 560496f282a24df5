#pragma once
// A strategy whose servers own the parameters (ps-zmq --ps-mode async|ssp):
// the trainer does not reduce its gradients and apply SGD itself; it hands
// each step's gradient to the servers, which apply it, and takes back the
// parameters to compute the next step with (ServerOwnedWorker in
// harness/engine/worker_role.cc). Each worker goes at its own pace.

#include <cstdint>
#include <span>

#include "strategies/core/strategy.h"

namespace gradsync {

class ParameterOwner {
 public:
  virtual ~ParameterOwner() = default;
  // Sends this worker's parameters as the initial ones; afterwards
  // `parameters` holds the servers' (the first that any worker sent). The
  // trainer's worker 0 calls it first, the others after it returned.
  virtual void init_parameters(std::span<float> parameters) = 0;
  // Sends this worker's gradient (a flat buffer, the layout init used);
  // afterwards the buffer holds the servers' parameters with it applied.
  virtual void push_gradient(std::span<float> buffer) = 0;
  // push_gradient calls that completed on this worker.
  virtual std::uint64_t gradient_steps() const = 0;
};

// `strategy` (through any decorators) as a ParameterOwner, or nullptr when
// its servers do not own the parameters (every strategy but ps-zmq in async
// and ssp modes) or this rank is not a worker.
ParameterOwner* parameter_owner(Strategy& strategy);

}  // namespace gradsync
