#pragma once
// Max pooling over square or rectangular windows with stride and padding.

#include "models/layer.h"
#include "models/pool_geometry.h"

namespace gradsync {

class MaxPool : public Layer {
 public:
  MaxPool(FeatureShape input, const PoolOptions& options);
  std::string kind() const override { return "max_pool"; }
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
  std::vector<int> argmax_;  // per output element: index within its sample's input
};

}  // namespace gradsync
