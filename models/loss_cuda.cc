// Softmax cross-entropy for cuda compute: logits to pinned host memory,
// softmax_cross_entropy() on the host, the gradient back from pinned memory.
// The pinned gradient is rewritten only by the next forward, after that
// forward's wait, by which time the stream has finished the copy that read it.
// Cost: two copies of batch x classes floats and O(batch x classes) on the host.
#include "models/cuda_loss.h"

#include <algorithm>

#include "gpu/check_cudnn.h"
#include "models/softmax_cross_entropy.h"

namespace gradsync {

float CudaLoss::forward(const float* logits, std::span<const int> labels, int batch) {
  const std::size_t count = std::size_t(batch) * classes_;
  if (logits_.size() != count) {
    cuda_.synchronize("cuda compute, loss");
    logits_ = PinnedBuffer(count, "cuda compute");
    grad_ = PinnedBuffer(count, "cuda compute");
  }
  check_cuda(cudaMemcpyAsync(logits_.data(), logits, count * sizeof(float), cudaMemcpyDeviceToHost,
                             cuda_.stream()),
             "cudaMemcpyAsync of the logits", "cuda compute, loss");
  cuda_.synchronize("cuda compute, forward");
  host_logits_.batch = batch;
  host_logits_.shape = {classes_, 1, 1};
  host_logits_.data.assign(logits_.data(), logits_.data() + count);
  const float loss = softmax_cross_entropy(host_logits_, labels, &host_grad_);
  std::copy(host_grad_.data.begin(), host_grad_.data.end(), grad_.data());
  return loss;
}

void CudaLoss::backward(float* grad) {
  check_cuda(cudaMemcpyAsync(grad, grad_.data(), grad_.size() * sizeof(float),
                             cudaMemcpyHostToDevice, cuda_.stream()),
             "cudaMemcpyAsync of the loss gradient", "cuda compute, loss");
}

}  // namespace gradsync
