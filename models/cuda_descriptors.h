#pragma once
// Owning cuDNN descriptors for the cuda layers (internal to the *_cuda.cc
// sources: most of these are cuDNN 9's deprecated legacy API, which the
// CMake file compiles with -Wno-deprecated-declarations for those sources
// only). A descriptor is created with its owner and destroyed with it.

#include <cudnn.h>

#include <string_view>
#include <utility>

#include "gpu/check_cudnn.h"
#include "models/tensor.h"

namespace gradsync {

template <class T, cudnnStatus_t (*Create)(T*), cudnnStatus_t (*Destroy)(T)>
class CudnnDescriptor {
 public:
  CudnnDescriptor() { check_cuda(Create(&d_), "cudnnCreate*Descriptor", "cuda compute"); }
  ~CudnnDescriptor() {
    if (d_) Destroy(d_);
  }
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;
  CudnnDescriptor(CudnnDescriptor&& o) noexcept : d_(std::exchange(o.d_, nullptr)) {}
  T get() const { return d_; }
  operator T() const { return d_; }

 private:
  T d_ = nullptr;
};

using TensorDescriptor = CudnnDescriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor,
                                         cudnnDestroyTensorDescriptor>;
using FilterDescriptor = CudnnDescriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor,
                                         cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor =
    CudnnDescriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                    cudnnDestroyConvolutionDescriptor>;
using PoolingDescriptor = CudnnDescriptor<cudnnPoolingDescriptor_t, cudnnCreatePoolingDescriptor,
                                          cudnnDestroyPoolingDescriptor>;
using ActivationDescriptor =
    CudnnDescriptor<cudnnActivationDescriptor_t, cudnnCreateActivationDescriptor,
                    cudnnDestroyActivationDescriptor>;
using OpTensorDescriptor = CudnnDescriptor<cudnnOpTensorDescriptor_t, cudnnCreateOpTensorDescriptor,
                                           cudnnDestroyOpTensorDescriptor>;

// Packed NCHW fp32: `batch` samples of `shape`.
inline void set_nchw(cudnnTensorDescriptor_t d, int batch, FeatureShape shape,
                     std::string_view context) {
  check_cuda(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, batch,
                                         shape.channels, shape.height, shape.width),
              "cudnnSetTensor4dDescriptor", context);
}

// A per-channel vector (bias, batch-norm statistics) as 1 x C x 1 x 1.
inline void set_channels(cudnnTensorDescriptor_t d, int channels, std::string_view context) {
  set_nchw(d, 1, FeatureShape{channels, 1, 1}, context);
}

// The constants cuDNN's alpha and beta point to (fp32 tensors take float scalars).
inline constexpr float kOne = 1.0f;
inline constexpr float kZero = 0.0f;

}  // namespace gradsync
