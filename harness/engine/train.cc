// One worker's data-parallel training run, as train() calls its parts:
//
//   start        every worker from worker 0's parameters (the role's start:
//                a broadcast, or the servers' initial parameters);
//   fusion search with --fusion-mb auto, the threshold first
//                (search_threshold below, fusion_search.h): real steps that
//                train, as warm-up does, before the workers' common start,
//                so warm-up, the timed steps, the timeline and the time to a
//                target loss all begin after it, at the threshold chosen;
//                its steps take synthetic batches, an input stage's loader
//                starting after it: the threshold changes communication only;
//   steps        the common start (a barrier; the timeline's origin and an
//                input stage's loader start), then warm-up and the timed
//                steps (train_step.h), each iteration's end agreed over the
//                workers (train_agreement.h) unless they go at their own pace;
//   finish       what the workers agree on at the end: a disturbance, a loss
//                or parameter that is not finite, identical parameters.
//
// What differs between workers (host or device memory, servers that own the
// parameters) is their WorkerRole (worker_role.h), chosen once. A timeline,
// when given, is handed to the model and the role for the steps it covers
// only, so untraced steps cost nothing.

#include "harness/engine/train.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <stdexcept>

#include "harness/engine/disturbance.h"
#include "harness/engine/input_stage.h"
#include "harness/engine/median.h"
#include "harness/engine/step_clock.h"
#include "harness/engine/train_agreement.h"
#include "harness/engine/train_step.h"
#include "harness/engine/worker_role.h"
#include "strategies/core/activity.h"

namespace gradsync {
namespace {

using Clock = StepClock;

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
FusionSearchOutcome search_threshold(const Strategy& strategy, GradientSynchronizer* synchronizer,
                                     double fusion_mb, int measured,
                                     const std::vector<Parameter>& parameters,
                                     const std::function<double(int)>& step) {
  FusionSearchOutcome out;
  out.search.chosen_mb = fusion_mb;
  const World& peers = strategy.peers();
  if (!synchronizer || !strategy.synchronizes() || peers.size() == 1) {
    out.skip_reason =
        fmt::format("{} {}: nothing to tune, the threshold stays {:g} MiB", strategy.name(),
                    !synchronizer ? "trains on servers that own the parameters (no buckets)"
                    : !strategy.synchronizes() ? "sends no buckets"
                                               : "has one worker (its buckets go nowhere)",
                    out.search.chosen_mb);
    return out;
  }
  synchronizer->set_fusion_mb(0);
  peers.barrier();  // the workers start the search together (the broadcast's root leaves first)
  constexpr int kSearchColdSteps = 3;
  while (out.steps < kSearchColdSteps) step(out.steps++);
  std::vector<std::size_t> bytes;
  for (std::size_t index : synchronizer->hand_over_order())
    bytes.push_back(parameters[index].grad.size() * sizeof(float));
  const auto measure = [&](double mb) {
    if (mb != synchronizer->fusion_mb()) {
      synchronizer->set_fusion_mb(mb);
      step(out.steps++);  // the switch
    }
    std::vector<double> times;
    for (int k = 0; k < measured; ++k) times.push_back(step(out.steps++));
    return peers.max_each({median(times)})[0];
  };
  out.search = search_fusion(bytes, measure);
  synchronizer->set_fusion_mb(out.search.chosen_mb);
  return out;
}

// One worker's run, from the parameter broadcast to the end's checks, in the
// order train() calls its parts.
class TrainingRun {
 public:
  TrainingRun(Strategy& strategy, Model& model, const TrainSettings& settings, Timeline* timeline,
              WireMeter* wire)
      : strategy_(strategy),
        peers_(strategy.peers()),
        model_(model),
        settings_(settings),
        timeline_(timeline),
        wire_(wire),
        watch_(peers_.timeout()),
        role_(make_worker_role(strategy, model, settings)),
        step_(model, *role_, settings, peers_.rank()),
        total_steps_(settings.warmup_batches + settings.iters * settings.batches_per_iter) {
    outcome_.at_own_pace = role_->at_own_pace();
    for (const auto& p : model.parameters())
      outcome_.gradient_bytes += p.grad.size() * sizeof(float);
  }

  void start() {
    set_activity("parameter broadcast");
    role_->start();
  }
  void search_fusion_threshold(int measured_steps);
  // The workers' common start, then warm-up and the timed steps.
  void run_steps(const std::function<void(int, double)>& on_iteration);
  TrainOutcome finish();

 private:
  std::unique_ptr<InputPipeline> start_input_stage(SliceMaker slices) const;
  std::unique_ptr<InputPipeline> new_input_pipeline(SliceMaker slices) const;
  // `settle`: the workers meet after it, so nothing of it stays in flight.
  StepTiming run_step(int step, TraceSink* trace, InputPipeline* input, bool settle);
  SliceMaker make_slices() const;
  TraceSink* trace_for(int step);
  // After timed iteration `iteration`'s last step; false: the run ends here.
  bool end_iteration(Clock::time_point iteration_start,
                     const std::function<void(int, double)>& on_iteration);
  void check_parameters();

  Strategy& strategy_;
  const World& peers_;
  Model& model_;
  const TrainSettings& settings_;
  Timeline* timeline_;
  WireMeter* wire_;
  DisturbanceWatch watch_;
  std::unique_ptr<WorkerRole> role_;
  TrainingStep step_;
  const int total_steps_;
  NonfiniteLoss loss_;
  Clock::time_point start_;  // the common start, after the fusion search
  TrainOutcome outcome_;
};

void TrainingRun::search_fusion_threshold(int measured_steps) {
  outcome_.fusion_search =
      search_threshold(strategy_, role_->synchronizer(), settings_.sync.fusion_mb, measured_steps,
                       model_.parameters(), [&](int step) {
                         set_activity(fmt::format("fusion search step {}", step));
                         const double step_s = step_.run(step, nullptr, nullptr, start_).step_s;
                         step_.settle(nullptr, false);  // only step_s counts
                         watch_.timed("fusion search step", step, step_s);
                         watch_.collect_stalls();
                         return step_s;
                       });
}

// The stage's maker before the common start (jpeg encodes its pool here,
// untimed); its loader threads start after the search, whose steps take
// synthetic batches: the threshold changes communication only, and a step
// bounded by its input would hide what it changes.
SliceMaker TrainingRun::make_slices() const {
  if (!settings_.input.active()) return {};
  const int batch = settings_.batch_size;
  return make_input_stage(settings_.input, {.shape = model_.input_shape(),
                                            .classes = model_.classes(),
                                            .seed = settings_.data_seed,
                                            .first_sample = std::uint64_t(peers_.rank()) * batch,
                                            .global_batch = std::uint64_t(peers_.size()) * batch,
                                            .make_content = settings_.real_compute()});
}

// Every worker starts its loader; a worker whose threads the system refused
// (thread_start.h) ends every worker alike, in one line.
std::unique_ptr<InputPipeline> TrainingRun::start_input_stage(SliceMaker slices) const {
  if (!slices) return nullptr;
  std::unique_ptr<InputPipeline> input;
  std::string error;
  try {
    input = new_input_pipeline(std::move(slices));
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  agree_on_input_failure(peers_, error);
  return input;
}

std::unique_ptr<InputPipeline> TrainingRun::new_input_pipeline(SliceMaker slices) const {
  return std::make_unique<InputPipeline>(
      std::move(slices), model_.input_shape().elements(), settings_.batch_size,
      InputPipelineOptions{.threads = settings_.input.threads,
                           .prefetch = settings_.input.prefetch,
                           .steps = total_steps_,
                           .first_counted_step = settings_.warmup_batches,
                           .timeout_s = peers_.timeout(),
                           .timeline = timeline_});
}

// The steps the timeline's window covers are traced; the others cost nothing.
TraceSink* TrainingRun::trace_for(int step) {
  TraceSink* trace = timeline_ && timeline_->window().covers(step) ? timeline_ : nullptr;
  model_.set_trace(trace);
  role_->set_trace(trace);
  return trace;
}

// Workers at one pace agree on the slowest worker's time, and on the
// earliest step at which any worker's loss stopped being finite, in one
// collective; at their own pace, workers time themselves and agree on the
// loss at the end.
bool TrainingRun::end_iteration(Clock::time_point iteration_start,
                                const std::function<void(int, double)>& on_iteration) {
  double iteration_s = seconds(Clock::now() - iteration_start);
  if (!role_->at_own_pace()) {
    const IterationAgreement agreed = agree_on_iteration(peers_, iteration_s, loss_);
    if (agreed.first_nonfinite_step) {
      outcome_.nonfinite_failure =
          nonfinite_loss_line(*agreed.first_nonfinite_step, total_steps_, settings_.warmup_batches);
      return false;  // every worker leaves at the same iteration's end
    }
    iteration_s = agreed.slowest_s;
  }
  outcome_.iteration_s.push_back(iteration_s);
  if (on_iteration) on_iteration(static_cast<int>(outcome_.iteration_s.size()) - 1, iteration_s);
  return true;
}

// A step whose input failed or outwaited --timeout: the workers agree on it,
// so that one line names them (every worker's stage runs alike, so all of
// them normally meet it together; a worker whose batch came waits in its
// synchronization instead, and the stall inspector names the late worker).
StepTiming TrainingRun::run_step(int step, TraceSink* trace, InputPipeline* input, bool settle) {
  try {
    return step_.run(step, trace, input, start_, settle);
  } catch (const InputError& e) {
    agree_on_input_failure(peers_, e.what());
    throw;  // not reached: the agreement throws
  }
}

void TrainingRun::run_steps(const std::function<void(int, double)>& on_iteration) {
  SliceMaker slices = make_slices();
  peers_.barrier();  // the common start
  start_ = Clock::now();
  const Traffic traffic_before = strategy_.traffic();
  if (timeline_) timeline_->start();
  std::unique_ptr<InputPipeline> input = start_input_stage(std::move(slices));
  Clock::time_point iteration_start;
  for (int step = 0; step < total_steps_; ++step) {
    TraceSink* trace = trace_for(step);
    const int timed = step - settings_.warmup_batches;
    set_activity(fmt::format("step {}", step));
    if (timed == 0 && wire_) {
      peers_.barrier();  // every worker's warm-up bytes are through
      wire_->start(strategy_);
    }
    if (timed >= 0 && timed % settings_.batches_per_iter == 0) iteration_start = Clock::now();
    const bool iteration_ends = timed >= 0 && (timed + 1) % settings_.batches_per_iter == 0;
    const bool meet_after = iteration_ends || timed == -1 || step + 1 == total_steps_;
    const StepTiming timing = run_step(step, trace, input.get(), meet_after);
    outcome_.buckets_per_step = step_.buckets();
    loss_.see(step, timing.loss);
    outcome_.steps.push_back(timing);
    step_.settle(&outcome_.steps, false);
    watch_.timed("step", step, timing.step_s);
    if (iteration_ends && !end_iteration(iteration_start, on_iteration)) break;
    watch_.collect_stalls();
  }
  set_activity("");
  if (!outcome_.steps.empty()) {
    const Traffic traffic = strategy_.traffic();
    const double steps = double(outcome_.steps.size());
    outcome_.bytes_sent_per_step = double(traffic.bytes_sent - traffic_before.bytes_sent) / steps;
    outcome_.bytes_received_per_step =
        double(traffic.bytes_received - traffic_before.bytes_received) / steps;
  }
  outcome_.memory = role_->memory();
  if (input) outcome_.loader = input->stats();
  input.reset();  // stops the loader, also after an early end
}

// A parameter that is not finite makes every later figure meaningless, even
// where the loss still reads finite. Every worker applied the same averaged
// gradients: parameters must agree bit for bit (without synchronization,
// `none`, they are meant to drift).
void TrainingRun::check_parameters() {
  if (outcome_.nonfinite_failure.empty())
    outcome_.nonfinite_failure =
        nonfinite_parameter_line(peers_, model_.parameters(), outcome_.steps.size());
  if (!role_->parameters_must_agree()) return;  // not checked
  outcome_.mismatch = parameter_mismatch(peers_, model_.parameters(), total_steps_);
  outcome_.parameters_identical = outcome_.mismatch.empty();
}

TrainOutcome TrainingRun::finish() {
  step_.settle(&outcome_.steps, true);  // the steps a GPU had not passed yet
  if (role_->at_own_pace()) {
    outcome_.gradient_steps = role_->gradient_steps();
    if (const auto first = agree_on_first_nonfinite(peers_, loss_))
      outcome_.nonfinite_failure =
          nonfinite_loss_line(*first, total_steps_, settings_.warmup_batches);
  }
  outcome_.disturbance = watch_.agree(peers_);
  if (wire_) outcome_.wire = wire_->stop(strategy_);
  model_.set_trace(nullptr);
  role_->set_trace(nullptr);
  model_.copy_to_host();  // a device model's values, for the check and for the caller
  role_->end();
  check_parameters();
  return std::move(outcome_);
}

}  // namespace

TrainOutcome train(Strategy& strategy, Model& model, const TrainSettings& settings,
                   const std::function<void(int, double)>& on_iteration, Timeline* timeline,
                   WireMeter* wire) {
  TrainingRun run(strategy, model, settings, timeline, wire);
  run.start();
  if (settings.fusion_search_steps) run.search_fusion_threshold(*settings.fusion_search_steps);
  run.run_steps(on_iteration);
  return run.finish();
}

}  // namespace gradsync
