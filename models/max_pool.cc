// Max pooling: each output is the largest input in its window (padding never
// wins). Forward remembers where each maximum came from; backward routes the
// output gradient to exactly that input (ties: the first in row-major order).
// Cost: one pass over each window forward, one scatter backward.
#include "models/max_pool.h"

#include <limits>

namespace gradsync {

MaxPool::MaxPool(FeatureShape input, const PoolOptions& options)
    : in_(input), out_(pool_output_shape(input, options)), options_(options) {}

void MaxPool::forward(std::span<const Tensor* const> inputs, Tensor& output,
                      std::span<Parameter>) {
  const Tensor& x = *inputs[0];
  argmax_.resize(std::size_t(x.batch) * out_.elements());
  const int s = options_.stride, p = options_.pad;
  for (int n = 0; n < x.batch; ++n) {
    const float* in = x.sample(n);
    float* out = output.sample(n);
    int* arg = argmax_.data() + std::size_t(n) * out_.elements();
    for (int c = 0; c < in_.channels; ++c) {
      const std::size_t plane = std::size_t(c) * in_.height * in_.width;
      for (int oy = 0; oy < out_.height; ++oy) {
        for (int ox = 0; ox < out_.width; ++ox) {
          float best = -std::numeric_limits<float>::infinity();
          int best_at = -1;
          for (int ky = 0; ky < options_.kernel_h; ++ky) {
            const int iy = oy * s - p + ky;
            if (iy < 0 || iy >= in_.height) continue;
            for (int kx = 0; kx < options_.kernel_w; ++kx) {
              const int ix = ox * s - p + kx;
              if (ix < 0 || ix >= in_.width) continue;
              const int at = int(plane) + iy * in_.width + ix;
              if (best_at < 0 || in[at] > best) best = in[at], best_at = at;
            }
          }
          const std::size_t o = (std::size_t(c) * out_.height + oy) * out_.width + ox;
          out[o] = best;
          arg[o] = best_at;
        }
      }
    }
  }
}

void MaxPool::backward(std::span<const Tensor* const>, const Tensor&, const Tensor& grad_output,
                       std::span<Tensor* const> grad_inputs, std::span<Parameter>) {
  Tensor* dx = grad_inputs[0];
  if (!dx) return;
  const std::size_t per_sample = out_.elements();
  for (int n = 0; n < grad_output.batch; ++n) {
    const float* dy = grad_output.sample(n);
    const int* arg = argmax_.data() + n * per_sample;
    float* d = dx->sample(n);
    for (std::size_t o = 0; o < per_sample; ++o) d[arg[o]] += dy[o];
  }
}

}  // namespace gradsync
