#include "harness/engine/straggler_model.h"

#include <stdexcept>
#include <utility>

#include "models/deadline.h"

namespace gradsync {

StragglerModel::StragglerModel(std::unique_ptr<Model> inner, double factor)
    : owned_(std::move(inner)), inner_(*owned_), factor_(factor) {
  if (!(factor >= 1)) throw std::invalid_argument("a straggler's factor must be at least 1");
  if (inner_.device_state())
    throw std::invalid_argument("a straggler is emulated for cpu and emulated compute only");
}

TraceClock::time_point StragglerModel::stretch(TraceClock::time_point since) const {
  const auto now = TraceClock::now();
  const auto extra = std::chrono::duration_cast<TraceClock::duration>((now - since) * (factor_ - 1));
  wait_until(now + extra);
  return TraceClock::now();
}

float StragglerModel::forward(std::span<const float> input, std::span<const int> labels,
                              int batch) {
  const auto start = TraceClock::now();
  const float loss = inner_.forward(input, labels, batch);
  stretch(start);
  return loss;
}

void StragglerModel::backward(const std::function<void(std::size_t)>& ready) {
  auto mark = TraceClock::now();
  inner_.backward([&](std::size_t index) {
    mark = stretch(mark);
    ready(index);
  });
  stretch(mark);
}

std::unique_ptr<Model> make_worker_model(const TrainSettings& settings, int rank) {
  if (settings.straggler.rank != rank) return make_model(settings.model, settings.model_options);
  ModelOptions options = settings.model_options;
  // Emulated layers keep deadlines from the start of each pass, which would
  // absorb waits put between them: the time scale slows every layer instead.
  if (options.compute == ComputeMode::emulated) {
    options.time_scale *= settings.straggler.factor;
    return make_model(settings.model, options);
  }
  return std::make_unique<StragglerModel>(make_model(settings.model, options),
                                          settings.straggler.factor);
}

}  // namespace gradsync
