#pragma once
// The optimizers: SGD with momentum, or AdamW, and the learning-rate
// schedule of large-batch data-parallel training (Goyal et al., 2017): the
// rate scales linearly with the number of workers, reached by a linear
// warm-up from the single-worker rate. Each rule on host parameters (cpu
// compute) and on a sharded worker's pieces of them; SGD also on a GPU
// model's flat device blocks with cuBLAS (cuda compute).

#include <memory>
#include <span>
#include <vector>

#include "harness/engine/adamw_rule.h"
#include "models/model.h"
#include "strategies/ps/sgd_rule.h"  // SgdCoefficients (lr: learning_rate(options, step))

namespace gradsync {

// The update rule: SGD with momentum (sgd_rule.h) or AdamW (adamw_rule.h).
// Their names: kUpdateRules (train_plan.h).
enum class UpdateRule { sgd, adamw };
// The floats of state each parameter element carries: SGD's velocity, or
// AdamW's two moments.
std::size_t state_floats(UpdateRule rule);

struct OptimizerOptions {
  UpdateRule rule = UpdateRule::sgd;
  double base_lr = 0.01;     // learning rate of one worker
  double momentum = 0.9;     // SGD
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // AdamW
  double weight_decay = 0.0;                      // SGD: L2 in the gradient; AdamW: decoupled
  int warmup_steps = 0;      // steps over which the rate climbs from base_lr to base_lr x workers
  int workers = 1;           // the linear scaling factor
  // The gradients hold the sum over this many workers (the synchronizer left
  // sums, SyncOptions::average false): the update divides each by it as it
  // reads it. The same correctly rounded division the synchronizer would make,
  // so the result is bit-identical, without a pass of its own. Host only.
  int summed_over = 1;
};

// lr(step) = base_lr x (1 + (workers - 1) x min(1, step / warmup_steps)); with
// no warm-up, base_lr x workers from the first step.
double learning_rate(const OptimizerOptions& options, int step);

// One step's scalars for either rule.
struct StepCoefficients {
  SgdCoefficients sgd;
  AdamwCoefficients adamw;
};

// `rule` on n elements of w with gradient g (divided by divide_by) and the
// elements' state: n floats of velocity (SGD), or n of m then n of v (AdamW).
void apply_rule(UpdateRule rule, float* w, const float* g, float* state, std::size_t n,
                const StepCoefficients& c, float divide_by);

// The schedule and the step count, shared by every place a rule runs. Each
// step applies the rule to every parameter w with the averaged gradient g
// (the gradient as handed in, divided by summed_over on the host): SGD's
//   v = momentum v + (g + weight_decay w);  w -= lr(step) v
// or AdamW's (adamw_rule.h), its bias corrections at this step.
class Optimizer {
 public:
  explicit Optimizer(OptimizerOptions options);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update at this step's rate; counts steps.
  void step();
  // The same step one parameter at a time, as the next forward reaches each
  // (forward order, synchronizer.h): parameter `index` at this step's rate,
  // and count_step() once every parameter has had its update. Host only.
  void step_one(std::size_t index) { apply_one(index, coefficients()); }
  void count_step() { ++step_; }
  int steps_taken() const { return step_; }
  const OptimizerOptions& options() const { return options_; }
  // The bytes of its state (velocity, or the two moments).
  virtual std::uint64_t state_bytes() const = 0;

 protected:
  virtual void apply(const StepCoefficients& c) = 0;
  virtual void apply_one(std::size_t index, const StepCoefficients& c);
  StepCoefficients coefficients() const;
  float divide_by() const { return static_cast<float>(options_.summed_over); }

 private:
  OptimizerOptions options_;
  int step_ = 0;
};

// On host parameters (Parameter::value and ::grad).
class HostOptimizer final : public Optimizer {
 public:
  HostOptimizer(std::vector<Parameter>& parameters, OptimizerOptions options);
  std::uint64_t state_bytes() const override;

 private:
  void apply(const StepCoefficients& c) override;
  void apply_one(std::size_t index, const StepCoefficients& c) override;

  std::vector<Parameter>& parameters_;
  std::vector<std::vector<float>> state_;  // per parameter: state_floats(rule) x its elements
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
// state for its own pieces only, so that its optimizer state is its shard's.
class ShardOptimizer final : public Optimizer {
 public:
  ShardOptimizer(std::vector<Parameter>& parameters, OptimizerOptions options);
  // The pieces updated from now on; when they differ from the last ones,
  // every state starts again at zero.
  void set_pieces(std::vector<ParameterPiece> pieces);
  std::uint64_t state_bytes() const override { return state_.size() * sizeof(float); }

 private:
  void apply(const StepCoefficients& c) override;

  std::vector<Parameter>& parameters_;
  std::vector<ParameterPiece> pieces_;
  std::vector<float> state_;  // the pieces' states, back to back
};

// On a GPU model's device blocks (Model::DeviceState values and grads, which
// must outlive it): 3 or 4 cuBLAS calls over the whole flat block per step,
// queued on the model's stream, and step() returns once they are done. With
// weight decay the device gradients hold g + weight_decay w afterwards (the
// decay is added in place). It reads averaged gradients: summed_over must be 1
// (the device synchronizer averages; std::invalid_argument otherwise), and
// SGD's rule only. CUDA builds only (optimizer_cuda.cc): make_optimizer
// constructs it under `if constexpr (gpu_built())`.
class DeviceSgdMomentum final : public Optimizer {
 public:
  DeviceSgdMomentum(const Model::DeviceState& state, OptimizerOptions options);
  ~DeviceSgdMomentum() override;
  std::uint64_t state_bytes() const override { return state_bytes_; }

 private:
  void apply(const StepCoefficients& c) override;

  struct Device;  // velocity block (a DeviceBuffer) and cuBLAS handle: optimizer_cuda.cc
  std::unique_ptr<Device> device_;
  std::uint64_t state_bytes_ = 0;
};

// Throws std::invalid_argument, in one line, for a rule not built for a GPU
// model's device blocks (AdamW: only SGD is).
void refuse_rule_on_device(UpdateRule rule);

// The optimizer for `model`: on its device blocks when it computes on a GPU
// (SGD only, refuse_rule_on_device), else on its host parameters.
std::unique_ptr<Optimizer> make_optimizer(Model& model, OptimizerOptions options);

}  // namespace gradsync
