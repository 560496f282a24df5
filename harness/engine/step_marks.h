#pragma once
// A training step's breakdown (compute, exposed communication, update) from
// marks taken where the compute runs, so that it means the same on a GPU as
// on the CPU.
//
// On the CPU the compute runs on the calling thread: a mark is the host's
// clock at that point. On a GPU the host only queues the compute: reading
// the host's clock after backward() would time the queueing, and backward's
// real time would land in the wait for communication. There a mark is a CUDA
// event recorded on the model's stream, and its time is when the GPU reached
// it, put on the host's clock through an anchor: an event recorded on an
// idle stream of its own at a known host time (cudaEventElapsedTime between
// the anchor and each mark). The host never waits for a mark: a step's marks
// are read once the GPU has passed them (the next step's forward, which
// reads the loss, has waited for the stream by then), and the last steps'
// at the end of the run.
//
// The marks of a step, in the order the compute takes them: compute start,
// forward end, one per gradient handed to the synchronizer (backward's
// hand-offs), backward end, update start, update end. The communication's
// two marks are always the host's: when the wait for it began and ended.

#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "harness/engine/step_clock.h"
#include "harness/engine/train.h"
#include "models/model.h"

namespace gradsync {

// The compute's fixed marks; the hand-offs follow them (compute_mark_count + k
// is the k-th hand-off of the step).
enum class ComputeMark : std::size_t {
  compute_start,
  forward_end,
  backward_end,
  update_start,
  update_end,
};
inline constexpr std::size_t compute_mark_count = 5;

// One step's marks on the step clock.
struct StepMarkTimes {
  StepClock::time_point compute_start, forward_end, backward_end, update_start, update_end;
  std::vector<StepClock::time_point> hand_overs;  // in the order backward handed them over
  StepClock::time_point wait_start, wait_end;     // the host's wait for communication
  // Of the forward's and the backward's time, what they spent in the role's
  // gates (forward order: the step before's communication; fully sharded:
  // gathering parameters): exposed communication, not compute.
  double forward_wait_s = 0;
  double backward_wait_s = 0;
};

// What the marks say about the step, in seconds.
struct StepBreakdown {
  double forward_s = 0;
  double backward_s = 0;
  double compute_s = 0;  // forward + backward
  // The communication left after backward: from the later of backward's end
  // and the start of the host's wait, to the wait's end (0 when the wait
  // ended first). On the CPU backward has ended before the wait starts, so
  // this is the time the wait blocked; on a GPU the host starts waiting
  // while backward still runs, and only what follows backward is exposed.
  double exposed_comm_s = 0;
  double update_s = 0;
};

// The breakdown the marks give. Throws std::logic_error when the compute's
// marks are out of order (a mark read before the one before it).
StepBreakdown breakdown_of(const StepMarkTimes& marks);

// Where compute marks are taken and read: the host's clock, or a GPU's
// events (compute_clock_cuda.cc). Marks live in slots, one per step in flight.
class ComputeClock {
 public:
  virtual ~ComputeClock() = default;
  // Starts slot `slot` afresh for a step that takes `marks` marks at most.
  virtual void begin(std::size_t slot, std::size_t marks) = 0;
  // Takes mark `index` of slot `slot` at this point of the compute.
  virtual void take(std::size_t slot, std::size_t index) = 0;
  // Whether the compute has passed every mark of `slot` taken so far; with
  // `wait`, waits until it has.
  virtual bool passed(std::size_t slot, bool wait) = 0;
  // Mark `index` of slot `slot` on the step clock; only once passed.
  virtual StepClock::time_point read(std::size_t slot, std::size_t index) = 0;
  // Whether the marks are a device's (the compute's trace then comes from
  // them: the model's own trace only sees the host queue its work).
  virtual bool on_device() const = 0;
};

std::unique_ptr<ComputeClock> make_host_compute_clock();
namespace cuda {
// CUDA builds only (compute_clock_cuda.cc).
std::unique_ptr<ComputeClock> make_compute_clock(const Model::DeviceState& device);
}  // namespace cuda
// The clock of `model`'s compute: its GPU's when it computes on one
// (Model::device_state), else the host's.
std::unique_ptr<ComputeClock> make_compute_clock(const Model& model);

// The marks of the steps in flight: taken during each step, read once the
// compute has passed them, and written into that step's timing.
class StepMarks {
 public:
  explicit StepMarks(std::unique_ptr<ComputeClock> clock) : clock_(std::move(clock)) {}

  // A new step, numbered `step`, that hands over `gradients` gradients;
  // `trace` (may be null) receives its compute's spans when they come from
  // the device.
  void begin(int step, std::size_t gradients, TraceSink* trace);
  void take(ComputeMark mark);
  void take_hand_over();
  // The step's host wait for communication, from `start` to `end`, and what
  // its forward and backward spent in the role's gates.
  void end(StepClock::time_point wait_start, StepClock::time_point wait_end,
           double forward_wait_s = 0, double backward_wait_s = 0);

  // Writes the breakdown of every ended step the compute has passed into
  // steps[step] (a step beyond `steps` is dropped); with `wait`, waits for
  // all of them. `steps` null: drops every ended step, passed or not (steps
  // no record keeps).
  void settle(std::vector<StepTiming>* steps, bool wait);

 private:
  struct Pending {
    int step = 0;
    std::size_t slot = 0;
    std::size_t hand_overs = 0;
    TraceSink* trace = nullptr;
    StepClock::time_point wait_start, wait_end;
    double forward_wait_s = 0, backward_wait_s = 0;
  };
  StepMarkTimes read(const Pending& pending);
  void trace_compute(const Pending& pending, const StepMarkTimes& marks) const;

  std::unique_ptr<ComputeClock> clock_;
  std::deque<Pending> ended_;  // oldest first
  Pending current_;
  std::size_t next_slot_ = 0;
};

}  // namespace gradsync
