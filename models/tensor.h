#pragma once
// Activations: a batch of feature maps in NCHW order, float32. A plain value
// type; the graph owns one per node (and one for its gradient).

#include <cstddef>
#include <vector>

namespace gradsync {

// Per-sample feature map shape (channels x height x width). A linear layer's
// output is channels x 1 x 1.
struct FeatureShape {
  int channels = 0, height = 1, width = 1;
  std::size_t elements() const { return std::size_t(channels) * height * width; }
  bool operator==(const FeatureShape&) const = default;
};

// A sequence of `positions` rows of `features` floats per sample (a
// transformer's activations): FeatureShape{positions, features, 1}, so a
// sample is T rows of d floats one after the other, token-major, which is
// the NCHW order of that shape. Token ids come as FeatureShape{T, 1, 1}.
inline FeatureShape sequence_shape(int positions, int features) { return {positions, features, 1}; }

struct Tensor {
  int batch = 0;
  FeatureShape shape;
  std::vector<float> data;

  // Sizes the tensor for `batch` samples of `shape`; zero-fills.
  void reset(int batch_size, FeatureShape s) {
    batch = batch_size;
    shape = s;
    data.assign(std::size_t(batch) * shape.elements(), 0.0f);
  }
  std::size_t sample_size() const { return shape.elements(); }
  float* sample(int n) { return data.data() + std::size_t(n) * shape.elements(); }
  const float* sample(int n) const { return data.data() + std::size_t(n) * shape.elements(); }
};

}  // namespace gradsync
