// Layer normalization (Ba et al. 2016) as transformers use it. Per row of d
// features (each position of each sample, one row at a time): mean m, biased
// variance v, xhat = (x - m) / sqrt(v + eps), y = gamma * xhat + beta.
// Backward (with g = dy * gamma), per row:
//   dx = 1/sqrt(v + eps) * (g - mean(g) - xhat * mean(g * xhat)),
// and over all rows of the batch dgamma = sum(dy * xhat), dbeta = sum(dy).
// Backward recomputes each row's statistics from the input (no state is kept
// between the passes). Row sums are accumulated in double.
// Cost: a few passes over the activations; no FLOPs are counted for it.
#include "models/layer_norm.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gradsync {

LayerNorm::LayerNorm(FeatureShape input, float eps)
    : shape_(input), features_(input.height * input.width), eps_(eps) {
  if (input.channels <= 0 || features_ <= 0)
    throw std::invalid_argument("layer_norm: the input sequence must have positions and features");
  if (!(eps > 0)) throw std::invalid_argument("layer_norm: eps must be positive");
}

std::vector<ParamSpec> LayerNorm::params() const {
  return {{"weight", {features_}}, {"bias", {features_}}};
}

LayerNorm::RowStats LayerNorm::row_stats(const float* x) const {
  double sum = 0;
  for (int i = 0; i < features_; ++i) sum += x[i];
  const double mean = sum / features_;
  double squares = 0;
  for (int i = 0; i < features_; ++i) squares += (x[i] - mean) * (x[i] - mean);
  return {float(mean), float(1.0 / std::sqrt(squares / features_ + eps_))};
}

void LayerNorm::forward(std::span<const Tensor* const> inputs, Tensor& output,
                        std::span<Parameter> params) {
  const Tensor& x = *inputs[0];
  const float* gamma = params[0].value.data();
  const float* beta = params[1].value.data();
  const std::size_t rows = x.data.size() / features_;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* in = x.data.data() + r * features_;
    float* out = output.data.data() + r * features_;
    const RowStats s = row_stats(in);
    for (int i = 0; i < features_; ++i) out[i] = gamma[i] * (in[i] - s.mean) * s.inv_std + beta[i];
  }
}

void LayerNorm::backward_row(const float* x, const float* dy, const float* gamma, float* dgamma,
                             float* dbeta, float* dx) const {
  const RowStats s = row_stats(x);
  double sum_g = 0, sum_g_xhat = 0;
  for (int i = 0; i < features_; ++i) {
    const float xhat = (x[i] - s.mean) * s.inv_std;
    const float g = dy[i] * gamma[i];
    dgamma[i] += dy[i] * xhat;
    dbeta[i] += dy[i];
    sum_g += g;
    sum_g_xhat += double(g) * xhat;
  }
  if (!dx) return;
  const float mean_g = float(sum_g / features_), mean_g_xhat = float(sum_g_xhat / features_);
  for (int i = 0; i < features_; ++i) {
    const float xhat = (x[i] - s.mean) * s.inv_std;
    dx[i] += s.inv_std * (dy[i] * gamma[i] - mean_g - xhat * mean_g_xhat);
  }
}

void LayerNorm::backward(std::span<const Tensor* const> inputs, const Tensor&,
                         const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                         std::span<Parameter> params) {
  const Tensor& x = *inputs[0];
  float* dgamma = params[0].grad.data();
  float* dbeta = params[1].grad.data();
  std::fill(dgamma, dgamma + features_, 0.0f);
  std::fill(dbeta, dbeta + features_, 0.0f);
  Tensor* dx = grad_inputs[0];
  const std::size_t rows = x.data.size() / features_;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t at = r * features_;
    backward_row(x.data.data() + at, grad_output.data.data() + at, params[0].value.data(), dgamma,
                 dbeta, dx ? dx->data.data() + at : nullptr);
  }
}

}  // namespace gradsync
