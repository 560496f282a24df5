// Linear layer as three SGEMMs over the whole batch (X is R x in, R = N rows,
// or N*T rows per position, where each of a sample's T positions is a row):
//   forward  Y = X W^T + 1 b^T      backward  dW = dY^T X,  db = column sums of dY,
//                                             dX += dY W
// Cost: 2*R*in*out FLOPs forward (2*T*in*out per sample), twice that backward.
#include "models/linear.h"

#include <cblas.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace gradsync {

Linear::Linear(FeatureShape input, int out_features)
    : Linear(input, out_features, LinearOptions{}) {}

Linear::Linear(FeatureShape input, int out_features, LinearOptions options)
    : options_(std::move(options)),
      positions_(options_.per_position ? input.channels : 1),
      in_(int(input.elements() / std::size_t(std::max(positions_, 1)))),
      out_(out_features) {
  if (positions_ <= 0 || in_ <= 0 || out_ <= 0)
    throw std::invalid_argument("linear: input and output sizes must be positive");
}

FeatureShape Linear::output_shape() const {
  return options_.per_position ? sequence_shape(positions_, out_) : FeatureShape{out_, 1, 1};
}

std::vector<ParamSpec> Linear::params() const {
  return {{options_.weight_suffix, {out_, in_}}, {options_.bias_suffix, {out_}}};
}

void Linear::forward(std::span<const Tensor* const> inputs, Tensor& output,
                     std::span<Parameter> params) {
  const Tensor& x = *inputs[0];
  const int rows = x.batch * positions_;
  const float* b = params[1].value.data();
  for (int r = 0; r < rows; ++r) std::copy_n(b, out_, output.data.data() + std::size_t(r) * out_);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out_, in_, 1.0f, x.data.data(), in_,
              params[0].value.data(), in_, 1.0f, output.data.data(), out_);
}

void Linear::backward(std::span<const Tensor* const> inputs, const Tensor&,
                      const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                      std::span<Parameter> params) {
  const Tensor& x = *inputs[0];
  const int rows = x.batch * positions_;
  const float* dy = grad_output.data.data();
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out_, in_, rows, 1.0f, dy, out_,
              x.data.data(), in_, 0.0f, params[0].grad.data(), in_);
  float* db = params[1].grad.data();
  std::fill(db, db + out_, 0.0f);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out_; ++o) db[o] += dy[std::size_t(r) * out_ + o];
  if (Tensor* dx = grad_inputs[0])
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, in_, out_, 1.0f, dy, out_,
                params[0].value.data(), in_, 1.0f, dx->data.data(), in_);
}

}  // namespace gradsync
