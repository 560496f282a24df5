// Residual add (the skip connection of a ResNet block): forward y = a + b,
// backward da += dy and db += dy. One pass each way.
#include "models/residual_add.h"

#include <stdexcept>

namespace gradsync {

ResidualAdd::ResidualAdd(FeatureShape a, FeatureShape b) : shape_(a) {
  if (!(a == b))
    throw std::invalid_argument("add: the two inputs differ in shape; a residual branch needs a "
                                "downsample projection to match");
}

void ResidualAdd::forward(std::span<const Tensor* const> inputs, Tensor& output,
                          std::span<Parameter>) {
  const auto& a = inputs[0]->data;
  const auto& b = inputs[1]->data;
  for (std::size_t i = 0; i < a.size(); ++i) output.data[i] = a[i] + b[i];
}

void ResidualAdd::backward(std::span<const Tensor* const>, const Tensor&,
                           const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                           std::span<Parameter>) {
  for (Tensor* d : grad_inputs) {
    if (!d) continue;
    for (std::size_t i = 0; i < d->data.size(); ++i) d->data[i] += grad_output.data[i];
  }
}

}  // namespace gradsync
