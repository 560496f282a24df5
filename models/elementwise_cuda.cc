// The elementwise layers on cuDNN. ReLU: cudnnActivationForward (RELU), and
// cudnnActivationBackward, which passes dy where the input is positive (0 at
// exactly 0, like relu.cc) and ADDS it into dx (beta 1). Residual add:
// forward is one cudnnOpTensor (y = a + b), backward adds dy into each
// input's gradient with cudnnAddTensor (beta 1), so an input read twice gets
// it twice, as on the CPU. One pass over the activations each way.
#include "models/cuda_descriptors.h"
#include "models/cuda_layer_kinds.h"

namespace gradsync {
namespace {

class CudaRelu final : public CudaLayer {
 public:
  CudaRelu(FeatureShape shape, CudaContext& cuda, std::string context)
      : cuda_(cuda), context_(std::move(context)), shape_(shape) {
    check_cuda(cudnnSetActivationDescriptor(relu_, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0),
                "cudnnSetActivationDescriptor", context_);
  }

  std::size_t set_batch(int batch) override {
    set_nchw(x_, batch, shape_, context_);
    return 0;
  }

  void forward(std::span<const float* const> inputs, float* output,
               std::span<const float* const>) override {
    check_cuda(cudnnActivationForward(cuda_.cudnn(), relu_, &kOne, x_, inputs[0], &kZero, x_, output),
                "cudnnActivationForward", context_);
  }

  void backward(std::span<const float* const> inputs, const float* output,
                const float* grad_output, std::span<float* const> grad_inputs,
                std::span<const float* const>, std::span<float* const>) override {
    if (!grad_inputs[0]) return;
    check_cuda(cudnnActivationBackward(cuda_.cudnn(), relu_, &kOne, x_, output, x_, grad_output,
                                        x_, inputs[0], &kOne, x_, grad_inputs[0]),
                "cudnnActivationBackward", context_);
  }

 private:
  CudaContext& cuda_;
  std::string context_;
  FeatureShape shape_;
  ActivationDescriptor relu_;
  TensorDescriptor x_;
};

class CudaResidualAdd final : public CudaLayer {
 public:
  CudaResidualAdd(FeatureShape shape, CudaContext& cuda, std::string context)
      : cuda_(cuda), context_(std::move(context)), shape_(shape) {
    check_cuda(cudnnSetOpTensorDescriptor(add_, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT,
                                           CUDNN_PROPAGATE_NAN),
                "cudnnSetOpTensorDescriptor", context_);
  }

  std::size_t set_batch(int batch) override {
    set_nchw(x_, batch, shape_, context_);
    return 0;
  }

  void forward(std::span<const float* const> inputs, float* output,
               std::span<const float* const>) override {
    check_cuda(cudnnOpTensor(cuda_.cudnn(), add_, &kOne, x_, inputs[0], &kOne, x_, inputs[1],
                              &kZero, x_, output),
                "cudnnOpTensor", context_);
  }

  void backward(std::span<const float* const>, const float*, const float* grad_output,
                std::span<float* const> grad_inputs, std::span<const float* const>,
                std::span<float* const>) override {
    for (float* dx : grad_inputs)
      if (dx)
        check_cuda(cudnnAddTensor(cuda_.cudnn(), &kOne, x_, grad_output, &kOne, x_, dx),
                    "cudnnAddTensor", context_);
  }

 private:
  CudaContext& cuda_;
  std::string context_;
  FeatureShape shape_;
  OpTensorDescriptor add_;
  TensorDescriptor x_;
};

}  // namespace

std::unique_ptr<CudaLayer> make_cuda_relu(FeatureShape input, CudaContext& cuda,
                                          std::string context) {
  return std::make_unique<CudaRelu>(input, cuda, std::move(context));
}

std::unique_ptr<CudaLayer> make_cuda_residual_add(FeatureShape input, CudaContext& cuda,
                                                  std::string context) {
  return std::make_unique<CudaResidualAdd>(input, cuda, std::move(context));
}

}  // namespace gradsync
