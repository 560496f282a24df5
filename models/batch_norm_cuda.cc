// Batch normalization on cuDNN, training mode, per channel over (N, H, W)
// (CUDNN_BATCHNORM_SPATIAL): the forward normalizes with the batch's mean
// and biased variance, as batch_norm.cc does, with the CPU layer's eps, and
// saves the mean and 1/sqrt(var + eps) for the backward. Like the CPU layer
// it keeps running mean and unbiased variance with the same momentum
// (cuDNN's exponentialAverageFactor), as buffers nobody reads: this suite
// only trains. The backward overwrites dgamma and dbeta and ADDS into dx
// (betaDataDiff 1); with no dx (the model input) it writes into a scratch
// buffer of its own. Cost: a few passes over the activations.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "models/cuda_descriptors.h"
#include "models/cuda_layer_kinds.h"

namespace gradsync {
namespace {

class CudaBatchNorm final : public CudaLayer {
 public:
  CudaBatchNorm(const BatchNorm& layer, FeatureShape input, CudaContext& cuda, std::string context)
      : cuda_(cuda), context_(std::move(context)), shape_(input), eps_(layer.eps()),
        momentum_(layer.momentum()), stats_(4 * std::size_t(input.channels)) {
    const std::size_t c = std::size_t(input.channels);
    std::vector<float> initial(4 * c, 0.0f);
    std::fill(initial.begin() + c, initial.begin() + 2 * c, 1.0f);  // running variance starts at 1
    cuda_.upload(initial, stats_.data());
  }

  std::size_t set_batch(int batch) override {
    if (std::size_t(batch) * shape_.height * shape_.width < 2)
      throw std::invalid_argument(
          "batch_norm: training needs more than one value per channel; use a batch of 2 or more");
    set_nchw(x_, batch, shape_, context_);
    check_cuda(cudnnDeriveBNTensorDescriptor(stats_desc_, x_, CUDNN_BATCHNORM_SPATIAL),
                "cudnnDeriveBNTensorDescriptor", context_);
    scratch_ = DeviceBuffer();
    batch_ = batch;
    return 0;
  }

  void forward(std::span<const float* const> inputs, float* output,
               std::span<const float* const> values) override {
    check_cuda(cudnnBatchNormalizationForwardTraining(
                    cuda_.cudnn(), CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, x_, inputs[0], x_,
                    output, stats_desc_, values[0], values[1], double(momentum_), running_mean(),
                    running_var(), double(eps_), saved_mean(), saved_inv_std()),
                "cudnnBatchNormalizationForwardTraining", context_);
  }

  void backward(std::span<const float* const> inputs, const float* /*output*/,
                const float* grad_output, std::span<float* const> grad_inputs,
                std::span<const float* const> values, std::span<float* const> grads) override {
    float* dx = grad_inputs[0];
    if (!dx) {
      if (scratch_.size() == 0) scratch_ = DeviceBuffer(std::size_t(batch_) * shape_.elements(), "cuda compute");
      dx = scratch_.data();
    }
    check_cuda(cudnnBatchNormalizationBackward(
                    cuda_.cudnn(), CUDNN_BATCHNORM_SPATIAL, &kOne, grad_inputs[0] ? &kOne : &kZero,
                    &kOne, &kZero, x_, inputs[0], x_, grad_output, x_, dx, stats_desc_, values[0],
                    grads[0], grads[1], double(eps_), saved_mean(), saved_inv_std()),
                "cudnnBatchNormalizationBackward", context_);
  }

 private:
  float* running_mean() const { return stats_.data(); }
  float* running_var() const { return stats_.data() + shape_.channels; }
  float* saved_mean() const { return stats_.data() + 2 * shape_.channels; }
  float* saved_inv_std() const { return stats_.data() + 3 * shape_.channels; }

  CudaContext& cuda_;
  std::string context_;
  FeatureShape shape_;
  float eps_, momentum_;
  DeviceBuffer stats_;    // running mean, running variance, saved mean, saved 1/std (C each)
  DeviceBuffer scratch_;  // dx when the layer reads the model input
  int batch_ = 0;
  TensorDescriptor x_, stats_desc_;
};

}  // namespace

std::unique_ptr<CudaLayer> make_cuda_batch_norm(const BatchNorm& layer, FeatureShape input,
                                                CudaContext& cuda, std::string context) {
  return std::make_unique<CudaBatchNorm>(layer, input, cuda, std::move(context));
}

}  // namespace gradsync
