#pragma once
// ViT's step from the patch embedding (a convolution's output {C, H, W}) to
// the encoder's input sequence {1 + H*W, C}: the class token first, then one
// row per patch (p = y*W + x) holding its C channels, every row plus its row
// of the position embedding.

#include "models/layer.h"

namespace gradsync {

class PatchTokens : public Layer {
 public:
  explicit PatchTokens(FeatureShape input);
  std::string kind() const override { return "patch_tokens"; }
  FeatureShape output_shape() const override { return sequence_shape(1 + patches_, channels_); }
  // "class_token" {1, 1, C}, then "encoder.pos_embedding" {1, 1 + H*W, C}
  // (torchvision's names, meant to be used without a node prefix). fan_in()
  // is 0: both start at 0.
  std::vector<ParamSpec> params() const override;
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

 private:
  int channels_, patches_;  // C, H*W
};

}  // namespace gradsync
