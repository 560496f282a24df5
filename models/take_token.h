#pragma once
// One row of a sequence {T, d} as a feature vector {d, 1, 1} (ViT's class
// token, row 0, into its classifier).

#include "models/layer.h"

namespace gradsync {

class TakeToken : public Layer {
 public:
  // Throws std::invalid_argument unless 0 <= index < T.
  TakeToken(FeatureShape input, int index);
  std::string kind() const override { return "take_token"; }
  FeatureShape output_shape() const override { return {features_, 1, 1}; }
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

  int index() const { return index_; }

 private:
  int features_, index_;  // d, the row taken
};

}  // namespace gradsync
