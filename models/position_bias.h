#pragma once
// A bias added to every row of a sequence {T, d}: y[t] = x[t] + b (BERT's
// cls.predictions.bias after its tied decoder).

#include "models/layer.h"

namespace gradsync {

class PositionBias : public Layer {
 public:
  explicit PositionBias(FeatureShape input);
  std::string kind() const override { return "bias"; }
  FeatureShape output_shape() const override { return shape_; }
  // "bias" {d}.
  std::vector<ParamSpec> params() const override;
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

 private:
  FeatureShape shape_;
  int features_;  // d
};

}  // namespace gradsync
