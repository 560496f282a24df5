#pragma once
// Softmax cross-entropy, the mean over the rows of logits: one per sample
// for a classifier, one per position for a token model.

#include <span>

#include "models/tensor.h"

namespace gradsync {

// Returns mean_r(-log softmax(logits row r)[labels[r]]) and, when grad is not
// null, writes d(loss)/d(logits) into it (sized like logits). The rows are
// as many as the labels, a whole number per sample, each sample's logits cut
// into them evenly. Throws on a label outside [0, classes).
float softmax_cross_entropy(const Tensor& logits, std::span<const int> labels, Tensor* grad);

}  // namespace gradsync
