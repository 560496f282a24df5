// Max and average pooling on cuDNN, with the CPU layers' conventions
// (pool_geometry.h): floor-mode output size, symmetric zero padding; max
// pooling never picks padding (CUDNN_POOLING_MAX_DETERMINISTIC, so the
// gradient goes to one input per window, as max_pool.cc routes it); average
// pooling divides by the whole window, padding included
// (CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, as avg_pool.cc and
// PyTorch's count_include_pad). Global average pooling is the H x W window
// at stride 1. The backward ADDS into dx (beta 1). One pass each way.
#include <stdexcept>

#include "models/cuda_descriptors.h"
#include "models/cuda_layer_kinds.h"

namespace gradsync {
namespace {

class CudaPool final : public CudaLayer {
 public:
  CudaPool(bool max, const PoolOptions& o, FeatureShape in, FeatureShape out, CudaContext& cuda,
           std::string context)
      : cuda_(cuda), context_(std::move(context)), in_(in), out_(out) {
    check_cuda(cudnnSetPooling2dDescriptor(
                    pool_, max ? CUDNN_POOLING_MAX_DETERMINISTIC
                               : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                    CUDNN_NOT_PROPAGATE_NAN, o.kernel_h, o.kernel_w, o.pad, o.pad, o.stride,
                    o.stride),
                "cudnnSetPooling2dDescriptor", context_);
  }

  std::size_t set_batch(int batch) override {
    set_nchw(x_, batch, in_, context_);
    set_nchw(y_, batch, out_, context_);
    int n = 0, c = 0, h = 0, w = 0;
    check_cuda(cudnnGetPooling2dForwardOutputDim(pool_, x_, &n, &c, &h, &w),
                "cudnnGetPooling2dForwardOutputDim", context_);
    if (n != batch || !(FeatureShape{c, h, w} == out_))
      throw std::logic_error(context_ + ": cuDNN's pooling output shape differs from the CPU layer's");
    return 0;
  }

  void forward(std::span<const float* const> inputs, float* output,
               std::span<const float* const>) override {
    check_cuda(cudnnPoolingForward(cuda_.cudnn(), pool_, &kOne, x_, inputs[0], &kZero, y_, output),
                "cudnnPoolingForward", context_);
  }

  void backward(std::span<const float* const> inputs, const float* output,
                const float* grad_output, std::span<float* const> grad_inputs,
                std::span<const float* const>, std::span<float* const>) override {
    if (!grad_inputs[0]) return;
    check_cuda(cudnnPoolingBackward(cuda_.cudnn(), pool_, &kOne, y_, output, y_, grad_output, x_,
                                     inputs[0], &kOne, x_, grad_inputs[0]),
                "cudnnPoolingBackward", context_);
  }

 private:
  CudaContext& cuda_;
  std::string context_;
  FeatureShape in_, out_;
  PoolingDescriptor pool_;
  TensorDescriptor x_, y_;
};

}  // namespace

std::unique_ptr<CudaLayer> make_cuda_pool(bool max, const PoolOptions& options, FeatureShape input,
                                          FeatureShape output, CudaContext& cuda,
                                          std::string context) {
  return std::make_unique<CudaPool>(max, options, input, output, cuda, std::move(context));
}

}  // namespace gradsync
