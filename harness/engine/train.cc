// One worker's data-parallel training loop. Per step: the worker's slice of
// the global synthetic batch (samples rank x B .. rank x B + B - 1 of that
// step, so N workers with batch B see exactly what one worker with batch N x B
// sees); forward; backward, which hands every gradient to the synchronizer
// the moment it is final, so buckets are reduced while backward goes on
// (where they lie: the model's gradients are one block in backward order, so
// every bucket is a slice of it); finish() waits for the rest and leaves the
// gradients summed over the workers; SGD with momentum at the scaled,
// warmed-up learning rate divides them by the workers as it reads them (with
// real compute only: an emulated device's time already includes its
// optimizer, averaging included). Times are taken around
// each phase on a steady clock; the synthetic batch is made before the step's
// clock starts, as a data loader would have it ready. An active input stage
// (--input) is such a loader, with costs: its threads start after the common
// start, the step's clock starts before the step takes its batch, and the
// time taking it blocked is the step's exposed input (input_wait_s); its
// batches hold the same samples (input_stage.h). A timeline, when given,
// is handed to the model and the synchronizer for the steps it covers only,
// so untraced steps cost nothing.
//
// With --fusion-mb auto the threshold is searched first (search_threshold
// below, fusion_search.h): real steps that train, as warm-up does, before
// the workers' common start, so warm-up, the timed steps, the timeline and
// the time to a target loss all begin after it, at the threshold chosen.
// The search's steps take synthetic batches, an input stage's loader
// starting after it: the threshold changes communication only.
//
// A model that computes on a GPU (cuda compute, Model::device_state()) keeps
// its parameters and gradients in device memory, and so does the step: the
// initial values go to the device (copy_to_device) and are broadcast there,
// in one call over the flat block (the strategy takes device buffers: NCCL
// natively, the host strategies through staging); the synchronizer fuses and
// averages the device gradients on the GPU (cuBLAS; device SGD reads averaged
// gradients); SGD runs on the device blocks
// (cuBLAS on the model's stream). Only at the end do the values come back to
// the host (copy_to_host) for the cross-worker check.
//
// A strategy whose servers own the parameters (ps-zmq --ps-mode async|ssp,
// parameter_owner.h) trains differently: the parameters start as worker 0's
// on the servers (init: worker 0 first, then the others take the servers'),
// and each step hands the servers the worker's gradient, flat, and takes back
// their parameters; the servers apply SGD. No collective runs between the
// start and the end: each worker goes at its own pace (an iteration's time is
// its own, a loss that stops being finite is agreed at the end), and the
// workers' parameters are not expected to agree.

#include "harness/engine/train.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>

#include "harness/engine/disturbance.h"
#include "harness/engine/input_stage.h"
#include "harness/engine/median.h"
#include "models/synthetic_data.h"
#include "strategies/core/activity.h"
#include "strategies/core/parameter_owner.h"

namespace gradsync {
namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::vector<std::span<float>> gradient_spans(std::vector<Parameter>& parameters) {
  std::vector<std::span<float>> spans;
  for (auto& p : parameters) spans.emplace_back(p.grad);
  return spans;
}

// The parameters' values, or their gradients, one after another in parameter
// order: the flat buffer a ParameterOwner takes.
template <typename Field>
void pack(const std::vector<Parameter>& parameters, Field field, std::vector<float>& flat) {
  flat.clear();
  for (const auto& p : parameters) flat.insert(flat.end(), (p.*field).begin(), (p.*field).end());
}

void unpack_values(std::span<const float> flat, std::vector<Parameter>& parameters) {
  std::size_t at = 0;
  for (auto& p : parameters) {
    std::copy_n(flat.begin() + at, p.value.size(), p.value.begin());
    at += p.value.size();
  }
}

// The servers' initial parameters are worker 0's; every worker starts from them.
void init_owned_parameters(ParameterOwner& owner, const World& peers,
                           std::vector<Parameter>& parameters) {
  std::vector<float> flat;
  pack(parameters, &Parameter::value, flat);
  if (peers.rank() == 0) owner.init_parameters(flat);
  peers.barrier();
  if (peers.rank() != 0) owner.init_parameters(flat);
  unpack_values(flat, parameters);
}

// --fusion-mb auto: fusion_search.h's search over real steps, `step(i)`
// running search step i and returning its seconds. A candidate's score is
// the median of its `measured` steps after one discarded at the switch (a
// new bucket layout's first step), the slowest worker's median taken (one
// max_each per candidate), so every worker scores, and chooses, alike. The
// first kSearchColdSteps steps run at 0 (no fusion, the grid's first
// candidate, so they stand for its switch step): the first shows the order
// backward hands the gradients over in, which the grid's deduplication plans
// buckets over, and all of them take the run's cold start (first touches of
// memory, connections made on first use), which had made the first
// candidate measured look several times slower than it runs. Nothing to
// search at one worker (the cost model does not either), nor where no
// bucket goes anywhere (`none`; servers that own the parameters): the
// threshold stays as it is.
FusionSearchOutcome search_threshold(const Strategy& strategy, GradientSynchronizer& synchronizer,
                                     bool owner, int measured,
                                     const std::vector<Parameter>& parameters,
                                     const std::function<double(int)>& step) {
  FusionSearchOutcome out;
  out.search.chosen_mb = synchronizer.fusion_mb();
  const World& peers = strategy.peers();
  if (owner || !strategy.synchronizes() || peers.size() == 1) {
    out.skipped =
        fmt::format("{} {}: nothing to tune, the threshold stays {:g} MiB", strategy.name(),
                    owner ? "trains on servers that own the parameters (no buckets)"
                    : !strategy.synchronizes() ? "sends no buckets"
                                               : "has one worker (its buckets go nowhere)",
                    out.search.chosen_mb);
    return out;
  }
  synchronizer.set_fusion_mb(0);
  peers.barrier();  // the workers start the search together (the broadcast's root leaves first)
  constexpr int kSearchColdSteps = 3;
  while (out.steps < kSearchColdSteps) step(out.steps++);
  std::vector<std::size_t> bytes;
  for (std::size_t index : synchronizer.hand_over_order())
    bytes.push_back(parameters[index].grad.size() * sizeof(float));
  const auto measure = [&](double mb) {
    if (mb != synchronizer.fusion_mb()) {
      synchronizer.set_fusion_mb(mb);
      step(out.steps++);  // the switch
    }
    std::vector<double> times;
    for (int k = 0; k < measured; ++k) times.push_back(step(out.steps++));
    return peers.max_each({median(times)})[0];
  };
  out.search = search_fusion(bytes, measure);
  synchronizer.set_fusion_mb(out.search.chosen_mb);
  return out;
}

}  // namespace

std::uint64_t parameter_fingerprint(const std::vector<Parameter>& parameters) {
  std::uint64_t hash = 1469598103934665603ull;
  for (const auto& p : parameters) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(p.value.data());
    for (std::size_t i = 0; i < p.value.size() * sizeof(float); ++i) {
      hash ^= bytes[i];
      hash *= 1099511628211ull;
    }
  }
  return hash;
}

TrainOutcome train(Strategy& strategy, Model& model, const TrainSettings& settings,
                   const std::function<void(int, double)>& on_iteration, Timeline* timeline,
                   WireMeter* wire) {
  const World& peers = strategy.peers();
  std::vector<Parameter>& parameters = model.parameters();
  const Model::DeviceState* device = model.device_state();
  DisturbanceWatch watch(peers.timeout());
  ParameterOwner* owner = parameter_owner(strategy);
  if (owner && device)
    throw std::invalid_argument(fmt::format(
        "{}: parameters owned by its servers live in host memory: use cpu or emulated compute",
        strategy.name()));
  set_activity("parameter broadcast");
  if (owner) {
    init_owned_parameters(*owner, peers, parameters);
  } else if (device) {
    model.copy_to_device();
    strategy.broadcast(device->values, 0);
  } else {
    for (auto& p : parameters) strategy.broadcast(p.value, 0);
  }

  const int synchronizing = strategy.synchronizes() ? peers.size() : 1;
  SgdOptions sgd = settings.sgd;
  if (sgd.workers == 0) sgd.workers = synchronizing;
  // Host gradients: the synchronizer leaves the sums and SGD divides them as
  // it reads them (bit-identical to averaging first, without a pass of its
  // own). Device gradients are averaged by the synchronizer on the GPU.
  SyncOptions sync = settings.sync;
  sync.average = device != nullptr;
  if (!sync.average) sgd.summed_over = synchronizing;
  // Emulated compute stands for a device whose measured img/sec already
  // includes its optimizer step (and so the averaging folded into it), so the
  // host does not add one of its own.
  const bool real_compute = settings.model_options.compute != ComputeMode::emulated;
  std::unique_ptr<SgdOptimizer> optimizer;
  if (real_compute && !owner) optimizer = make_sgd(model, sgd);
  GradientSynchronizer synchronizer(strategy, device ? device->grad_of : gradient_spans(parameters),
                                    sync, device);

  TrainOutcome outcome;
  outcome.own_pace = owner != nullptr;
  std::vector<float> flat;  // owner: the gradient out, the parameters back
  for (const auto& p : parameters) outcome.gradient_bytes += p.grad.size() * sizeof(float);

  const int batch = settings.batch_size;
  const ImageShape shape = model.input_shape();
  SyntheticBatch data;
  const int timed_steps = settings.iters * settings.batches_per_iter;
  const int total_steps = settings.warmup_batches + timed_steps;
  int first_nonfinite = -1;  // this worker's first step with a loss that is not finite
  // Workers agree on the earliest such step as the maximum of its negation.
  constexpr double kNoStep = -1e300;
  const auto negated_step = [&](int step) { return step < 0 ? kNoStep : -double(step); };
  const auto nonfinite_line = [&](double negated) {
    return fmt::format("the loss stopped being finite at step {} (of {}; warm-up {})",
                       long(-negated), total_steps, settings.warmup_batches);
  };
  Clock::time_point iter_start;
  Clock::time_point start;  // the common start, after the fusion search
  // One step, search, warm-up or timed: its batch (from `loader` when given,
  // else synthetic), forward, backward, the synchronization and SGD.
  const auto run_step = [&](int step, TraceSink* trace, InputPipeline* loader) {
    // Emulated compute never reads its input: one batch serves every step.
    if (!loader && (step == 0 || real_compute))
      make_synthetic_batch(shape, model.classes(), settings.data_seed, step,
                           static_cast<std::uint64_t>(peers.rank()) * batch, batch, data);

    const auto t0 = Clock::now();
    StepTiming timing;
    const SyntheticBatch& taken = loader ? loader->take(step) : data;
    const auto taken_at = loader ? Clock::now() : t0;  // compute starts here
    if (loader) {
      timing.input_wait_s = seconds(taken_at - t0);
      if (trace) trace->event("wait for input", "input", t0, taken_at, kComputeThread);
    }
    timing.loss = model.forward(taken.images, taken.labels, batch);
    model.backward([&](std::size_t index) {
      if (!owner) synchronizer.ready(index);
    });
    const auto t1 = Clock::now();
    SyncStats stats;
    if (owner) {
      pack(parameters, &Parameter::grad, flat);
      owner->push_gradient(flat);
      unpack_values(flat, parameters);
      stats.wait_s = stats.allreduce_s = seconds(Clock::now() - t1);
      stats.bytes = flat.size() * sizeof(float);
      if (trace)
        trace->event("push gradient, pull parameters", "communication", t1, Clock::now(), 0);
    } else {
      stats = synchronizer.finish();
    }
    if (optimizer) {
      const auto optimizer_start = Clock::now();
      optimizer->step();
      if (trace) trace->event("optimizer step", "optimizer", optimizer_start, Clock::now(), 0);
    }
    const auto t2 = Clock::now();
    if (trace) trace->event(fmt::format("step {}", step), "step", t0, t2, 0);
    timing.compute_s = seconds(t1 - taken_at);  // not the wait for input
    timing.step_s = seconds(t2 - t0);
    timing.wait_s = stats.wait_s;
    timing.allreduce_s = stats.allreduce_s;
    timing.staging_s = stats.staging_s;
    timing.end_s = seconds(t2 - start);
    outcome.buckets_per_step = stats.buckets;
    return timing;
  };
  if (settings.fusion_search_steps)
    outcome.fusion_search =
        search_threshold(strategy, synchronizer, owner != nullptr, *settings.fusion_search_steps,
                         parameters, [&](int step) {
                           set_activity(fmt::format("fusion search step {}", step));
                           const double step_s = run_step(step, nullptr, nullptr).step_s;
                           watch.timed("fusion search step", step, step_s);
                           watch.collect_stalls();
                           return step_s;
                         });
  // The stage's maker before the common start (jpeg encodes its pool here,
  // untimed); its loader threads start after the search, whose steps take
  // synthetic batches: the threshold changes communication only, and a step
  // bounded by its input would hide what it changes.
  SliceMaker slices;
  if (settings.input.active())
    slices = make_input_stage(settings.input, {.shape = shape,
                                               .classes = model.classes(),
                                               .seed = settings.data_seed,
                                               .first_sample = std::uint64_t(peers.rank()) * batch,
                                               .global_batch = std::uint64_t(peers.size()) * batch,
                                               .content = real_compute});
  peers.barrier();  // the common start
  start = Clock::now();
  if (timeline) timeline->start();
  std::optional<InputPipeline> input;
  if (slices)
    input.emplace(std::move(slices), shape.elements(), batch,
                  InputPipelineOptions{.threads = settings.input.threads,
                                       .prefetch = settings.input.prefetch,
                                       .steps = total_steps,
                                       .first_counted_step = settings.warmup_batches,
                                       .timeout_s = peers.timeout(),
                                       .timeline = timeline});
  for (int step = 0; step < total_steps; ++step) {
    TraceSink* trace = timeline && timeline->window().covers(step) ? timeline : nullptr;
    model.set_trace(trace);
    synchronizer.set_trace(trace);
    const int timed = step - settings.warmup_batches;
    set_activity(fmt::format("step {}", step));
    if (timed == 0 && wire) {
      peers.barrier();  // every worker's warm-up bytes are through
      wire->start(strategy);
    }
    if (timed >= 0 && timed % settings.batches_per_iter == 0) iter_start = Clock::now();
    const StepTiming timing = run_step(step, trace, input ? &*input : nullptr);
    if (first_nonfinite < 0 && !std::isfinite(timing.loss)) first_nonfinite = step;
    outcome.steps.push_back(timing);
    watch.timed("step", step, timing.step_s);

    if (timed >= 0 && (timed + 1) % settings.batches_per_iter == 0) {
      double iter_s = seconds(Clock::now() - iter_start);
      if (!owner) {
        // One collective per iteration: the slowest worker's time, and the
        // earliest step at which any worker's loss stopped being finite.
        // At their own pace (owner) workers time themselves, and agree on
        // the loss at the end.
        const auto agreed = peers.max_each({iter_s, negated_step(first_nonfinite)});
        if (agreed[1] > kNoStep) {
          outcome.nonfinite = nonfinite_line(agreed[1]);
          break;  // every worker leaves at the same iteration's end
        }
        iter_s = agreed[0];
      }
      outcome.iter_s.push_back(iter_s);
      if (on_iteration) on_iteration(static_cast<int>(outcome.iter_s.size()) - 1, outcome.iter_s.back());
    }
    watch.collect_stalls();
  }
  set_activity("");
  if (input) outcome.loader = input->stats();
  input.reset();  // stops the loader, also after an early end
  if (owner) {
    outcome.gradient_steps = owner->gradient_steps();
    const double first = peers.max_each({negated_step(first_nonfinite)})[0];
    if (first > kNoStep) outcome.nonfinite = nonfinite_line(first);
  }
  outcome.disturbed = watch.agree(peers);

  if (wire) outcome.wire = wire->stop(strategy);
  model.set_trace(nullptr);
  synchronizer.set_trace(nullptr);
  model.copy_to_host();  // a device model's values, for the check and for the caller

  // A parameter that is not finite makes every later figure meaningless,
  // even where the loss still reads finite.
  if (outcome.nonfinite.empty()) {
    std::string bad;
    for (const auto& p : parameters)
      if (!std::all_of(p.value.begin(), p.value.end(), [](float v) { return std::isfinite(v); })) {
        bad = p.name;
        break;
      }
    const auto all_bad = peers.allgather(bad);
    for (int r = 0; r < peers.size() && outcome.nonfinite.empty(); ++r)
      if (!all_bad[r].empty())
        outcome.nonfinite = fmt::format("parameter {} of worker {} is not finite after {} steps",
                                        all_bad[r], r, outcome.steps.size());
  }

  // Every worker applied the same averaged gradients: parameters must agree
  // bit for bit. Without synchronization (`none`) they are meant to drift.
  if (!strategy.synchronizes() || owner) return outcome;  // not checked
  outcome.parameters_identical = true;
  const auto fingerprints = peers.allgather(fmt::format("{:016x}", parameter_fingerprint(parameters)));
  for (int r = 1; r < peers.size(); ++r)
    if (fingerprints[r] != fingerprints[0]) {
      outcome.parameters_identical = false;
      outcome.mismatch = fmt::format("worker {}'s parameters differ from worker 0's after {} steps",
                                     r, total_steps);
      break;
    }
  return outcome;
}

}  // namespace gradsync
