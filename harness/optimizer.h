#pragma once
// SGD with momentum, and the learning-rate schedule of large-batch
// data-parallel training (Goyal et al., 2017): the rate scales linearly with
// the number of workers, reached by a linear warm-up from the single-worker
// rate.

#include <span>
#include <vector>

#include "model.h"

namespace gradsync {

struct SgdOptions {
  double base_lr = 0.01;     // learning rate of one worker
  double momentum = 0.9;
  double weight_decay = 0.0;
  int warmup_steps = 0;      // steps over which the rate climbs from base_lr to base_lr x workers
  int workers = 1;           // the linear scaling factor
};

// lr(step) = base_lr x (1 + (workers - 1) x min(1, step / warmup_steps)); with
// no warm-up, base_lr x workers from the first step.
double learning_rate(const SgdOptions& options, int step);

class SgdMomentum {
 public:
  SgdMomentum(std::vector<Parameter>& parameters, SgdOptions options);
  // v = momentum v + (grad + weight_decay w); w -= lr(step) v. Counts steps.
  void step();
  int steps_taken() const { return step_; }

 private:
  std::vector<Parameter>& parameters_;
  SgdOptions options_;
  std::vector<std::vector<float>> velocity_;
  int step_ = 0;
};

}  // namespace gradsync
