// Linear layer as three SGEMMs over the whole batch (X is N x in):
//   forward  Y = X W^T + 1 b^T      backward  dW = dY^T X,  db = column sums of dY,
//                                             dX += dY W
// Cost: 2*N*in*out FLOPs forward, twice that backward.
#include "models/linear.h"

#include <cblas.h>

#include <algorithm>
#include <stdexcept>

namespace gradsync {

Linear::Linear(FeatureShape input, int out_features)
    : in_(int(input.elements())), out_(out_features) {
  if (in_ <= 0 || out_ <= 0)
    throw std::invalid_argument("linear: input and output sizes must be positive");
}

std::vector<ParamSpec> Linear::params() const {
  return {{"weight", {out_, in_}}, {"bias", {out_}}};
}

void Linear::forward(std::span<const Tensor* const> inputs, Tensor& output,
                     std::span<Parameter> params) {
  const Tensor& x = *inputs[0];
  const float* b = params[1].value.data();
  for (int n = 0; n < x.batch; ++n) std::copy_n(b, out_, output.sample(n));
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, x.batch, out_, in_, 1.0f, x.data.data(),
              in_, params[0].value.data(), in_, 1.0f, output.data.data(), out_);
}

void Linear::backward(std::span<const Tensor* const> inputs, const Tensor&,
                      const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                      std::span<Parameter> params) {
  const Tensor& x = *inputs[0];
  const float* dy = grad_output.data.data();
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out_, in_, x.batch, 1.0f, dy, out_,
              x.data.data(), in_, 0.0f, params[0].grad.data(), in_);
  float* db = params[1].grad.data();
  std::fill(db, db + out_, 0.0f);
  for (int n = 0; n < x.batch; ++n)
    for (int o = 0; o < out_; ++o) db[o] += dy[std::size_t(n) * out_ + o];
  if (Tensor* dx = grad_inputs[0])
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, x.batch, in_, out_, 1.0f, dy, out_,
                params[0].value.data(), in_, 1.0f, dx->data.data(), in_);
}

}  // namespace gradsync
