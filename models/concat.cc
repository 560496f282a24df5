// Channel concat: in NCHW each input's sample is one contiguous block, so
// forward copies the blocks one after another per sample and backward adds
// the matching slice of dy back into each input's gradient. One copy each way.
#include "models/concat.h"

#include <algorithm>
#include <stdexcept>

namespace gradsync {

Concat::Concat(std::vector<FeatureShape> inputs) : in_(std::move(inputs)) {
  if (in_.empty()) throw std::invalid_argument("concat: needs at least one input");
  out_ = {0, in_[0].height, in_[0].width};
  for (const auto& s : in_) {
    if (s.height != out_.height || s.width != out_.width)
      throw std::invalid_argument("concat: inputs differ in height or width (" +
                                  std::to_string(s.height) + "x" + std::to_string(s.width) +
                                  " vs " + std::to_string(out_.height) + "x" +
                                  std::to_string(out_.width) + "); pad or pool the branches to match");
    out_.channels += s.channels;
  }
}

void Concat::forward(std::span<const Tensor* const> inputs, Tensor& output,
                     std::span<Parameter>) {
  for (int n = 0; n < output.batch; ++n) {
    float* out = output.sample(n);
    for (const Tensor* x : inputs) out = std::copy_n(x->sample(n), x->sample_size(), out);
  }
}

void Concat::backward(std::span<const Tensor* const> inputs, const Tensor&,
                      const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                      std::span<Parameter>) {
  for (int n = 0; n < grad_output.batch; ++n) {
    const float* dy = grad_output.sample(n);
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const std::size_t size = inputs[k]->sample_size();
      if (Tensor* d = grad_inputs[k]) {
        float* dx = d->sample(n);
        for (std::size_t i = 0; i < size; ++i) dx[i] += dy[i];
      }
      dy += size;
    }
  }
}

}  // namespace gradsync
