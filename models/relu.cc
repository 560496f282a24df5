// ReLU, elementwise: forward max(x, 0); backward dx += dy where y > 0 (the
// gradient at exactly 0 is taken as 0, as PyTorch does). One pass each way.
#include "models/relu.h"

#include <algorithm>

namespace gradsync {

void Relu::forward(std::span<const Tensor* const> inputs, Tensor& output, std::span<Parameter>) {
  const auto& x = inputs[0]->data;
  for (std::size_t i = 0; i < x.size(); ++i) output.data[i] = std::max(x[i], 0.0f);
}

void Relu::backward(std::span<const Tensor* const>, const Tensor& output,
                    const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                    std::span<Parameter>) {
  if (!grad_inputs[0]) return;
  auto& dx = grad_inputs[0]->data;
  for (std::size_t i = 0; i < dx.size(); ++i)
    if (output.data[i] > 0) dx[i] += grad_output.data[i];
}

}  // namespace gradsync
