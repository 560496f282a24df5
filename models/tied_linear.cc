// A linear head on a borrowed weight W (V x d), per position, as SGEMMs over
// the R = N*T rows of the batch (X is R x d):
//   forward  Y = X W^T       backward  dW += dY^T X,  dX += dY W
// dW is added to, not overwritten: the weight's owner (an embedding) adds its
// own share into the same gradient. Cost: 2*T*d*V FLOPs per sample forward,
// twice that backward.
#include "models/tied_linear.h"

#include <cblas.h>

#include <stdexcept>
#include <string>

namespace gradsync {

TiedLinear::TiedLinear(FeatureShape input, int out_features)
    : positions_(input.channels), in_(input.height * input.width), out_(out_features) {
  if (positions_ <= 0 || in_ <= 0 || out_ <= 0)
    throw std::invalid_argument("tied_linear: input and output sizes must be positive");
}

const Parameter& TiedLinear::weight(std::span<Parameter> params) const {
  if (params.size() != 1)
    throw std::invalid_argument("tied_linear: needs exactly one borrowed weight, got " +
                                std::to_string(params.size()) + " parameters");
  const Parameter& w = params[0];
  if (w.shape != std::vector<int>{out_, in_} || w.value.size() != std::size_t(out_) * in_)
    throw std::invalid_argument("tied_linear: the borrowed weight " + w.name + " is not " +
                                std::to_string(out_) + " x " + std::to_string(in_));
  return w;
}

void TiedLinear::forward(std::span<const Tensor* const> inputs, Tensor& output,
                         std::span<Parameter> params) {
  const Parameter& w = weight(params);
  const Tensor& x = *inputs[0];
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, x.batch * positions_, out_, in_, 1.0f,
              x.data.data(), in_, w.value.data(), in_, 0.0f, output.data.data(), out_);
}

void TiedLinear::backward(std::span<const Tensor* const> inputs, const Tensor&,
                          const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                          std::span<Parameter> params) {
  const Parameter& w = weight(params);
  const Tensor& x = *inputs[0];
  const int rows = x.batch * positions_;
  const float* dy = grad_output.data.data();
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out_, in_, rows, 1.0f, dy, out_,
              x.data.data(), in_, 1.0f, w.grad.data(), in_);
  if (Tensor* dx = grad_inputs[0])
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, in_, out_, 1.0f, dy, out_,
                w.value.data(), in_, 1.0f, dx->data.data(), in_);
}

}  // namespace gradsync
