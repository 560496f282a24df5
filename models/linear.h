#pragma once
// Fully connected layer over the flattened C*H*W features of each sample
// (flatten is implicit in NCHW): y = x W^T + b, W is out x in.

#include "models/layer.h"

namespace gradsync {

class Linear : public Layer {
 public:
  Linear(FeatureShape input, int out_features);
  std::string kind() const override { return "linear"; }
  FeatureShape output_shape() const override { return {out_, 1, 1}; }
  std::vector<ParamSpec> params() const override;
  double forward_flops() const override { return 2.0 * in_ * out_; }
  int fan_in() const override { return in_; }
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

 private:
  int in_, out_;
};

}  // namespace gradsync
