#pragma once
// Layer normalization of a sequence {T, d} (tensor.h's sequence_shape): each
// of the T rows is normalized over its own d features, y = gamma * xhat + beta.

#include "models/layer.h"

namespace gradsync {

class LayerNorm : public Layer {
 public:
  // PyTorch's default eps is 1e-5 (BERT and GPT-2 use 1e-12 and 1e-5, ViT 1e-6).
  LayerNorm(FeatureShape input, float eps);
  std::string kind() const override { return "layer_norm"; }
  FeatureShape output_shape() const override { return shape_; }
  // "weight" (gamma) {d} and "bias" (beta) {d}; fan_in() is 0, so
  // initialization makes gamma 1 and beta 0.
  std::vector<ParamSpec> params() const override;
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

  float eps() const { return eps_; }

 private:
  // Mean and 1/sqrt(biased variance + eps) of one row of d_ values.
  struct RowStats {
    float mean, inv_std;
  };
  RowStats row_stats(const float* x) const;
  void backward_row(const float* x, const float* dy, const float* gamma, float* dgamma,
                    float* dbeta, float* dx) const;

  FeatureShape shape_;
  int features_;  // d: the normalized width of a row
  float eps_;
};

}  // namespace gradsync
