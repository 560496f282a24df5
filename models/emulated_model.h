#pragma once
// A model whose compute is emulated: layers take the time their FLOPs would
// take on a device, and gradients have real shapes but made-up values.

#include "models/graph_model.h"

namespace gradsync {

class EmulatedModel : public GraphModel {
 public:
  // Throws unless the options give a positive rate (a profile or emulate_img_per_sec).
  EmulatedModel(std::string name, Graph graph, const ModelOptions& options);
  float forward(std::span<const float> input, std::span<const int> labels, int batch) override;
  void backward(const std::function<void(std::size_t)>& ready) override;

  double flops_per_second() const { return flops_per_second_; }
  // The value every gradient element gets (depends on the seed only).
  float gradient_value() const { return gradient_value_; }

 private:
  double flops_per_second_;
  float gradient_value_;
  int batch_ = 0;
};

}  // namespace gradsync
