#pragma once
// Average pooling (padding counted in the divisor, torchvision's default),
// and global average pooling as the window covering the whole map.

#include "models/layer.h"
#include "models/pool_geometry.h"

namespace gradsync {

class AvgPool : public Layer {
 public:
  AvgPool(FeatureShape input, const PoolOptions& options);
  // Global average pooling: C x H x W -> C x 1 x 1.
  static PoolOptions global(FeatureShape input) { return {input.height, input.width, 1, 0}; }
  std::string kind() const override { return "avg_pool"; }
  FeatureShape output_shape() const override { return out_; }
  const PoolOptions& options() const { return options_; }
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

 private:
  FeatureShape in_, out_;
  PoolOptions options_;
};

}  // namespace gradsync
