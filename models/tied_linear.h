#pragma once
// An output head whose weight is another layer's parameter (a tied weight):
// y = x W^T per position of a sequence {T, d}, output {T, V}, W {V, d} the
// borrowed table (GPT-2's LM head reads wte, BERT's MLM decoder
// word_embeddings). No bias (BERT's follows as a PositionBias).

#include "models/layer.h"

namespace gradsync {

class TiedLinear : public Layer {
 public:
  TiedLinear(FeatureShape input, int out_features);
  std::string kind() const override { return "tied_linear"; }
  FeatureShape output_shape() const override { return sequence_shape(positions_, out_); }
  // None of its own: params() is empty, but forward and backward receive a
  // span holding exactly one Parameter, the borrowed weight {V, d} (throw
  // std::invalid_argument, naming it, for anything else).
  double forward_flops() const override { return 2.0 * positions_ * in_ * out_; }
  // Backward adds its share into the borrowed weight's gradient, which the
  // model zeroes before backward and which the owner's backward adds to as well.
  bool adds_to_grads() const override { return true; }
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

 private:
  const Parameter& weight(std::span<Parameter> params) const;

  int positions_, in_, out_;  // T, d, V
};

}  // namespace gradsync
