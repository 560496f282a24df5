#include "models/graph_model.h"

#include <stdexcept>

#include "models/gradient_block.h"
#include "models/init.h"

namespace gradsync {

GraphModel::GraphModel(std::string name, Graph graph, std::uint64_t seed)
    : name_(std::move(name)),
      graph_(std::move(graph)),
      classes_(graph_.classes()),
      flops_(graph_.forward_flops()),
      params_(initialize_parameters(graph_, seed)),
      gradients_(allocate_gradients(params_, graph_.backward_order())) {}

void GraphModel::check_batch(std::span<const float> input, std::span<const int> labels,
                             int batch) const {
  if (batch <= 0) throw std::invalid_argument(name_ + ": the batch size must be positive");
  const std::size_t want = std::size_t(batch) * graph_.input().elements();
  if (input.size() != want)
    throw std::invalid_argument(name_ + ": input holds " + std::to_string(input.size()) +
                                " floats but a batch of " + std::to_string(batch) + " needs " +
                                std::to_string(want) + " (batch x C x H x W)");
  if (labels.size() != std::size_t(batch) * graph_.labels_per_sample())
    throw std::invalid_argument(name_ + ": " + std::to_string(labels.size()) +
                                " labels for a batch of " + std::to_string(batch) + " (" +
                                std::to_string(graph_.labels_per_sample()) + " per sample)");
}

std::span<Parameter> GraphModel::node_params(std::size_t node) {
  const Node& n = graph_.nodes()[node];
  if (n.borrowed_param) return std::span<Parameter>(params_).subspan(*n.borrowed_param, 1);
  return std::span<Parameter>(params_).subspan(n.first_param, n.param_count);
}

std::chrono::steady_clock::duration GraphModel::pass_forward_gate(std::size_t node) {
  const Node& n = graph_.nodes()[node];
  if (!forward_gate_ || n.param_count == 0) return {};
  const auto start = std::chrono::steady_clock::now();
  forward_gate_(n.first_param, n.param_count);
  return std::chrono::steady_clock::now() - start;
}

std::chrono::steady_clock::duration GraphModel::pass_layer_gate(const ForwardGate& gate,
                                                                std::size_t node) {
  const Node& n = graph_.nodes()[node];
  if (!gate || (n.param_count == 0 && !n.borrowed_param)) return {};
  const auto start = std::chrono::steady_clock::now();
  if (n.borrowed_param)
    gate(*n.borrowed_param, 1);
  else
    gate(n.first_param, n.param_count);
  return std::chrono::steady_clock::now() - start;
}

// Event names are made once, so that a traced pass formats no strings. A node
// without parameters has no name of its own: "<kind>#<node index>".
void GraphModel::set_trace(TraceSink* sink) {
  trace_ = sink;
  if (!sink || !forward_names_.empty()) return;
  for (std::size_t i = 0; i < graph_.nodes().size(); ++i) {
    const Node& node = graph_.nodes()[i];
    const std::string layer =
        node.name.empty() ? node.layer->kind() + "#" + std::to_string(i) : node.name;
    forward_names_.push_back("forward " + layer);
    backward_names_.push_back("backward " + layer);
  }
}

}  // namespace gradsync
