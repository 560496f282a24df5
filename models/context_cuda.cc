// The per-model GPU context: it checks the ordinal, makes one non-blocking
// stream, binds a cuDNN and a cuBLAS handle to it and sets cuBLAS's math
// mode from the precision (the convolutions choose theirs per algorithm, see
// conv_cuda.cc). Teardown waits for the stream and never throws.
#include "models/cuda_context.h"

#include <stdexcept>
#include <string>

#include "gpu/check_cudnn.h"
#include "gpu/device.h"

namespace gradsync {
namespace {

constexpr std::string_view kWhere = "cuda compute";

cublasMath_t cublas_math(Precision p) {
  switch (p) {
    case Precision::fp32: return CUBLAS_DEFAULT_MATH;  // no TF32: the compute type decides (linear_cuda.cc)
    case Precision::tf32: return CUBLAS_TF32_TENSOR_OP_MATH;
    case Precision::mixed: return CUBLAS_DEFAULT_MATH;
  }
  return CUBLAS_DEFAULT_MATH;
}

}  // namespace

CudaContext::CudaContext(int gpu, Precision precision) : gpu_(gpu), precision_(precision) {
  if (const std::string why = gpu_unusable(gpu); !why.empty())
    throw std::runtime_error("--compute cuda: " + why);
  try {
    make_current();
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate",
               kWhere);
    check_cuda(cudnnCreate(&cudnn_), "cudnnCreate", kWhere);
    check_cuda(cudnnSetStream(cudnn_, stream_), "cudnnSetStream", kWhere);
    check_cuda(cublasCreate(&cublas_), "cublasCreate", kWhere);
    check_cuda(cublasSetStream(cublas_, stream_), "cublasSetStream", kWhere);
    check_cuda(cublasSetMathMode(cublas_, cublas_math(precision)), "cublasSetMathMode", kWhere);
  } catch (...) {
    release();  // a throwing constructor runs no destructor
    throw;
  }
}

CudaContext::~CudaContext() { release(); }

void CudaContext::release() noexcept {
  if (stream_) cudaStreamSynchronize(stream_);
  if (cublas_) cublasDestroy(cublas_);
  if (cudnn_) cudnnDestroy(cudnn_);
  if (stream_) cudaStreamDestroy(stream_);
  cublas_ = nullptr;
  cudnn_ = nullptr;
  stream_ = nullptr;
}

void CudaContext::make_current() const {
  check_cuda(cudaSetDevice(gpu_), "cudaSetDevice(" + std::to_string(gpu_) + ")", kWhere);
}

void CudaContext::synchronize(std::string_view context) const {
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", context);
}

void CudaContext::reserve_workspace(std::size_t bytes) {
  if (bytes <= workspace_bytes()) return;
  synchronize("cuda compute workspace");
  workspace_ = DeviceBuffer();
  workspace_ = DeviceBuffer((bytes + sizeof(float) - 1) / sizeof(float), kWhere);
}

void CudaContext::upload(std::span<const float> host, float* device) const {
  check_cuda(cudaMemcpyAsync(device, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream_),
             "cudaMemcpyAsync host to device", kWhere);
  synchronize(kWhere);
}

void CudaContext::download(const float* device, std::span<float> host) const {
  check_cuda(cudaMemcpyAsync(host.data(), device, host.size_bytes(), cudaMemcpyDeviceToHost, stream_),
             "cudaMemcpyAsync device to host", kWhere);
  synchronize(kWhere);
}

}  // namespace gradsync
