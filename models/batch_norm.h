#pragma once
// Batch normalization over (N, H, W) per channel, training mode.

#include "models/layer.h"

namespace gradsync {

class BatchNorm : public Layer {
 public:
  // torchvision defaults: eps 1e-5 (Inception-v3 uses 1e-3), momentum 0.1.
  explicit BatchNorm(FeatureShape input, float eps = 1e-5f, float momentum = 0.1f);
  std::string kind() const override { return "batch_norm"; }
  FeatureShape output_shape() const override { return shape_; }
  std::vector<ParamSpec> params() const override;
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

  float eps() const { return eps_; }
  float momentum() const { return momentum_; }

  // Non-trainable buffers (not parameters): updated by every forward.
  const std::vector<float>& running_mean() const { return running_mean_; }
  const std::vector<float>& running_var() const { return running_var_; }

 private:
  FeatureShape shape_;
  float eps_, momentum_;
  std::vector<float> mean_, inv_std_;             // of the last forward's batch
  std::vector<float> running_mean_, running_var_;  // allocated on first forward
};

}  // namespace gradsync
