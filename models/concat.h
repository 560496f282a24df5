#pragma once
// Channel concatenation of several maps of equal height and width (the join
// of an Inception module).

#include "models/layer.h"

namespace gradsync {

class Concat : public Layer {
 public:
  explicit Concat(std::vector<FeatureShape> inputs);
  std::string kind() const override { return "concat"; }
  FeatureShape output_shape() const override { return out_; }
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

 private:
  std::vector<FeatureShape> in_;
  FeatureShape out_;
};

}  // namespace gradsync
