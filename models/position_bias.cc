// Bias per position: forward y[t] = x[t] + b for every row t of every sample;
// backward dx += dy and db = the sum of dy's rows over the batch. One pass
// each way; no FLOPs are counted for it.
#include "models/position_bias.h"

#include <algorithm>
#include <stdexcept>

namespace gradsync {

PositionBias::PositionBias(FeatureShape input)
    : shape_(input), features_(input.height * input.width) {
  if (input.channels <= 0 || features_ <= 0)
    throw std::invalid_argument("bias: the input sequence must have positions and features");
}

std::vector<ParamSpec> PositionBias::params() const { return {{"bias", {features_}}}; }

void PositionBias::forward(std::span<const Tensor* const> inputs, Tensor& output,
                           std::span<Parameter> params) {
  const auto& x = inputs[0]->data;
  const float* b = params[0].value.data();
  for (std::size_t i = 0; i < x.size(); ++i) output.data[i] = x[i] + b[i % features_];
}

void PositionBias::backward(std::span<const Tensor* const>, const Tensor&,
                            const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                            std::span<Parameter> params) {
  const auto& dy = grad_output.data;
  float* db = params[0].grad.data();
  std::fill(db, db + features_, 0.0f);
  for (std::size_t i = 0; i < dy.size(); ++i) db[i % features_] += dy[i];
  if (Tensor* dx = grad_inputs[0])
    for (std::size_t i = 0; i < dy.size(); ++i) dx->data[i] += dy[i];
}

}  // namespace gradsync
