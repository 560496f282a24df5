#pragma once
// Softmax cross-entropy, the mean over the batch.

#include <span>

#include "models/tensor.h"

namespace gradsync {

// Returns mean_n(-log softmax(logits[n])[labels[n]]) and, when grad is not
// null, writes d(loss)/d(logits) into it (sized like logits). Throws on a
// label outside [0, classes).
float softmax_cross_entropy(const Tensor& logits, std::span<const int> labels, Tensor* grad);

}  // namespace gradsync
