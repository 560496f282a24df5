// Softmax cross-entropy over K classes, stable form: with m = max(z),
// log p_k = z_k - m - log(sum_j exp(z_j - m)); loss = -(1/N) sum_n log p_{y_n}.
// Its gradient is (p - onehot(y)) / N. Sums in double. Cost: O(N*K).
#include "models/softmax_cross_entropy.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gradsync {

float softmax_cross_entropy(const Tensor& logits, std::span<const int> labels, Tensor* grad) {
  const int classes = int(logits.sample_size());
  if (labels.size() != std::size_t(logits.batch))
    throw std::invalid_argument("softmax_cross_entropy: " + std::to_string(labels.size()) +
                                " labels for a batch of " + std::to_string(logits.batch));
  if (grad) grad->reset(logits.batch, logits.shape);
  double total = 0;
  for (int n = 0; n < logits.batch; ++n) {
    const int y = labels[n];
    if (y < 0 || y >= classes)
      throw std::invalid_argument("softmax_cross_entropy: label " + std::to_string(y) +
                                  " is outside [0, " + std::to_string(classes) + ")");
    const float* z = logits.sample(n);
    const float m = *std::max_element(z, z + classes);
    double sum = 0;
    for (int k = 0; k < classes; ++k) sum += std::exp(double(z[k]) - m);
    const double log_sum = std::log(sum);
    total += -(double(z[y]) - m - log_sum);
    if (!grad) continue;
    float* g = grad->sample(n);
    for (int k = 0; k < classes; ++k)
      g[k] = float((std::exp(double(z[k]) - m - log_sum) - (k == y ? 1.0 : 0.0)) / logits.batch);
  }
  return float(total / logits.batch);
}

}  // namespace gradsync
