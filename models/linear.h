#pragma once
// Fully connected layer over the flattened C*H*W features of each sample
// (flatten is implicit in NCHW): y = x W^T + b, W is out x in. Per position
// (LinearOptions::per_position), the input is a sequence {T, in} (tensor.h's
// sequence_shape) and every one of its T rows goes through the same W and b:
// the output is {T, out}, a transformer's projections and MLP.

#include <string>

#include "models/layer.h"

namespace gradsync {

struct LinearOptions {
  // The input is a sequence {T, in, 1}; the output {T, out, 1}.
  bool per_position = false;
  // The parameters' name suffixes (torchvision's ViT names its attention's
  // input projection "in_proj_weight" and "in_proj_bias").
  std::string weight_suffix = "weight";
  std::string bias_suffix = "bias";
};

class Linear : public Layer {
 public:
  Linear(FeatureShape input, int out_features);
  Linear(FeatureShape input, int out_features, LinearOptions options);
  std::string kind() const override { return "linear"; }
  FeatureShape output_shape() const override;
  std::vector<ParamSpec> params() const override;
  double forward_flops() const override { return 2.0 * positions_ * in_ * out_; }
  int fan_in() const override { return in_; }
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

  bool per_position() const { return options_.per_position; }

 private:
  LinearOptions options_;
  int positions_ = 1;  // rows per sample: T per position, else 1
  int in_, out_;
};

}  // namespace gradsync
