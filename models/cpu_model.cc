// CPU execution of a graph. Forward runs the nodes in order, each writing
// its own output tensor, then the softmax cross-entropy of the last node.
// Backward seeds the last node's gradient with d(loss)/d(logits) and runs the
// nodes in reverse; a node adds its input gradients into the gradients of
// the nodes it read (a node read twice, like a residual input, accumulates
// both), and the moment a node with parameters finishes, those parameters'
// gradients are final, so ready(i) is called for each right there. The
// input's gradient is never computed. Activations (and their gradients) are
// kept for every node: memory is about twice the forward activations. When
// traced, every node's forward and backward is one event (the ready() calls
// after a node's backward fall outside its event).
#include "models/cpu_model.h"

#include <algorithm>
#include <stdexcept>

#include "models/softmax_cross_entropy.h"

namespace gradsync {

CpuModel::CpuModel(std::string name, Graph graph, std::uint64_t seed)
    : GraphModel(std::move(name), std::move(graph), seed) {
  outputs_.resize(graph_.nodes().size());
  grads_.resize(graph_.nodes().size());
}

float CpuModel::forward(std::span<const float> input, std::span<const int> labels, int batch) {
  check_batch(input, labels, batch);
  const ImageShape in = graph_.input();
  input_.batch = batch;
  input_.shape = {in.channels, in.height, in.width};
  input_.data.assign(input.begin(), input.end());
  labels_.assign(labels.begin(), labels.end());
  std::vector<const Tensor*> ins;
  for (std::size_t i = 0; i < graph_.nodes().size(); ++i) {
    Node& node = graph_.nodes()[i];
    ins.clear();
    for (NodeId id : node.inputs) ins.push_back(&value_of(id));
    pass_forward_gate(i);
    pass_layer_gate(layer_gates_.before_forward, i);
    const auto start = trace_ ? TraceClock::now() : TraceClock::time_point();
    outputs_[i].reset(batch, node.layer->output_shape());
    node.layer->forward(ins, outputs_[i], node_params(i));
    if (trace_) trace_forward(i, start, TraceClock::now());
  }
  have_forward_ = true;
  return softmax_cross_entropy(outputs_.back(), labels_, nullptr);
}

void CpuModel::backward(const std::function<void(std::size_t)>& ready) {
  if (!have_forward_)
    throw std::logic_error(name_ + ": backward() needs a forward() first");
  const std::size_t count = graph_.nodes().size();
  for (std::size_t i = 0; i + 1 < count; ++i) grads_[i].reset(outputs_[i].batch, outputs_[i].shape);
  softmax_cross_entropy(outputs_.back(), labels_, &grads_.back());
  zero_added_gradients();
  std::vector<const Tensor*> ins;
  std::vector<Tensor*> dins;
  for (std::size_t i = count; i-- > 0;) {
    Node& node = graph_.nodes()[i];
    ins.clear();
    dins.clear();
    for (NodeId id : node.inputs) {
      ins.push_back(&value_of(id));
      dins.push_back(id == kInput ? nullptr : &grads_[id]);
    }
    pass_layer_gate(layer_gates_.before_backward, i);
    const auto start = trace_ ? TraceClock::now() : TraceClock::time_point();
    node.layer->backward(ins, outputs_[i], grads_[i], dins, node_params(i));
    if (trace_) trace_backward(i, start, TraceClock::now());
    for (std::size_t p = 0; p < node.param_count; ++p) ready(node.first_param + p);
  }
  have_forward_ = false;
}

// Layers that add into their parameters' gradients (an embedding's scatter, a
// tied head) start from zero.
void CpuModel::zero_added_gradients() {
  for (std::size_t i = 0; i < graph_.nodes().size(); ++i)
    if (graph_.nodes()[i].layer->adds_to_grads())
      for (Parameter& p : node_params(i)) std::fill(p.grad.begin(), p.grad.end(), 0.0f);
}

}  // namespace gradsync
