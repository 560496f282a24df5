// Linear layer on cuBLAS, over the whole batch. The CPU layer's row-major
// X (N x in), W (out x in), Y (N x out) are, to column-major cuBLAS, the
// matrices X^T (in x N, ld in), W^T (in x out, ld in), Y^T (out x N, ld out):
//   forward   Y^T  = op_T(W^T) X^T       gemm(T, N, m out, n N,   k in)
//             then + b per sample with cudnnAddTensor (b as 1 x out x 1 x 1)
//   backward  dW^T = X^T op_T(dY^T)      gemm(N, T, m in,  n out, k N), beta 0
//             db   = sums of dY over the batch (cudnnConvolutionBackwardBias)
//             dX^T += W^T dY^T           gemm(N, N, m in,  n N,   k out), beta 1
// Every gemm is cublasGemmEx on fp32 matrices with the precision's compute
// type: CUBLAS_COMPUTE_32F (strict fp32), _FAST_TF32 or _FAST_16F. The bias
// and its gradient stay plain fp32 in every mode. Cost: 2*N*in*out FLOPs
// forward, twice that backward.
#include "models/cuda_descriptors.h"
#include "models/cuda_layer_kinds.h"

namespace gradsync {
namespace {

cublasComputeType_t compute_type(Precision p) {
  switch (p) {
    case Precision::fp32: return CUBLAS_COMPUTE_32F;
    case Precision::tf32: return CUBLAS_COMPUTE_32F_FAST_TF32;
    case Precision::mixed: return CUBLAS_COMPUTE_32F_FAST_16F;
  }
  return CUBLAS_COMPUTE_32F;
}

class CudaLinear final : public CudaLayer {
 public:
  CudaLinear(FeatureShape input, int out_features, CudaContext& cuda, std::string context)
      : cuda_(cuda), context_(std::move(context)), in_(int(input.elements())), out_(out_features) {
    set_channels(bias_, out_, context_);
  }

  std::size_t set_batch(int batch) override {
    batch_ = batch;
    set_nchw(y_, batch, FeatureShape{out_, 1, 1}, context_);
    return 0;
  }

  void forward(std::span<const float* const> inputs, float* output,
               std::span<const float* const> values) override {
    gemm(CUBLAS_OP_T, CUBLAS_OP_N, out_, batch_, in_, values[0], in_, inputs[0], in_, kZero,
         output, out_);
    check_cuda(cudnnAddTensor(cuda_.cudnn(), &kOne, bias_, values[1], &kOne, y_, output),
                "cudnnAddTensor", context_);
  }

  void backward(std::span<const float* const> inputs, const float*, const float* grad_output,
                std::span<float* const> grad_inputs, std::span<const float* const> values,
                std::span<float* const> grads) override {
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, in_, out_, batch_, inputs[0], in_, grad_output, out_, kZero,
         grads[0], in_);
    check_cuda(cudnnConvolutionBackwardBias(cuda_.cudnn(), &kOne, y_, grad_output, &kZero, bias_,
                                             grads[1]),
                "cudnnConvolutionBackwardBias", context_);
    if (grad_inputs[0])
      gemm(CUBLAS_OP_N, CUBLAS_OP_N, in_, batch_, out_, values[0], in_, grad_output, out_, kOne,
           grad_inputs[0], in_);
  }

 private:
  // C = op(A) op(B) + beta C, column-major, alpha 1.
  void gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float* a,
            int lda, const float* b, int ldb, float beta, float* c, int ldc) {
    check_cuda(cublasGemmEx(cuda_.cublas(), ta, tb, m, n, k, &kOne, a, CUDA_R_32F, lda, b,
                              CUDA_R_32F, ldb, &beta, c, CUDA_R_32F, ldc,
                              compute_type(cuda_.precision()), CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx", context_);
  }

  CudaContext& cuda_;
  std::string context_;
  int in_, out_;
  int batch_ = 0;
  TensorDescriptor bias_, y_;
};

}  // namespace

std::unique_ptr<CudaLayer> make_cuda_linear(FeatureShape input, int out_features,
                                            CudaContext& cuda, std::string context) {
  return std::make_unique<CudaLinear>(input, out_features, cuda, std::move(context));
}

}  // namespace gradsync
