#pragma once
// A worker's role in data-parallel training: what it adds to the parts of a
// step (train_step.h) that differ between workers. The engine asks the role
// how to start (every worker from worker 0's parameters), what backward does
// with each final gradient, how the step's communication is waited for, and
// who applies the update. Three roles, chosen once per run (make_worker_role):
//
// - a replica, host memory: holds every parameter; its gradients go to the
//   synchronizer's buckets as backward finishes them; finish() leaves them
//   summed over the workers; the host optimizer divides as it reads them (real compute
//   only: an emulated device's time already includes its optimizer);
// - a replica, device memory (a model computing on a GPU,
//   Model::device_state()): the same over the model's device blocks; the
//   synchronizer averages on the GPU and SGD runs there;
// - a worker of servers that own the parameters (ps-zmq --ps-mode
//   async|ssp, strategies/core/parameter_owner.h): backward's gradients stay
//   put until the end; the wait hands the servers the whole gradient, flat,
//   and takes their parameters back; the servers apply SGD, so the worker has
//   no update, and goes at its own pace.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "harness/engine/synchronizer.h"
#include "harness/engine/train.h"
#include "models/model.h"
#include "strategies/core/strategy.h"

namespace gradsync {

class WorkerRole {
 public:
  virtual ~WorkerRole() = default;

  // Collective: every worker leaves with worker 0's initial parameters.
  virtual void start() = 0;
  // Backward's hand-over: gradient `index` is final for this step.
  virtual void hand_over(std::size_t index) = 0;
  // The step's communication, to its end; what it measured (wait_s: the time
  // blocked). With overlaps_next_forward(): only lets the step's last bucket
  // go, and returns nothing measured.
  virtual SyncStats wait(TraceSink* trace) = 0;
  // The optimizer's update of this worker's parameters, where it has one
  // (with overlaps_next_forward(): none here, see settle_previous).
  virtual void update(TraceSink* trace) = 0;

  // Forward order (SyncOrder::forward): the step's communication runs on
  // into the next step's forward, whose gate (Model::set_forward_gate, set
  // by the role) waits for each layer's parameters and updates them as the
  // forward reaches the layer. settle_previous() then ends the step before:
  // it waits for what is left of its communication, applies the updates not
  // applied yet, and returns what it measured (wait_s: the time blocked in
  // the gates and here); nothing in flight: nothing measured. Called after
  // each forward, and where the workers must meet with nothing in flight
  // (an iteration's end, the end of warm-up, the last step).
  virtual bool overlaps_next_forward() const { return false; }
  virtual SyncStats settle_previous(TraceSink* trace) {
    (void)trace;
    return {};
  }
  // From now on the synchronizer reports to `sink` (nullptr: stop).
  virtual void set_trace(TraceSink* sink) = 0;

  // The synchronizer whose buckets the step's gradients go through (what
  // --fusion-mb auto tunes); nullptr where no bucket goes anywhere.
  virtual GradientSynchronizer* synchronizer() = 0;
  // Whether the workers go at their own pace (no collective between the
  // start and the end); else they agree on every iteration.
  virtual bool at_own_pace() const = 0;
  // Whether every worker must end with bit-identical parameters.
  virtual bool parameters_must_agree() const = 0;
  // Gradients handed to servers that own the parameters (0 for replicas).
  virtual std::uint64_t gradient_steps() const = 0;
  // What this worker holds of the model's state (worker_memory.h).
  virtual WorkerMemory memory() const = 0;
  // What this step's forward and backward spent in the role's layer gates
  // (a fully sharded worker gathering parameters), in seconds: exposed
  // communication, not compute. Read once per step, after wait().
  struct GateTimes {
    double forward_s = 0, backward_s = 0;
  };
  virtual GateTimes take_gate_times() { return {}; }
  // Collective, after the last step: every parameter whole on this worker
  // again, for the checks and the caller (a fully sharded worker gathers them).
  virtual void end() {}
};

// Every host parameter's gradient, by parameter index: what a host
// synchronizer reduces.
std::vector<std::span<float>> gradient_spans(std::vector<Parameter>& parameters);
// The bytes of every parameter's value, and of every gradient.
std::uint64_t value_bytes(const std::vector<Parameter>& parameters);
std::uint64_t gradient_bytes(const std::vector<Parameter>& parameters);

// Throws std::invalid_argument, in one line, for an update rule other than
// SGD where `strategy`'s servers own the parameters (they apply SGD).
void refuse_rule_with_servers(UpdateRule rule, std::string_view strategy);

// The role `strategy` gives a worker training `model` under `settings`.
// Throws std::invalid_argument for a combination no role takes (parameters
// owned by servers, on a GPU; forward order where the servers own the
// parameters, or with a model that takes no forward gate).
std::unique_ptr<WorkerRole> make_worker_role(Strategy& strategy, Model& model,
                                             const TrainSettings& settings);

}  // namespace gradsync
