// Convolution on cuDNN (legacy API): forward, backward data and backward
// filter, each with its own convolution descriptor so that each can run
// under the math type of the algorithm chosen for it.
//
// Algorithms are chosen once per batch size from cuDNN's *_v7 heuristics
// (ranked by expected speed, no trial runs): the first candidate that
// succeeds, whose math type the precision allows and whose workspace fits
// under kMaxWorkspace wins. fp32 accepts only candidates that run as plain
// FMA kernels and forces CUDNN_FMA_MATH (no TF32); tf32 accepts everything
// except fp16 down-conversion; mixed accepts CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION
// too. The bias is added with cudnnAddTensor and its gradient is
// cudnnConvolutionBackwardBias (both plain fp32). Backward data ADDS into
// dx (beta 1) and is skipped when dx is the model input; the filter and
// bias gradients are overwritten (beta 0). Cost: what cuDNN's kernels take;
// the workspace is the context's, shared by all layers.
#include <array>
#include <optional>
#include <stdexcept>

#include "models/cuda_descriptors.h"
#include "models/cuda_layer_kinds.h"

namespace gradsync {
namespace {

constexpr std::size_t kMaxWorkspace = std::size_t(1) << 30;  // per call, 1 GiB

cudnnMathType_t requested_math(Precision p) {
  switch (p) {
    case Precision::fp32: return CUDNN_FMA_MATH;
    case Precision::tf32: return CUDNN_DEFAULT_MATH;
    case Precision::mixed: return CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
  }
  return CUDNN_FMA_MATH;
}

// The math type to run a heuristic candidate under, or nothing when the
// precision does not allow it.
std::optional<cudnnMathType_t> run_math(Precision p, cudnnMathType_t candidate) {
  switch (p) {
    case Precision::fp32:
      if (candidate == CUDNN_DEFAULT_MATH || candidate == CUDNN_FMA_MATH) return CUDNN_FMA_MATH;
      return std::nullopt;
    case Precision::tf32:
      if (candidate == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return std::nullopt;
      return candidate;
    case Precision::mixed: return candidate;
  }
  return std::nullopt;
}

template <class Algo>
struct Choice {
  Algo algo{};
  std::size_t workspace = 0;
};

// Walks `perfs` (best first); `workspace_of(algo)` is asked with the
// descriptor already set to the candidate's math type and answers nothing
// when cuDNN refuses the pair. Leaves `conv` set to the winner's math type.
template <class Perf, class WorkspaceOf>
auto choose(std::span<const Perf> perfs, cudnnConvolutionDescriptor_t conv, Precision precision,
            WorkspaceOf workspace_of, std::string_view direction, std::string_view context) {
  using Algo = decltype(Perf{}.algo);
  std::string seen;  // "algo/status/math" per candidate, for the error below
  for (const Perf& perf : perfs) {
    for (const int field : {int(perf.algo), int(perf.status), int(perf.mathType)}) {
      seen += seen.empty() || seen.back() == ' ' ? "" : "/";
      seen += std::to_string(field);
    }
    seen += ' ';
    if (perf.status != CUDNN_STATUS_SUCCESS) continue;
    const std::optional<cudnnMathType_t> math = run_math(precision, perf.mathType);
    if (!math) continue;
    check_cuda(cudnnSetConvolutionMathType(conv, *math), "cudnnSetConvolutionMathType", context);
    const std::optional<std::size_t> bytes = workspace_of(perf.algo);
    if (bytes && *bytes <= kMaxWorkspace) return Choice<Algo>{perf.algo, *bytes};
  }
  if (!seen.empty()) seen.pop_back();
  throw std::runtime_error(std::string(context) + ": cuDNN offers no " + std::string(direction) +
                           " algorithm for this shape under the requested precision within a " +
                           std::to_string(kMaxWorkspace >> 20) +
                           " MiB workspace (heuristic candidates as algo/status/mathType: " +
                           (seen.empty() ? std::string("none") : seen) + ")");
}

std::optional<std::size_t> size_if_ok(cudnnStatus_t rc, std::size_t bytes) {
  if (rc != CUDNN_STATUS_SUCCESS) return std::nullopt;
  return bytes;
}

class CudaConv final : public CudaLayer {
 public:
  CudaConv(const Conv2d& layer, FeatureShape input, CudaContext& cuda, std::string context)
      : cuda_(cuda), context_(std::move(context)), options_(layer.options()), in_(input),
        out_(layer.output_shape()) {
    const Conv2dOptions& o = options_;
    check_cuda(cudnnSetFilter4dDescriptor(w_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                           o.out_channels, in_.channels, o.kernel_h, o.kernel_w),
                "cudnnSetFilter4dDescriptor", context_);
    for (cudnnConvolutionDescriptor_t conv : {fwd_.get(), data_.get(), filter_.get()}) {
      check_cuda(cudnnSetConvolution2dDescriptor(conv, o.pad_h, o.pad_w, o.stride, o.stride, 1, 1,
                                                  CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                  "cudnnSetConvolution2dDescriptor", context_);
    }
    if (o.bias) set_channels(bias_, o.out_channels, context_);
  }

  std::size_t set_batch(int batch) override {
    set_nchw(x_, batch, in_, context_);
    set_nchw(y_, batch, out_, context_);
    int n = 0, c = 0, h = 0, w = 0;
    check_cuda(cudnnGetConvolution2dForwardOutputDim(fwd_, x_, w_, &n, &c, &h, &w),
                "cudnnGetConvolution2dForwardOutputDim", context_);
    if (n != batch || !(FeatureShape{c, h, w} == out_))
      throw std::logic_error(context_ + ": cuDNN's output shape differs from the CPU layer's");
    const cudnnHandle_t handle = cuda_.cudnn();
    const Precision p = cuda_.precision();
    for (cudnnConvolutionDescriptor_t conv : {fwd_.get(), data_.get(), filter_.get()})
      check_cuda(cudnnSetConvolutionMathType(conv, requested_math(p)),
                  "cudnnSetConvolutionMathType", context_);
    int count = 0;
    std::size_t bytes = 0;

    std::array<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT> fwd{};
    check_cuda(cudnnGetConvolutionForwardAlgorithm_v7(handle, x_, w_, fwd_, y_, int(fwd.size()),
                                                       &count, fwd.data()),
                "cudnnGetConvolutionForwardAlgorithm_v7", context_);
    const auto f = choose(std::span<const cudnnConvolutionFwdAlgoPerf_t>(fwd.data(), count), fwd_, p,
        [&](cudnnConvolutionFwdAlgo_t a) {
          return size_if_ok(cudnnGetConvolutionForwardWorkspaceSize(handle, x_, w_, fwd_, y_, a, &bytes), bytes);
        }, "forward", context_);

    std::array<cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT> data{};
    check_cuda(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w_, y_, data_, x_,
                                                            int(data.size()), &count, data.data()),
                "cudnnGetConvolutionBackwardDataAlgorithm_v7", context_);
    const auto d = choose(std::span<const cudnnConvolutionBwdDataAlgoPerf_t>(data.data(), count), data_, p,
        [&](cudnnConvolutionBwdDataAlgo_t a) {
          return size_if_ok(cudnnGetConvolutionBackwardDataWorkspaceSize(handle, w_, y_, data_, x_, a, &bytes), bytes);
        }, "backward-data", context_);

    std::array<cudnnConvolutionBwdFilterAlgoPerf_t, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT> filt{};
    check_cuda(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, x_, y_, filter_, w_,
                                                              int(filt.size()), &count, filt.data()),
                "cudnnGetConvolutionBackwardFilterAlgorithm_v7", context_);
    const auto g = choose(std::span<const cudnnConvolutionBwdFilterAlgoPerf_t>(filt.data(), count), filter_, p,
        [&](cudnnConvolutionBwdFilterAlgo_t a) {
          return size_if_ok(cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, x_, y_, filter_, w_, a, &bytes), bytes);
        }, "backward-filter", context_);

    fwd_algo_ = f.algo;
    data_algo_ = d.algo;
    filter_algo_ = g.algo;
    return std::max({f.workspace, d.workspace, g.workspace});
  }

  void forward(std::span<const float* const> inputs, float* output,
               std::span<const float* const> values) override {
    const cudnnHandle_t h = cuda_.cudnn();
    check_cuda(cudnnConvolutionForward(h, &kOne, x_, inputs[0], w_, values[0], fwd_, fwd_algo_,
                                        cuda_.workspace(), cuda_.workspace_bytes(), &kZero, y_,
                                        output),
                "cudnnConvolutionForward", context_);
    if (options_.bias)
      check_cuda(cudnnAddTensor(h, &kOne, bias_, values[1], &kOne, y_, output), "cudnnAddTensor",
                  context_);
  }

  void backward(std::span<const float* const> inputs, const float* /*output*/,
                const float* grad_output, std::span<float* const> grad_inputs,
                std::span<const float* const> values, std::span<float* const> grads) override {
    const cudnnHandle_t h = cuda_.cudnn();
    check_cuda(cudnnConvolutionBackwardFilter(h, &kOne, x_, inputs[0], y_, grad_output, filter_,
                                               filter_algo_, cuda_.workspace(),
                                               cuda_.workspace_bytes(), &kZero, w_, grads[0]),
                "cudnnConvolutionBackwardFilter", context_);
    if (options_.bias)
      check_cuda(cudnnConvolutionBackwardBias(h, &kOne, y_, grad_output, &kZero, bias_, grads[1]),
                  "cudnnConvolutionBackwardBias", context_);
    if (grad_inputs[0])
      check_cuda(cudnnConvolutionBackwardData(h, &kOne, w_, values[0], y_, grad_output, data_,
                                               data_algo_, cuda_.workspace(),
                                               cuda_.workspace_bytes(), &kOne, x_, grad_inputs[0]),
                  "cudnnConvolutionBackwardData", context_);
  }

 private:
  CudaContext& cuda_;
  std::string context_;
  Conv2dOptions options_;
  FeatureShape in_, out_;
  TensorDescriptor x_, y_, bias_;
  FilterDescriptor w_;
  ConvolutionDescriptor fwd_, data_, filter_;
  cudnnConvolutionFwdAlgo_t fwd_algo_{};
  cudnnConvolutionBwdDataAlgo_t data_algo_{};
  cudnnConvolutionBwdFilterAlgo_t filter_algo_{};
};

}  // namespace

std::unique_ptr<CudaLayer> make_cuda_conv(const Conv2d& layer, FeatureShape input,
                                          CudaContext& cuda, std::string context) {
  return std::make_unique<CudaConv>(layer, input, cuda, std::move(context));
}

}  // namespace gradsync
