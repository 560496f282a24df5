// Channel concat on the GPU. In NCHW, input k's sample n is one contiguous
// block of C_k*H*W floats, and it lands at channel offset c_k (the channels
// of the inputs before it) of output sample n, whose stride is C*H*W. So
// forward is one strided copy per input: cudaMemcpy2DAsync with N rows of
// C_k*H*W floats, source pitch C_k*H*W, destination pitch C*H*W. Backward
// reads the same slice of dy through a strided descriptor (dims
// N x C_k x H x W, strides C*H*W, H*W, W, 1) and ADDS it into input k's
// gradient with cudnnTransformTensor (y = alpha x + beta y, beta 1), the
// cuDNN call meant for copies between layouts. One copy each way.
#include <stdexcept>

#include "models/cuda_descriptors.h"
#include "models/cuda_layer_kinds.h"

namespace gradsync {
namespace {

class CudaConcat final : public CudaLayer {
 public:
  CudaConcat(std::vector<FeatureShape> inputs, CudaContext& cuda, std::string context)
      : cuda_(cuda), context_(std::move(context)), in_(std::move(inputs)), slices_(in_.size()),
        packed_(in_.size()) {
    std::size_t offset = 0;
    for (const FeatureShape& s : in_) {
      offsets_.push_back(offset);
      offset += s.elements();
    }
    out_elements_ = offset;
  }

  std::size_t set_batch(int batch) override {
    const int out_stride = int(out_elements_);
    for (std::size_t k = 0; k < in_.size(); ++k) {
      const FeatureShape& s = in_[k];
      set_nchw(packed_[k], batch, s, context_);
      check_cuda(cudnnSetTensor4dDescriptorEx(slices_[k], CUDNN_DATA_FLOAT, batch, s.channels,
                                               s.height, s.width, out_stride, s.height * s.width,
                                               s.width, 1),
                  "cudnnSetTensor4dDescriptorEx", context_);
    }
    batch_ = batch;
    return 0;
  }

  void forward(std::span<const float* const> inputs, float* output,
               std::span<const float* const>) override {
    for (std::size_t k = 0; k < in_.size(); ++k) {
      const std::size_t row = in_[k].elements() * sizeof(float);
      check_cuda(cudaMemcpy2DAsync(output + offsets_[k], out_elements_ * sizeof(float), inputs[k],
                                   row, row, std::size_t(batch_), cudaMemcpyDeviceToDevice,
                                   cuda_.stream()),
                 "cudaMemcpy2DAsync", context_);
    }
  }

  void backward(std::span<const float* const>, const float*, const float* grad_output,
                std::span<float* const> grad_inputs, std::span<const float* const>,
                std::span<float* const>) override {
    for (std::size_t k = 0; k < in_.size(); ++k) {
      if (!grad_inputs[k]) continue;
      check_cuda(cudnnTransformTensor(cuda_.cudnn(), &kOne, slices_[k], grad_output + offsets_[k],
                                       &kOne, packed_[k], grad_inputs[k]),
                  "cudnnTransformTensor", context_);
    }
  }

 private:
  CudaContext& cuda_;
  std::string context_;
  std::vector<FeatureShape> in_;
  std::vector<std::size_t> offsets_;  // per input: its first float within an output sample
  std::size_t out_elements_ = 0;      // C*H*W of the output
  std::vector<TensorDescriptor> slices_, packed_;
  int batch_ = 0;
};

}  // namespace

std::unique_ptr<CudaLayer> make_cuda_concat(std::vector<FeatureShape> inputs, CudaContext& cuda,
                                            std::string context) {
  if (inputs.empty()) throw std::invalid_argument(context + ": concat needs at least one input");
  return std::make_unique<CudaConcat>(std::move(inputs), cuda, std::move(context));
}

}  // namespace gradsync
