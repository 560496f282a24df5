#pragma once
// The fusion rule: which gradients share a bucket. Buckets are formed as
// Horovod's fusion buffer and DDP's buckets form them: gradients are appended
// in the order backward hands them over, and a bucket closes once its bytes
// reach the threshold. A gradient that reaches the threshold by itself goes
// alone into its own bucket (never split), closing the partial bucket before
// it. A threshold of 0 disables fusion: every gradient is its own bucket.
//
// The rule depends only on the order and sizes of the gradients. Every worker
// hands over the same gradients in the same order, so every worker forms the
// same buckets, and the collective calls made on them match across ranks.

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

namespace gradsync {

class FusionRule {
 public:
  // Throws std::invalid_argument for a negative or non-finite size.
  explicit FusionRule(double fusion_mb);

  std::size_t threshold_bytes() const { return threshold_bytes_; }
  // A gradient of `bytes` gets a bucket of its own.
  bool alone(std::size_t bytes) const { return threshold_bytes_ == 0 || bytes >= threshold_bytes_; }
  // A bucket holding `bytes` is closed.
  bool full(std::size_t bytes) const { return bytes >= threshold_bytes_; }
  // Forward order (synchronizer.h) cuts a gradient that goes alone into
  // pieces of this many floats (the threshold's whole floats, at least one);
  // 0 without fusion: nothing is cut.
  std::size_t piece_floats() const {
    return threshold_bytes_ == 0 ? 0 : std::max<std::size_t>(1, threshold_bytes_ / sizeof(float));
  }

 private:
  std::size_t threshold_bytes_ = 0;
};

// The buckets, as lists of gradient indices, for gradients handed over in
// `order`, where gradient i has `bytes[i]` bytes. The synchronizer forms its
// buckets step by step with the same rule; this is the rule in one place for
// tests and for the cost model.
std::vector<std::vector<std::size_t>> plan_buckets(std::span<const std::size_t> order,
                                                   std::span<const std::size_t> bytes,
                                                   const FusionRule& rule);

}  // namespace gradsync
