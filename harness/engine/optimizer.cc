#include "harness/engine/optimizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "gpu/build.h"

namespace gradsync {

std::size_t state_floats(UpdateRule rule) { return rule == UpdateRule::adamw ? 2 : 1; }

double learning_rate(const OptimizerOptions& options, int step) {
  const double scale = options.workers;
  if (options.warmup_steps <= 0 || step >= options.warmup_steps) return options.base_lr * scale;
  const double progress = static_cast<double>(step) / options.warmup_steps;
  return options.base_lr * (1.0 + (scale - 1.0) * progress);
}

void apply_rule(UpdateRule rule, float* w, const float* g, float* state, std::size_t n,
                const StepCoefficients& c, float divide_by) {
  if (rule == UpdateRule::adamw)
    adamw_update(w, g, state, state + n, n, c.adamw, divide_by);
  else
    sgd_momentum_update(w, g, state, n, c.sgd, divide_by);
}

Optimizer::Optimizer(OptimizerOptions options) : options_(options) {
  if (options_.workers < 1) throw std::invalid_argument("the optimizer needs at least one worker");
  if (options_.summed_over < 1)
    throw std::invalid_argument("the optimizer: gradients summed over " +
                                std::to_string(options_.summed_over) + " workers");
}

StepCoefficients Optimizer::coefficients() const {
  const auto lr = static_cast<float>(learning_rate(options_, step_));
  const int t = step_ + 1;  // AdamW's bias corrections count steps from 1
  return {.sgd = {.lr = lr,
                  .momentum = static_cast<float>(options_.momentum),
                  .weight_decay = static_cast<float>(options_.weight_decay)},
          .adamw = {.lr = lr,
                    .beta1 = static_cast<float>(options_.beta1),
                    .beta2 = static_cast<float>(options_.beta2),
                    .eps = static_cast<float>(options_.eps),
                    .weight_decay = static_cast<float>(options_.weight_decay),
                    .bias1 = static_cast<float>(1 - std::pow(options_.beta1, t)),
                    .bias2 = static_cast<float>(1 - std::pow(options_.beta2, t))}};
}

void Optimizer::step() {
  apply(coefficients());
  ++step_;
}

void Optimizer::apply_one(std::size_t, const StepCoefficients&) {
  throw std::logic_error("this optimizer updates every parameter at once (no step_one)");
}

HostOptimizer::HostOptimizer(std::vector<Parameter>& parameters, OptimizerOptions options)
    : Optimizer(options), parameters_(parameters) {
  state_.reserve(parameters_.size());
  for (const auto& p : parameters_)
    state_.emplace_back(state_floats(options.rule) * p.value.size(), 0.0f);
}

std::uint64_t HostOptimizer::state_bytes() const {
  std::uint64_t bytes = 0;
  for (const auto& s : state_) bytes += s.size() * sizeof(float);
  return bytes;
}

// The division by summed_over is the averaging: g[k] / workers, correctly
// rounded, exactly as the synchronizer's own pass would compute it. x / 1 is
// x, so one loop serves both.
void HostOptimizer::apply(const StepCoefficients& c) {
  for (std::size_t i = 0; i < parameters_.size(); ++i) apply_one(i, c);
}

void HostOptimizer::apply_one(std::size_t i, const StepCoefficients& c) {
  apply_rule(options().rule, parameters_[i].value.data(), parameters_[i].grad.data(),
             state_[i].data(), parameters_[i].value.size(), c, divide_by());
}

ShardOptimizer::ShardOptimizer(std::vector<Parameter>& parameters, OptimizerOptions options)
    : Optimizer(options), parameters_(parameters) {}

void ShardOptimizer::set_pieces(std::vector<ParameterPiece> pieces) {
  if (pieces == pieces_) return;
  std::size_t elements = 0;
  for (const ParameterPiece& piece : pieces) elements += piece.count;
  pieces_ = std::move(pieces);
  state_.assign(state_floats(options().rule) * elements, 0.0f);
}

void ShardOptimizer::apply(const StepCoefficients& c) {
  float* state = state_.data();
  for (const ParameterPiece& piece : pieces_) {
    Parameter& p = parameters_[piece.parameter];
    apply_rule(options().rule, p.value.data() + piece.offset, p.grad.data() + piece.offset, state,
               piece.count, c, divide_by());
    state += state_floats(options().rule) * piece.count;
  }
}

void refuse_rule_on_device(UpdateRule rule) {
  if (rule != UpdateRule::sgd)
    throw std::invalid_argument(
        "--optimizer adamw runs on host parameters: use --compute cpu or emulated (on a GPU "
        "model's device blocks only SGD is built)");
}

std::unique_ptr<Optimizer> make_optimizer(Model& model, OptimizerOptions options) {
  if (const Model::DeviceState* device = model.device_state()) {
    refuse_rule_on_device(options.rule);
    if constexpr (gpu_built())
      return std::make_unique<DeviceSgdMomentum>(*device, options);
    else
      throw_not_built("SGD on device");
  }
  return std::make_unique<HostOptimizer>(model.parameters(), options);
}

}  // namespace gradsync
