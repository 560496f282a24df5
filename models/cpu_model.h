#pragma once
// A model computed for real on the CPU.

#include "models/graph_model.h"

namespace gradsync {

class CpuModel : public GraphModel {
 public:
  CpuModel(std::string name, Graph graph, std::uint64_t seed);
  float forward(std::span<const float> input, std::span<const int> labels, int batch) override;
  void backward(const std::function<void(std::size_t)>& ready) override;

 private:
  const Tensor& value_of(NodeId id) const { return id == kInput ? input_ : outputs_[id]; }
  void zero_added_gradients();

  Tensor input_;
  std::vector<Tensor> outputs_;  // per node
  std::vector<Tensor> grads_;    // per node: d(loss)/d(output)
  std::vector<int> labels_;
  bool have_forward_ = false;
};

}  // namespace gradsync
