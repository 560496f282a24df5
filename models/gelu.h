#pragma once
// GELU, elementwise on any shape: exact, y = x * Phi(x) with Phi the standard
// normal CDF (BERT, ViT), or GPT-2's tanh approximation ("gelu_new").

#include "models/layer.h"

namespace gradsync {

enum class GeluForm { exact, tanh };

class Gelu : public Layer {
 public:
  Gelu(FeatureShape input, GeluForm form) : shape_(input), form_(form) {}
  std::string kind() const override { return "gelu"; }
  FeatureShape output_shape() const override { return shape_; }
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

  GeluForm form() const { return form_; }

 private:
  FeatureShape shape_;
  GeluForm form_;
};

}  // namespace gradsync
