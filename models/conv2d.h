#pragma once
// 2-D convolution (no groups, no dilation): any kernel (square, 1x1, 1x7,
// 7x1), stride, zero padding per axis, optional bias.

#include "models/im2col.h"
#include "models/layer.h"

namespace gradsync {

struct Conv2dOptions {
  int out_channels = 0;
  int kernel_h = 1, kernel_w = 1;
  int stride = 1;
  int pad_h = 0, pad_w = 0;
  bool bias = true;
};

class Conv2d : public Layer {
 public:
  Conv2d(FeatureShape input, const Conv2dOptions& options);
  std::string kind() const override { return "conv2d"; }
  FeatureShape output_shape() const override;
  std::vector<ParamSpec> params() const override;
  double forward_flops() const override;
  int fan_in() const override { return geometry_.col_rows(); }
  const Conv2dOptions& options() const { return options_; }
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

 private:
  ConvGeometry geometry_;
  Conv2dOptions options_;
  std::vector<float> col_;  // scratch: one sample's unfolded input
};

}  // namespace gradsync
