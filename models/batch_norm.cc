// Batch normalization in training mode. Per channel c over the M = N*H*W
// values of the batch: mean m, biased variance v, xhat = (x - m) / sqrt(v + eps),
// y = gamma * xhat + beta. Backward (with g = dy * gamma):
//   dgamma = sum(dy * xhat), dbeta = sum(dy),
//   dx = (1/M) / sqrt(v + eps) * (M*g - sum(g) - xhat * sum(g * xhat)).
// Statistics are accumulated in double. The running mean and (unbiased)
// variance are kept as buffers with momentum, as PyTorch does, but the
// forward always uses the batch statistics (this suite only trains).
// Cost: a few passes over the activations; no FLOPs are counted for it.
#include "models/batch_norm.h"

#include <cmath>
#include <stdexcept>

namespace gradsync {

BatchNorm::BatchNorm(FeatureShape input, float eps, float momentum)
    : shape_(input), eps_(eps), momentum_(momentum) {}

std::vector<ParamSpec> BatchNorm::params() const {
  return {{"weight", {shape_.channels}}, {"bias", {shape_.channels}}};
}

void BatchNorm::forward(std::span<const Tensor* const> inputs, Tensor& output,
                        std::span<Parameter> params) {
  const Tensor& x = *inputs[0];
  const int channels = shape_.channels;
  const std::size_t plane = std::size_t(shape_.height) * shape_.width;
  const double count = double(x.batch) * plane;
  if (count < 2)
    throw std::invalid_argument(
        "batch_norm: training needs more than one value per channel; use a batch of 2 or more");
  if (running_mean_.empty()) {
    running_mean_.assign(channels, 0.0f);
    running_var_.assign(channels, 1.0f);
  }
  mean_.resize(channels);
  inv_std_.resize(channels);
  const float* gamma = params[0].value.data();
  const float* beta = params[1].value.data();
  for (int c = 0; c < channels; ++c) {
    double sum = 0, sum_sq = 0;
    for (int n = 0; n < x.batch; ++n) {
      const float* p = x.sample(n) + c * plane;
      for (std::size_t i = 0; i < plane; ++i) sum += p[i];
    }
    const double mean = sum / count;
    for (int n = 0; n < x.batch; ++n) {
      const float* p = x.sample(n) + c * plane;
      for (std::size_t i = 0; i < plane; ++i) sum_sq += (p[i] - mean) * (p[i] - mean);
    }
    const double var = sum_sq / count;
    const float inv_std = float(1.0 / std::sqrt(var + eps_));
    mean_[c] = float(mean);
    inv_std_[c] = inv_std;
    running_mean_[c] = float((1 - momentum_) * running_mean_[c] + momentum_ * mean);
    running_var_[c] = float((1 - momentum_) * running_var_[c] + momentum_ * var * count / (count - 1));
    const float scale = gamma[c] * inv_std, shift = beta[c] - float(mean) * scale;
    for (int n = 0; n < x.batch; ++n) {
      const float* p = x.sample(n) + c * plane;
      float* y = output.sample(n) + c * plane;
      for (std::size_t i = 0; i < plane; ++i) y[i] = p[i] * scale + shift;
    }
  }
}

void BatchNorm::backward(std::span<const Tensor* const> inputs, const Tensor& /*output*/,
                         const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                         std::span<Parameter> params) {
  const Tensor& x = *inputs[0];
  Tensor* dx = grad_inputs[0];
  const std::size_t plane = std::size_t(shape_.height) * shape_.width;
  const double count = double(x.batch) * plane;
  const float* gamma = params[0].value.data();
  for (int c = 0; c < shape_.channels; ++c) {
    const float mean = mean_[c], inv_std = inv_std_[c];
    double sum_dy = 0, sum_dy_xhat = 0;
    for (int n = 0; n < x.batch; ++n) {
      const float* p = x.sample(n) + c * plane;
      const float* dy = grad_output.sample(n) + c * plane;
      for (std::size_t i = 0; i < plane; ++i) {
        sum_dy += dy[i];
        sum_dy_xhat += double(dy[i]) * (p[i] - mean) * inv_std;
      }
    }
    params[0].grad[c] = float(sum_dy_xhat);
    params[1].grad[c] = float(sum_dy);
    if (!dx) continue;
    const float k = gamma[c] * inv_std;
    const float mean_dy = float(sum_dy / count), mean_dy_xhat = float(sum_dy_xhat / count);
    for (int n = 0; n < x.batch; ++n) {
      const float* p = x.sample(n) + c * plane;
      const float* dy = grad_output.sample(n) + c * plane;
      float* d = dx->sample(n) + c * plane;
      for (std::size_t i = 0; i < plane; ++i) {
        const float xhat = (p[i] - mean) * inv_std;
        d[i] += k * (dy[i] - mean_dy - xhat * mean_dy_xhat);
      }
    }
  }
}

}  // namespace gradsync
