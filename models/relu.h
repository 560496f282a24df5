#pragma once
// ReLU: y = max(x, 0); dy passes where the output is positive.

#include "models/layer.h"

namespace gradsync {

class Relu : public Layer {
 public:
  explicit Relu(FeatureShape input) : shape_(input) {}
  std::string kind() const override { return "relu"; }
  FeatureShape output_shape() const override { return shape_; }
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

 private:
  FeatureShape shape_;
};

}  // namespace gradsync
