#pragma once
// SGD with momentum, and the learning-rate schedule of large-batch
// data-parallel training (Goyal et al., 2017): the rate scales linearly with
// the number of workers, reached by a linear warm-up from the single-worker
// rate. One update rule in two places: on host parameters (cpu compute), and
// on a GPU model's flat device blocks with cuBLAS (cuda compute).

#include <memory>
#include <span>
#include <vector>

#include "models/model.h"
#include "strategies/ps/sgd_rule.h"  // SgdCoefficients (lr: learning_rate(options, step))

namespace gradsync {

struct SgdOptions {
  double base_lr = 0.01;     // learning rate of one worker
  double momentum = 0.9;
  double weight_decay = 0.0;
  int warmup_steps = 0;      // steps over which the rate climbs from base_lr to base_lr x workers
  int workers = 1;           // the linear scaling factor
  // The gradients hold the sum over this many workers (the synchronizer left
  // sums, SyncOptions::average false): the update divides each by it as it
  // reads it. The same correctly rounded division the synchronizer would make,
  // so the result is bit-identical, without a pass of its own. Host SGD only.
  int summed_over = 1;
};

// lr(step) = base_lr x (1 + (workers - 1) x min(1, step / warmup_steps)); with
// no warm-up, base_lr x workers from the first step.
double learning_rate(const SgdOptions& options, int step);


// The schedule and the step count, shared by both places the rule runs. Each
// step applies, to every parameter w with gradient g and velocity v (zero at
// first):
//   v = momentum v + (g + weight_decay w);  w -= lr(step) v
// where g is the averaged gradient (the gradient as handed in, divided by
// summed_over on the host).
class SgdOptimizer {
 public:
  explicit SgdOptimizer(SgdOptions options);
  virtual ~SgdOptimizer() = default;
  SgdOptimizer(const SgdOptimizer&) = delete;
  SgdOptimizer& operator=(const SgdOptimizer&) = delete;

  // One update at this step's rate; counts steps.
  void step();
  // The same step one parameter at a time, as the next forward reaches each
  // (forward order, synchronizer.h): parameter `index` at this step's rate,
  // and count_step() once every parameter has had its update. Host only.
  void step_one(std::size_t index) { apply_one(index, coefficients()); }
  void count_step() { ++step_; }
  int steps_taken() const { return step_; }
  const SgdOptions& options() const { return options_; }
  // The bytes of its state (velocity).
  virtual std::uint64_t state_bytes() const = 0;

 protected:
  virtual void apply(const SgdCoefficients& c) = 0;
  virtual void apply_one(std::size_t index, const SgdCoefficients& c);
  SgdCoefficients coefficients() const;

 private:
  SgdOptions options_;
  int step_ = 0;
};

// On host parameters (Parameter::value and ::grad).
class SgdMomentum final : public SgdOptimizer {
 public:
  SgdMomentum(std::vector<Parameter>& parameters, SgdOptions options);
  std::uint64_t state_bytes() const override;

 private:
  void apply(const SgdCoefficients& c) override;
  void apply_one(std::size_t index, const SgdCoefficients& c) override;

  std::vector<Parameter>& parameters_;
  std::vector<std::vector<float>> velocity_;
};

// A piece of a host parameter: elements offset .. offset + count - 1 of
// parameter `parameter`.
struct ParameterPiece {
  std::size_t parameter = 0;
  std::size_t offset = 0;
  std::size_t count = 0;
  bool operator==(const ParameterPiece&) const = default;
};

// On pieces of the host parameters: a sharded worker's (ZeRO), which keeps
// velocity for its own pieces only, so that its optimizer state is its shard's.
class ShardSgd final : public SgdOptimizer {
 public:
  ShardSgd(std::vector<Parameter>& parameters, SgdOptions options);
  // The pieces updated from now on; when they differ from the last ones,
  // every velocity starts again at zero.
  void set_pieces(std::vector<ParameterPiece> pieces);
  std::uint64_t state_bytes() const override { return velocity_.size() * sizeof(float); }

 private:
  void apply(const SgdCoefficients& c) override;

  std::vector<Parameter>& parameters_;
  std::vector<ParameterPiece> pieces_;
  std::vector<float> velocity_;  // the pieces' velocities, back to back
};

// On a GPU model's device blocks (Model::DeviceState values and grads, which
// must outlive it): 3 or 4 cuBLAS calls over the whole flat block per step,
// queued on the model's stream, and step() returns once they are done. With
// weight decay the device gradients hold g + weight_decay w afterwards (the
// decay is added in place). It reads averaged gradients: summed_over must be 1
// (the device synchronizer averages; std::invalid_argument otherwise). CUDA
// builds only (optimizer_cuda.cc): make_sgd constructs it under `if constexpr
// (gpu_built())`.
class DeviceSgdMomentum final : public SgdOptimizer {
 public:
  DeviceSgdMomentum(const Model::DeviceState& state, SgdOptions options);
  ~DeviceSgdMomentum() override;
  std::uint64_t state_bytes() const override { return state_bytes_; }

 private:
  void apply(const SgdCoefficients& c) override;

  struct Device;  // velocity block (a DeviceBuffer) and cuBLAS handle: optimizer_cuda.cc
  std::unique_ptr<Device> device_;
  std::uint64_t state_bytes_ = 0;
};

// The optimizer for `model`: on its device blocks when it computes on a GPU,
// else on its host parameters.
std::unique_ptr<SgdOptimizer> make_sgd(Model& model, SgdOptions options);

}  // namespace gradsync
