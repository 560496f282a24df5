#include "harness/engine/optimizer.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gpu/build.h"

namespace gradsync {

double learning_rate(const SgdOptions& options, int step) {
  const double scale = options.workers;
  if (options.warmup_steps <= 0 || step >= options.warmup_steps) return options.base_lr * scale;
  const double progress = static_cast<double>(step) / options.warmup_steps;
  return options.base_lr * (1.0 + (scale - 1.0) * progress);
}

SgdOptimizer::SgdOptimizer(SgdOptions options) : options_(options) {
  if (options_.workers < 1) throw std::invalid_argument("SGD needs at least one worker");
  if (options_.summed_over < 1)
    throw std::invalid_argument("SGD: gradients summed over " +
                                std::to_string(options_.summed_over) + " workers");
}

SgdCoefficients SgdOptimizer::coefficients() const {
  return {.lr = static_cast<float>(learning_rate(options_, step_)),
          .momentum = static_cast<float>(options_.momentum),
          .weight_decay = static_cast<float>(options_.weight_decay)};
}

void SgdOptimizer::step() {
  apply(coefficients());
  ++step_;
}

void SgdOptimizer::apply_one(std::size_t, const SgdCoefficients&) {
  throw std::logic_error("this optimizer updates every parameter at once (no step_one)");
}

SgdMomentum::SgdMomentum(std::vector<Parameter>& parameters, SgdOptions options)
    : SgdOptimizer(options), parameters_(parameters) {
  velocity_.reserve(parameters_.size());
  for (const auto& p : parameters_) velocity_.emplace_back(p.value.size(), 0.0f);
}

std::uint64_t SgdMomentum::state_bytes() const {
  std::uint64_t bytes = 0;
  for (const auto& v : velocity_) bytes += v.size() * sizeof(float);
  return bytes;
}

// The division by summed_over is the averaging: g[k] / workers, correctly
// rounded, exactly as the synchronizer's own pass would compute it. x / 1 is
// x, so one loop serves both.
void SgdMomentum::apply(const SgdCoefficients& c) {
  for (std::size_t i = 0; i < parameters_.size(); ++i) apply_one(i, c);
}

void SgdMomentum::apply_one(std::size_t i, const SgdCoefficients& c) {
  sgd_momentum_update(parameters_[i].value.data(), parameters_[i].grad.data(), velocity_[i].data(),
                      parameters_[i].value.size(), c, static_cast<float>(options().summed_over));
}

ShardSgd::ShardSgd(std::vector<Parameter>& parameters, SgdOptions options)
    : SgdOptimizer(options), parameters_(parameters) {}

void ShardSgd::set_pieces(std::vector<ParameterPiece> pieces) {
  if (pieces == pieces_) return;
  std::size_t elements = 0;
  for (const ParameterPiece& piece : pieces) elements += piece.count;
  pieces_ = std::move(pieces);
  velocity_.assign(elements, 0.0f);
}

void ShardSgd::apply(const SgdCoefficients& c) {
  float* velocity = velocity_.data();
  for (const ParameterPiece& piece : pieces_) {
    Parameter& p = parameters_[piece.parameter];
    sgd_momentum_update(p.value.data() + piece.offset, p.grad.data() + piece.offset, velocity,
                        piece.count, c, static_cast<float>(options().summed_over));
    velocity += piece.count;
  }
}

std::unique_ptr<SgdOptimizer> make_sgd(Model& model, SgdOptions options) {
  if (const Model::DeviceState* device = model.device_state()) {
    if constexpr (gpu_built())
      return std::make_unique<DeviceSgdMomentum>(*device, options);
    else
      throw_not_built("SGD on device");
  }
  return std::make_unique<SgdMomentum>(model.parameters(), options);
}

}  // namespace gradsync
