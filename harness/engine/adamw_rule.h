#pragma once
// AdamW (Loshchilov and Hutter, 2019; PyTorch's torch.optim.AdamW) on one
// block of host parameters: the rule transformers train with. For every
// element k, with moments m and v (zero at first), at step t = 1, 2, ...:
//   w -= lr weight_decay w                     (decoupled decay, first)
//   m = beta1 m + (1 - beta1) g
//   v = beta2 v + (1 - beta2) g g
//   w -= lr (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)
// with g the gradient divided by divide_by (the averaging of summed
// gradients, 1: none), correctly rounded as an averaging pass would be.
// Its state is two floats per parameter, twice SGD's velocity.

#include <cmath>
#include <cstddef>

namespace gradsync {

// One step's scalars, in the fp32 the update runs in; the bias corrections
// 1 - beta^t are computed in double by the caller.
struct AdamwCoefficients {
  float lr = 0;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  float weight_decay = 0;
  float bias1 = 1, bias2 = 1;  // 1 - beta1^t, 1 - beta2^t
};

inline void adamw_update(float* w, const float* g, float* m, float* v, std::size_t n,
                         const AdamwCoefficients& c, float divide_by = 1) {
  const float sqrt_bias2 = std::sqrt(c.bias2);
  for (std::size_t k = 0; k < n; ++k) {
    const float grad = g[k] / divide_by;
    w[k] -= c.lr * c.weight_decay * w[k];
    m[k] = c.beta1 * m[k] + (1 - c.beta1) * grad;
    v[k] = c.beta2 * v[k] + (1 - c.beta2) * grad * grad;
    w[k] -= c.lr * (m[k] / c.bias1) / (std::sqrt(v[k]) / sqrt_bias2 + c.eps);
  }
}

}  // namespace gradsync
