#pragma once
// The softmax cross-entropy of a model on the GPU (cuda compute only). The
// logits are small (batch x classes), so they come to the host, where the
// CPU's softmax_cross_entropy() (sums in double) gives the mean loss and
// d(loss)/d(logits); backward sends that gradient back. The loss is thus
// bit-identical to the CPU's for the same logits.

#include <span>

#include "models/cuda_context.h"
#include "models/tensor.h"

namespace gradsync {

class CudaLoss {
 public:
  CudaLoss(CudaContext& cuda, int classes) : cuda_(cuda), classes_(classes) {}
  // Queues the copy of `logits` (device, batch x classes) to the host, waits
  // for the stream (the one wait of a step), returns the mean loss and keeps
  // the gradient.
  float forward(const float* logits, std::span<const int> labels, int batch);
  // Queues the copy of the last forward's gradient into `grad` (device).
  void backward(float* grad);

 private:
  CudaContext& cuda_;
  int classes_;
  PinnedBuffer logits_, grad_;  // batch x classes each
  Tensor host_logits_, host_grad_;
};

}  // namespace gradsync
