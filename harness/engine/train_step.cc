#include "harness/engine/train_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace gradsync {

TrainingStep::TrainingStep(Model& model, WorkerRole& role, const TrainSettings& settings, int rank)
    : model_(model),
      role_(role),
      settings_(settings),
      rank_(rank),
      marks_(make_compute_clock(model)) {}

// The samples rank x B .. rank x B + B - 1 of the step's global batch, so N
// workers with batch B see exactly what one worker with batch N x B sees.
// Emulated compute never reads its input: one batch serves every step.
void TrainingStep::make_synthetic_input(int step) {
  if (step != 0 && !settings_.real_compute()) return;
  const int batch = settings_.batch_size;
  make_synthetic_batch(model_.input_shape(), model_.classes(), settings_.data_seed, step,
                       static_cast<std::uint64_t>(rank_) * batch, batch, synthetic_, model_.task());
}

const SyntheticBatch& TrainingStep::take_input(int step, InputPipeline* loader, TraceSink* trace,
                                               StepTiming& timing) {
  if (!loader) return synthetic_;
  const auto asked = Clock::now();
  const SyntheticBatch& batch = loader->take(step);
  const auto taken = Clock::now();
  timing.input_wait_s = seconds(taken - asked);
  if (trace) trace->event("wait for input", "input", asked, taken, kComputeThread);
  return batch;
}

float TrainingStep::forward(const SyntheticBatch& batch) {
  marks_.take(ComputeMark::compute_start);
  const float loss = model_.forward(batch.images, batch.labels, settings_.batch_size);
  marks_.take(ComputeMark::forward_end);
  return loss;
}

void TrainingStep::backward() {
  model_.backward([&](std::size_t index) {
    marks_.take_hand_over();
    role_.hand_over(index);
  });
  marks_.take(ComputeMark::backward_end);
}

void TrainingStep::update(TraceSink* trace) {
  marks_.take(ComputeMark::update_start);
  role_.update(trace);
  marks_.take(ComputeMark::update_end);
}

SyncStats TrainingStep::communicate(TraceSink* trace, bool settle, SyncStats before) {
  SyncStats stats = role_.wait(trace);
  if (!role_.overlaps_next_forward()) return stats;
  const SyncStats own = settle ? role_.settle_previous(trace) : SyncStats{};
  before.allreduce_s += own.allreduce_s;
  before.staging_s += own.staging_s;
  before.wait_s += own.wait_s;
  before.buckets = std::max(before.buckets, own.buckets);
  return before;
}

StepTiming TrainingStep::run(int step, TraceSink* trace, InputPipeline* loader,
                             Clock::time_point start, bool settle) {
  if (!loader) make_synthetic_input(step);
  StepTiming timing;
  const auto step_start = Clock::now();
  const SyntheticBatch& batch = take_input(step, loader, trace, timing);
  marks_.begin(step, model_.parameters().size(), trace);
  timing.loss = forward(batch);
  // Forward order: the step before's communication, which this forward waited for.
  const SyncStats before = role_.settle_previous(trace);
  backward();
  const SyncStats stats = communicate(trace, settle, before);
  const auto wait_end = Clock::now();
  update(trace);
  const double waited_after_backward_s = stats.wait_s - before.wait_s;
  const WorkerRole::GateTimes gates = role_.take_gate_times();
  marks_.end(wait_end - std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(waited_after_backward_s)),
             wait_end, before.wait_s + gates.forward_s, gates.backward_s);
  const auto step_end = Clock::now();
  if (trace) trace->event(fmt::format("step {}", step), "step", step_start, step_end, 0);
  // compute_s and wait_s come from the step's marks (settle).
  timing.step_s = seconds(step_end - step_start);
  timing.allreduce_s = stats.allreduce_s;
  timing.staging_s = stats.staging_s;
  timing.end_s = seconds(step_end - start);
  buckets_ = stats.buckets;
  return timing;
}

}  // namespace gradsync
