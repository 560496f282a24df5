// Average pooling: each output is the window's sum divided by kh*kw (padding
// counts as zeros in the divisor, count_include_pad as in PyTorch); backward
// spreads dy / (kh*kw) over the window's inside pixels. Cost: one pass over
// each window each way.
#include "models/avg_pool.h"

namespace gradsync {

AvgPool::AvgPool(FeatureShape input, const PoolOptions& options)
    : in_(input), out_(pool_output_shape(input, options)), options_(options) {}

void AvgPool::forward(std::span<const Tensor* const> inputs, Tensor& output,
                      std::span<Parameter>) {
  const Tensor& x = *inputs[0];
  const int s = options_.stride, p = options_.pad;
  const float scale = 1.0f / float(options_.kernel_h * options_.kernel_w);
  for (int n = 0; n < x.batch; ++n) {
    const float* in = x.sample(n);
    float* out = output.sample(n);
    for (int c = 0; c < in_.channels; ++c) {
      const float* plane = in + std::size_t(c) * in_.height * in_.width;
      for (int oy = 0; oy < out_.height; ++oy) {
        for (int ox = 0; ox < out_.width; ++ox) {
          double sum = 0;
          for (int ky = 0; ky < options_.kernel_h; ++ky) {
            const int iy = oy * s - p + ky;
            if (iy < 0 || iy >= in_.height) continue;
            for (int kx = 0; kx < options_.kernel_w; ++kx) {
              const int ix = ox * s - p + kx;
              if (ix >= 0 && ix < in_.width) sum += plane[iy * in_.width + ix];
            }
          }
          out[(std::size_t(c) * out_.height + oy) * out_.width + ox] = float(sum) * scale;
        }
      }
    }
  }
}

void AvgPool::backward(std::span<const Tensor* const>, const Tensor&, const Tensor& grad_output,
                       std::span<Tensor* const> grad_inputs, std::span<Parameter>) {
  Tensor* dx = grad_inputs[0];
  if (!dx) return;
  const int s = options_.stride, p = options_.pad;
  const float scale = 1.0f / float(options_.kernel_h * options_.kernel_w);
  for (int n = 0; n < grad_output.batch; ++n) {
    const float* dy = grad_output.sample(n);
    float* d = dx->sample(n);
    for (int c = 0; c < in_.channels; ++c) {
      float* plane = d + std::size_t(c) * in_.height * in_.width;
      for (int oy = 0; oy < out_.height; ++oy) {
        for (int ox = 0; ox < out_.width; ++ox) {
          const float g = dy[(std::size_t(c) * out_.height + oy) * out_.width + ox] * scale;
          for (int ky = 0; ky < options_.kernel_h; ++ky) {
            const int iy = oy * s - p + ky;
            if (iy < 0 || iy >= in_.height) continue;
            for (int kx = 0; kx < options_.kernel_w; ++kx) {
              const int ix = ox * s - p + kx;
              if (ix >= 0 && ix < in_.width) plane[iy * in_.width + ix] += g;
            }
          }
        }
      }
    }
  }
}

}  // namespace gradsync
