// Take token: forward y = x[index] (one row of d of each sample's sequence);
// backward dx[index] += dy, the other rows get nothing. A copy each way; no
// FLOPs are counted for it.
#include "models/take_token.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gradsync {

TakeToken::TakeToken(FeatureShape input, int index)
    : features_(input.height * input.width), index_(index) {
  if (features_ <= 0 || index < 0 || index >= input.channels)
    throw std::invalid_argument("take_token: row " + std::to_string(index) +
                                " is not in a sequence of " + std::to_string(input.channels) +
                                " rows of " + std::to_string(features_) + " features");
}

void TakeToken::forward(std::span<const Tensor* const> inputs, Tensor& output,
                        std::span<Parameter>) {
  const std::size_t at = std::size_t(index_) * features_;
  for (int n = 0; n < output.batch; ++n)
    std::copy_n(inputs[0]->sample(n) + at, features_, output.sample(n));
}

void TakeToken::backward(std::span<const Tensor* const>, const Tensor&, const Tensor& grad_output,
                         std::span<Tensor* const> grad_inputs, std::span<Parameter>) {
  Tensor* dx = grad_inputs[0];
  if (!dx) return;
  const std::size_t at = std::size_t(index_) * features_;
  for (int n = 0; n < grad_output.batch; ++n) {
    const float* dy = grad_output.sample(n);
    float* d = dx->sample(n) + at;
    for (int i = 0; i < features_; ++i) d[i] += dy[i];
  }
}

}  // namespace gradsync
