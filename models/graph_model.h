#pragma once
// What the CPU and the emulated models share: the graph, the parameters, the
// host gradient block (every gradient back to back in the order backward hands
// them over, so that fusion buckets are slices of it), and the answers about
// shapes, counts and FLOPs.

#include "models/graph.h"

namespace gradsync {

class GraphModel : public Model {
 public:
  GraphModel(std::string name, Graph graph, std::uint64_t seed);
  const std::string& name() const override { return name_; }
  ImageShape input_shape() const override { return graph_.input(); }
  int classes() const override { return classes_; }
  Task task() const override { return graph_.task(); }
  int labels_per_sample() const override { return graph_.labels_per_sample(); }
  std::vector<Parameter>& parameters() override { return params_; }
  double forward_flops_per_sample() const override { return flops_; }
  void set_trace(TraceSink* sink) override;
  bool takes_forward_gate() const override { return true; }
  void set_forward_gate(ForwardGate gate) override { forward_gate_ = std::move(gate); }
  bool takes_layer_gates() const override { return true; }
  void set_layer_gates(LayerGates gates) override { layer_gates_ = std::move(gates); }

 protected:
  // Throws unless input and labels fit a batch of `batch` samples.
  void check_batch(std::span<const float> input, std::span<const int> labels, int batch) const;
  std::span<Parameter> node_params(std::size_t node);
  // Reports node i's forward or backward as one event, when traced.
  void trace_forward(std::size_t node, TraceClock::time_point start, TraceClock::time_point end) {
    if (trace_) trace_->event(forward_names_[node], "forward", start, end, 0);
  }
  void trace_backward(std::size_t node, TraceClock::time_point start, TraceClock::time_point end) {
    if (trace_) trace_->event(backward_names_[node], "backward", start, end, 0);
  }

  std::string name_;
  Graph graph_;
  int classes_;
  double flops_;
  std::vector<Parameter> params_;
  std::vector<float> gradients_;  // every Parameter::grad, back to back in backward order
  TraceSink* trace_ = nullptr;
  ForwardGate forward_gate_;  // called before node i's forward when it has parameters
  // Calls the gate for node i when there is one and the node has parameters;
  // returns how long the gate took (0 without a call).
  std::chrono::steady_clock::duration pass_forward_gate(std::size_t node);
  LayerGates layer_gates_;
  // Calls `gate` (one of layer_gates_) for node i when it is set and the
  // node uses parameters (its own, or the one it borrows); returns how long
  // it took (0 without a call).
  std::chrono::steady_clock::duration pass_layer_gate(const ForwardGate& gate, std::size_t node);
  std::vector<std::string> forward_names_;   // per node, made by the first set_trace
  std::vector<std::string> backward_names_;
};

}  // namespace gradsync
