#pragma once
// Residual add: y = a + b (same shapes); the gradient flows to both unchanged.

#include "models/layer.h"

namespace gradsync {

class ResidualAdd : public Layer {
 public:
  ResidualAdd(FeatureShape a, FeatureShape b);
  std::string kind() const override { return "add"; }
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
