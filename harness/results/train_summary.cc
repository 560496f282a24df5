#include "harness/results/train_summary.h"

#include "harness/results/input_text.h"
#include "harness/sim/json_whole.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace gradsync {
namespace {

// Every worker's (end_s, loss) of each step, to every worker: packed as raw
// doubles into the string World::allgather carries.
std::vector<std::vector<LossNote>> gather_loss_notes(const TrainOutcome& outcome,
                                                     const World& workers) {
  std::vector<double> mine;
  for (const StepTiming& step : outcome.steps) {
    mine.push_back(step.end_s);
    mine.push_back(step.loss);
  }
  std::string packed(mine.size() * sizeof(double), '\0');
  std::memcpy(packed.data(), mine.data(), packed.size());
  std::vector<std::vector<LossNote>> notes;
  for (const std::string& theirs : workers.allgather(packed)) {
    std::vector<double> values(theirs.size() / sizeof(double));
    std::memcpy(values.data(), theirs.data(), values.size() * sizeof(double));
    auto& worker = notes.emplace_back();
    for (std::size_t i = 0; i + 1 < values.size(); i += 2) worker.push_back({values[i], values[i + 1]});
  }
  return notes;
}

}  // namespace

nlohmann::json to_json(const TimeToTarget& t) {
  auto when_reached = [&](auto value) { return t.reached ? nlohmann::json(value) : nlohmann::json(); };
  return {{"target_loss", t.target_loss},
          {"window_steps", t.window_steps},
          {"reached", t.reached},
          {"seconds", when_reached(t.seconds)},
          {"samples", when_reached(t.samples)},
          {"smoothed_loss", t.smoothed_loss}};
}

std::optional<TimeToTarget> time_to_target_from_json(const nlohmann::json& json) {
  if (json.is_null()) return std::nullopt;
  TimeToTarget t;
  t.target_loss = json.at("target_loss").get<double>();
  t.window_steps = whole_number(json.at("window_steps"));
  t.reached = json.at("reached").get<bool>();
  t.smoothed_loss = json.at("smoothed_loss").get<double>();
  if (t.reached) {
    t.seconds = json.at("seconds").get<double>();
    t.samples = whole_number<std::uint64_t>(json.at("samples"));
  }
  return t;
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * values.size()));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

namespace {

// Collective: the traffic per step, the mean over workers; the memory, the
// largest each part is on any worker.
void summarize_traffic_and_memory(const TrainOutcome& outcome, const World& workers,
                                  TrainSummary& s) {
  s.bytes_sent_per_step = workers.mean(outcome.bytes_sent_per_step);
  s.bytes_received_per_step = workers.mean(outcome.bytes_received_per_step);
  const std::vector<double> memory = workers.max_each(
      {double(outcome.memory.parameters_bytes), double(outcome.memory.gradients_bytes),
       double(outcome.memory.optimizer_bytes), double(outcome.memory.gathered_bytes)});
  s.memory = {std::uint64_t(memory[0]), std::uint64_t(memory[1]), std::uint64_t(memory[2]),
              std::uint64_t(memory[3])};
}

}  // namespace

TrainSummary summarize(const TrainOutcome& outcome, const TrainSettings& settings,
                       const World& workers) {
  TrainSummary s;
  s.workers = workers.size();
  s.batch_size = settings.batch_size;
  const double images_per_iter = double(settings.batch_size) * settings.batches_per_iter;
  // Workers at their own pace (at_own_pace) timed their own iterations: an
  // iteration's rate per worker is the mean of theirs. In lockstep iteration_s is
  // already the slowest worker's, the same on every worker.
  for (double t : outcome.iteration_s)
    s.img_sec_per_worker.push_back(outcome.at_own_pace ? workers.mean(images_per_iter / t)
                                                       : images_per_iter / t);
  const double n = std::max<std::size_t>(1, s.img_sec_per_worker.size());
  s.img_sec_mean = std::accumulate(s.img_sec_per_worker.begin(), s.img_sec_per_worker.end(), 0.0) / n;
  double var = 0;
  for (double x : s.img_sec_per_worker) var += (x - s.img_sec_mean) * (x - s.img_sec_mean);
  s.img_sec_conf = 1.96 * std::sqrt(var / n);  // numpy's std, as Horovod prints it

  std::vector<double> step_s;
  double compute = 0, wait = 0, allreduce = 0, staging = 0, own_steps = 0, input_wait = 0;
  for (std::size_t i = settings.warmup_batches; i < outcome.steps.size(); ++i) {
    step_s.push_back(outcome.steps[i].step_s);
    own_steps += outcome.steps[i].step_s;
    compute += outcome.steps[i].compute_s;
    wait += outcome.steps[i].wait_s;
    allreduce += outcome.steps[i].allreduce_s;
    staging += outcome.steps[i].staging_s;
    input_wait += outcome.steps[i].input_wait_s;
  }
  s.timed_steps = static_cast<int>(step_s.size());
  step_s = workers.max_each(step_s);
  const double steps = std::max(1, s.timed_steps);
  s.step_mean_s = std::accumulate(step_s.begin(), step_s.end(), 0.0) / steps;
  s.step_median_s = percentile(step_s, 0.5);
  s.step_p90_s = percentile(step_s, 0.9);
  s.step_p99_s = percentile(step_s, 0.99);
  s.compute_s = workers.mean(compute / steps);
  s.exposed_comm_s = workers.mean(wait / steps);
  s.allreduce_s = workers.mean(allreduce / steps);
  s.staging_s = workers.mean(staging / steps);
  const double own_step = workers.mean(own_steps / steps);
  s.exposed_comm_share = own_step > 0 ? s.exposed_comm_s / own_step : 0;
  if (outcome.loader) {
    InputSummary& in = s.input.emplace();
    in.spec = settings.input;
    in.loader_s_per_image = workers.mean(outcome.loader->seconds_per_image);
    in.loader_s_per_batch = workers.mean(outcome.loader->seconds_per_batch);
    // A read's threads take turns on one link: its capacity is the link's
    // rate (their measured time per image also counts the turns they wait).
    if (settings.input.kind == InputKind::read)
      in.capacity_img_sec = 1 / settings.input.stated_image_s();
    else
      in.capacity_img_sec =
          in.loader_s_per_image > 0 ? settings.input.threads / in.loader_s_per_image : 0;
    in.wait_s = workers.mean(input_wait / steps);
    in.wait_share = own_step > 0 ? in.wait_s / own_step : 0;
  }
  if (!outcome.steps.empty()) {
    s.first_loss = workers.mean(outcome.steps.front().loss);
    s.last_loss = workers.mean(outcome.steps.back().loss);
  }
  s.gradient_bytes = outcome.gradient_bytes;
  s.buckets_per_step = outcome.buckets_per_step;
  summarize_traffic_and_memory(outcome, workers, s);
  s.parameters_identical = outcome.parameters_identical;
  s.mismatch = outcome.mismatch;
  s.disturbance = outcome.disturbance;
  s.nonfinite_failure = outcome.nonfinite_failure;
  s.fusion_search = outcome.fusion_search;
  if (settings.target_loss)
    s.time_to_target =
        time_to_target(gather_loss_notes(outcome, workers), *settings.target_loss,
                       settings.batch_size, outcome.at_own_pace ? Pace::free : Pace::lockstep);
  if (outcome.at_own_pace)
    for (const std::string& steps : workers.allgather(std::to_string(outcome.gradient_steps)))
      s.worker_gradient_steps.push_back(std::stoull(steps));
  return s;
}

nlohmann::json input_json(const InputSummary& in) {
  return {{"spec", input_text(in.spec)},
          {"threads", in.spec.threads},
          {"prefetch", in.spec.prefetch},
          {"loader_s_per_image", in.loader_s_per_image},
          {"loader_s_per_batch", in.loader_s_per_batch},
          {"capacity_img_sec", in.capacity_img_sec},
          {"wait_s", in.wait_s},
          {"wait_share", in.wait_share}};
}

double allreduce_bytes_per_step(const TrainSummary& summary) {
  const double p = summary.workers;
  return p > 1 ? 2 * (p - 1) / p * double(summary.gradient_bytes) : 0.0;
}

nlohmann::json results_json(const TrainSummary& summary) {
  nlohmann::json out = summary;
  out["parameters_checked"] = summary.parameters_identical.has_value();
  out["parameters_identical"] = summary.parameters_identical
                                    ? nlohmann::json(*summary.parameters_identical)
                                    : nlohmann::json();
  return out;
}

}  // namespace gradsync
