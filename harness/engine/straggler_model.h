#pragma once
// A slow worker, emulated (`train --straggler RANK:FACTOR`): that worker's
// forward and backward take FACTOR times as long. Emulated compute gets there
// by its time scale (every layer's deadline FACTOR times later); real cpu
// compute through StragglerModel, a Model wrapping the real one:
//
// After the wrapped forward returns, it waits (FACTOR - 1) times what the
// forward took. In backward, each gradient is handed over (FACTOR - 1) times
// the time since the previous hand-over later than the wrapped model hands
// it, and backward returns after the same stretch of its tail: every
// gradient reaches the synchronizer when it would on a machine FACTOR times
// slower, so overlapping communication sees the slower machine's schedule.
// Waiting is wait_until's (sleep, then spin for the last stretch). Host
// models only (cpu and emulated compute): a GPU's work is queued, so the
// host's clock does not time it.

#include <memory>

#include "harness/engine/train.h"
#include "models/model.h"

namespace gradsync {

class StragglerModel final : public Model {
 public:
  // `factor` >= 1.
  StragglerModel(std::unique_ptr<Model> inner, double factor);

  const std::string& name() const override { return inner_.name(); }
  ImageShape input_shape() const override { return inner_.input_shape(); }
  int classes() const override { return inner_.classes(); }
  Task task() const override { return inner_.task(); }
  int labels_per_sample() const override { return inner_.labels_per_sample(); }
  std::vector<Parameter>& parameters() override { return inner_.parameters(); }
  double forward_flops_per_sample() const override { return inner_.forward_flops_per_sample(); }
  float forward(std::span<const float> input, std::span<const int> labels, int batch) override;
  void backward(const std::function<void(std::size_t)>& ready) override;
  void set_trace(TraceSink* sink) override { inner_.set_trace(sink); }

 private:
  // Waits (factor - 1) x (now - since) and returns when it is done.
  TraceClock::time_point stretch(TraceClock::time_point since) const;

  std::unique_ptr<Model> owned_;
  Model& inner_;
  double factor_;
};

// The model worker `rank` trains (settings.model with settings.model_options),
// slowed when `rank` is settings.straggler's.
std::unique_ptr<Model> make_worker_model(const TrainSettings& settings, int rank);

}  // namespace gradsync
