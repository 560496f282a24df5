// Softmax cross-entropy over K classes, stable form: with m = max(z),
// log p_k = z_k - m - log(sum_j exp(z_j - m)); loss = -(1/R) sum_r log p_{y_r}
// over the R rows of logits (a classifier's one per sample; a token model's
// one per position). Its gradient is (p - onehot(y)) / R. Sums in double.
// Cost: O(R*K).
#include "models/softmax_cross_entropy.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gradsync {

float softmax_cross_entropy(const Tensor& logits, std::span<const int> labels, Tensor* grad) {
  const std::size_t rows = labels.size();
  if (logits.batch <= 0 || rows == 0 || rows % std::size_t(logits.batch) != 0 ||
      logits.sample_size() % (rows / logits.batch) != 0)
    throw std::invalid_argument("softmax_cross_entropy: " + std::to_string(rows) +
                                " labels do not divide a batch of " + std::to_string(logits.batch) +
                                " into rows");
  const int classes = int(logits.sample_size() / (rows / logits.batch));
  if (grad) grad->reset(logits.batch, logits.shape);
  double total = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const int y = labels[r];
    if (y < 0 || y >= classes)
      throw std::invalid_argument("softmax_cross_entropy: label " + std::to_string(y) +
                                  " is outside [0, " + std::to_string(classes) + ")");
    const float* z = logits.data.data() + r * classes;
    const float m = *std::max_element(z, z + classes);
    double sum = 0;
    for (int k = 0; k < classes; ++k) sum += std::exp(double(z[k]) - m);
    const double log_sum = std::log(sum);
    total += -(double(z[y]) - m - log_sum);
    if (!grad) continue;
    float* g = grad->data.data() + r * classes;
    for (int k = 0; k < classes; ++k)
      g[k] = float((std::exp(double(z[k]) - m - log_sum) - (k == y ? 1.0 : 0.0)) / double(rows));
  }
  return float(total / double(rows));
}

}  // namespace gradsync
