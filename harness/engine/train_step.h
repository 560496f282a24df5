#pragma once
// One training step as its parts, in order, each a function of its own:
//
//   input     the worker's slice of the step's global batch: synthetic,
//             made before the step's clock starts, as a data loader would
//             have it ready; or an active input stage's (input_pipeline.h),
//             taken on the clock, the time it blocked being the step's
//             exposed input;
//   forward   the model's loss on it;
//   backward  the gradients, each handed to the worker's role
//             (worker_role.h) the moment it is final, so that its bucket is
//             reduced while backward goes on;
//   wait      the role's communication, to its end;
//   update    the role's optimizer step.
//
// In forward order (--sync-order forward) the step's communication runs on
// into the next step's forward, which waits for each layer's parameters as
// it reaches the layer (the role's forward gate) and updates them there; the
// time it blocked is that step's exposed communication, and the communication
// it settled (the step before's) is what that step reports. A step after
// which the workers meet (`settle`: an iteration's end, warm-up's end, the
// last) waits for its own communication to end, as in arrival order.
//
// The role decides what the parts after forward do; a new kind of worker
// (shards of the parameters, pipeline stages) is a new role or a new part,
// not a branch in the loop.

#include "harness/engine/input_pipeline.h"
#include "harness/engine/step_clock.h"
#include "harness/engine/step_marks.h"
#include "harness/engine/train.h"
#include "harness/engine/worker_role.h"
#include "models/model.h"
#include "models/synthetic_data.h"

namespace gradsync {

class TrainingStep {
 public:
  using Clock = StepClock;

  // `rank`'s slice of every step's batch; `model` and `role` outlive it.
  TrainingStep(Model& model, WorkerRole& role, const TrainSettings& settings, int rank);

  // Runs step `step`: its batch from `loader` when given, else synthetic;
  // traced to `trace` when given ("wait for input", "step N"); end_s counts
  // from `start`, the workers' common start. `settle`: nothing of it stays in
  // flight after it (always so in arrival order).
  StepTiming run(int step, TraceSink* trace, InputPipeline* loader, Clock::time_point start,
                 bool settle = true);

  // Buckets the last step's synchronization took.
  std::size_t buckets() const { return buckets_; }

  // Writes the compute and exposed communication of the steps run so far
  // into steps[step], from the marks of each step that the compute has
  // passed (all of them with `wait`; step_marks.h). On the CPU every step is
  // passed when run() returns; on a GPU a step is passed once the next
  // step's forward has waited for the GPU, and the last at the end. `steps`
  // null: the steps run so far are dropped (the fusion search's).
  void settle(std::vector<StepTiming>* steps, bool wait) { marks_.settle(steps, wait); }

 private:
  void make_synthetic_input(int step);
  const SyntheticBatch& take_input(int step, InputPipeline* loader, TraceSink* trace,
                                   StepTiming& timing);
  float forward(const SyntheticBatch& batch);
  void backward();
  void update(TraceSink* trace);
  // The communication after backward: all of it (arrival order, or
  // `settle`), else only what the next forward did not wait for already.
  SyncStats communicate(TraceSink* trace, bool settle, SyncStats settled_in_forward);

  Model& model_;
  WorkerRole& role_;
  const TrainSettings& settings_;
  const int rank_;
  SyntheticBatch synthetic_;
  std::size_t buckets_ = 0;
  StepMarks marks_;
};

}  // namespace gradsync
