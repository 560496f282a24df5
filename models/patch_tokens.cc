// Patch tokens: a transpose plus two parameters. Per sample, with x {C, P}
// channel-major (P = H*W patches), cls {C} and pos {1 + P, C}:
//   forward   y[0] = cls + pos[0],  y[1 + p][c] = x[c][p] + pos[1 + p][c]
//   backward  dcls = sum over the batch of dy[0],  dpos = sum over the batch of dy,
//             dx[c][p] += dy[1 + p][c]
// One pass each way; no FLOPs are counted for it.
#include "models/patch_tokens.h"

#include <algorithm>
#include <stdexcept>

namespace gradsync {

PatchTokens::PatchTokens(FeatureShape input)
    : channels_(input.channels), patches_(input.height * input.width) {
  if (channels_ <= 0 || patches_ <= 0)
    throw std::invalid_argument("patch_tokens: the input must be a non-empty {C, H, W}");
}

std::vector<ParamSpec> PatchTokens::params() const {
  return {{"class_token", {1, 1, channels_}},
          {"encoder.pos_embedding", {1, 1 + patches_, channels_}}};
}

void PatchTokens::forward(std::span<const Tensor* const> inputs, Tensor& output,
                          std::span<Parameter> params) {
  const float* cls = params[0].value.data();
  const float* pos = params[1].value.data();
  const std::size_t rows = std::size_t(1 + patches_) * channels_;
  for (int n = 0; n < inputs[0]->batch; ++n) {
    const float* x = inputs[0]->sample(n);
    float* y = output.sample(n);
    for (int c = 0; c < channels_; ++c) y[c] = cls[c];
    for (int c = 0; c < channels_; ++c)
      for (int p = 0; p < patches_; ++p)
        y[std::size_t(1 + p) * channels_ + c] = x[std::size_t(c) * patches_ + p];
    for (std::size_t i = 0; i < rows; ++i) y[i] += pos[i];
  }
}

void PatchTokens::backward(std::span<const Tensor* const>, const Tensor&, const Tensor& grad_output,
                           std::span<Tensor* const> grad_inputs, std::span<Parameter> params) {
  float* dcls = params[0].grad.data();
  float* dpos = params[1].grad.data();
  const std::size_t rows = std::size_t(1 + patches_) * channels_;
  std::fill(dcls, dcls + channels_, 0.0f);
  std::fill(dpos, dpos + rows, 0.0f);
  Tensor* dx = grad_inputs[0];
  for (int n = 0; n < grad_output.batch; ++n) {
    const float* dy = grad_output.sample(n);
    for (int c = 0; c < channels_; ++c) dcls[c] += dy[c];
    for (std::size_t i = 0; i < rows; ++i) dpos[i] += dy[i];
    if (!dx) continue;
    float* d = dx->sample(n);
    for (int c = 0; c < channels_; ++c)
      for (int p = 0; p < patches_; ++p)
        d[std::size_t(c) * patches_ + p] += dy[std::size_t(1 + p) * channels_ + c];
  }
}

}  // namespace gradsync
