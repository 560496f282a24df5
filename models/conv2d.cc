// Convolution as matrix products, one sample at a time (so the scratch
// matrix stays one sample's size):
//   forward   Y[n] = W * col(X[n]) + b            (Cout x K)(K x P), K = C*kh*kw, P = Ho*Wo
//   backward  dW  += dY[n] * col(X[n])^T          (Cout x P)(P x K)
//             db  += row sums of dY[n]
//             dX[n] += col2im(W^T * dY[n])        (K x Cout)(Cout x P)
// Each product is one OpenBLAS SGEMM; a 1x1 stride-1 convolution uses the
// input directly as col. Cost: 2*Cout*K*P FLOPs per sample forward, twice that
// backward, plus the unfolding copies.
#include "models/conv2d.h"

#include <cblas.h>

#include <algorithm>
#include <stdexcept>

namespace gradsync {

Conv2d::Conv2d(FeatureShape input, const Conv2dOptions& options) : options_(options) {
  geometry_ = {input.channels, input.height, input.width, options.kernel_h, options.kernel_w,
               options.stride, options.pad_h,  options.pad_w};
  if (options.out_channels <= 0 || options.kernel_h <= 0 || options.kernel_w <= 0 ||
      options.stride <= 0)
    throw std::invalid_argument("conv2d: out_channels, kernel and stride must be positive");
  if (geometry_.out_height() <= 0 || geometry_.out_width() <= 0)
    throw std::invalid_argument("conv2d: a " + std::to_string(options.kernel_h) + "x" +
                                std::to_string(options.kernel_w) + " kernel does not fit a " +
                                std::to_string(input.height) + "x" +
                                std::to_string(input.width) + " input; use a larger input");
}

FeatureShape Conv2d::output_shape() const {
  return {options_.out_channels, geometry_.out_height(), geometry_.out_width()};
}

std::vector<ParamSpec> Conv2d::params() const {
  std::vector<ParamSpec> p = {{"weight",
                               {options_.out_channels, geometry_.in_channels, options_.kernel_h,
                                options_.kernel_w}}};
  if (options_.bias) p.push_back({"bias", {options_.out_channels}});
  return p;
}

double Conv2d::forward_flops() const {
  return 2.0 * options_.out_channels * geometry_.col_rows() * geometry_.col_cols();
}

void Conv2d::forward(std::span<const Tensor* const> inputs, Tensor& output,
                     std::span<Parameter> params) {
  const Tensor& x = *inputs[0];
  const int m = options_.out_channels, k = geometry_.col_rows(), p = geometry_.col_cols();
  const float* w = params[0].value.data();
  const bool pointwise = geometry_.is_pointwise();
  if (!pointwise) col_.resize(std::size_t(k) * p);
  for (int n = 0; n < x.batch; ++n) {
    const float* col = x.sample(n);
    if (!pointwise) {
      im2col(geometry_, x.sample(n), col_.data());
      col = col_.data();
    }
    float* y = output.sample(n);
    if (options_.bias) {
      const float* b = params[1].value.data();
      for (int c = 0; c < m; ++c) std::fill(y + std::size_t(c) * p, y + std::size_t(c + 1) * p, b[c]);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, p, k, 1.0f, w, k, col, p,
                options_.bias ? 1.0f : 0.0f, y, p);
  }
}

void Conv2d::backward(std::span<const Tensor* const> inputs, const Tensor& /*output*/,
                      const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                      std::span<Parameter> params) {
  const Tensor& x = *inputs[0];
  Tensor* dx = grad_inputs[0];
  const int m = options_.out_channels, k = geometry_.col_rows(), p = geometry_.col_cols();
  const float* w = params[0].value.data();
  float* dw = params[0].grad.data();
  std::fill(params[0].grad.begin(), params[0].grad.end(), 0.0f);
  if (options_.bias) std::fill(params[1].grad.begin(), params[1].grad.end(), 0.0f);
  const bool pointwise = geometry_.is_pointwise();
  std::vector<float> dcol;
  if (!pointwise) col_.resize(std::size_t(k) * p);
  if (dx && !pointwise) dcol.resize(std::size_t(k) * p);
  for (int n = 0; n < x.batch; ++n) {
    const float* dy = grad_output.sample(n);
    const float* col = x.sample(n);
    if (!pointwise) {
      im2col(geometry_, x.sample(n), col_.data());
      col = col_.data();
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, k, p, 1.0f, dy, p, col, p, 1.0f, dw,
                k);
    if (options_.bias) {
      float* db = params[1].grad.data();
      for (int c = 0; c < m; ++c) {
        float s = 0;
        for (int i = 0; i < p; ++i) s += dy[std::size_t(c) * p + i];
        db[c] += s;
      }
    }
    if (!dx) continue;
    if (pointwise) {
      // dX[n] += W^T dY[n] directly.
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, p, m, 1.0f, w, k, dy, p, 1.0f,
                  dx->sample(n), p);
    } else {
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, p, m, 1.0f, w, k, dy, p, 0.0f,
                  dcol.data(), p);
      col2im_add(geometry_, dcol.data(), dx->sample(n));
    }
  }
}

}  // namespace gradsync
