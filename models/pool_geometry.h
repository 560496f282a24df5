#pragma once
// Window geometry shared by max and average pooling (floor mode, as the
// torchvision models use).

#include <stdexcept>
#include <string>

#include "models/tensor.h"

namespace gradsync {

struct PoolOptions {
  int kernel_h = 2, kernel_w = 2;
  int stride = 2;
  int pad = 0;
};

inline FeatureShape pool_output_shape(FeatureShape in, const PoolOptions& o) {
  const FeatureShape out{in.channels, (in.height + 2 * o.pad - o.kernel_h) / o.stride + 1,
                         (in.width + 2 * o.pad - o.kernel_w) / o.stride + 1};
  if (o.kernel_h <= 0 || o.kernel_w <= 0 || o.stride <= 0 || out.height <= 0 || out.width <= 0)
    throw std::invalid_argument("pooling: a " + std::to_string(o.kernel_h) + "x" +
                                std::to_string(o.kernel_w) + " window does not fit a " +
                                std::to_string(in.height) + "x" + std::to_string(in.width) +
                                " input; use a larger input");
  return out;
}

}  // namespace gradsync
