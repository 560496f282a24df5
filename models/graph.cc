// Graph building: every builder constructs its layer from the shapes of its
// inputs (known, since nodes are appended in forward order), appends it, and
// records its trainable tensors under "<node name>.<suffix>" so the model's
// parameter list is in forward order of first use.
#include "models/graph.h"

#include <stdexcept>

#include "models/batch_norm.h"
#include "models/concat.h"
#include "models/linear.h"
#include "models/max_pool.h"
#include "models/relu.h"
#include "models/residual_add.h"

namespace gradsync {

std::size_t GraphParam::elements() const {
  std::size_t n = 1;
  for (int d : shape) n *= std::size_t(d);
  return n;
}

FeatureShape Graph::shape(NodeId id) const {
  if (id == kInput) return {input_.channels, input_.height, input_.width};
  if (id < 0 || std::size_t(id) >= nodes_.size())
    throw std::out_of_range("graph: node " + std::to_string(id) + " does not exist yet");
  return nodes_[id].layer->output_shape();
}

std::uint64_t Graph::parameter_elements() const {
  std::uint64_t total = 0;
  for (const auto& p : params_) total += p.elements();
  return total;
}

double Graph::forward_flops() const {
  double total = 0;
  for (const auto& n : nodes_) total += n.layer->forward_flops();
  return total;
}

std::vector<std::size_t> Graph::backward_order() const {
  std::vector<std::size_t> order;
  order.reserve(params_.size());
  for (std::size_t i = nodes_.size(); i-- > 0;)
    for (std::size_t p = 0; p < nodes_[i].param_count; ++p)
      order.push_back(nodes_[i].first_param + p);
  return order;
}

int Graph::classes() const {
  if (nodes_.empty()) throw std::logic_error("graph: empty model");
  const FeatureShape out = nodes_.back().layer->output_shape();
  if (task_ != Task::classify) {
    if (out.channels != input_.channels || out.width != 1)
      throw std::logic_error("graph: a token model's last layer must produce T x V logits");
    return out.height;
  }
  if (out.height != 1 || out.width != 1)
    throw std::logic_error("graph: the last layer must produce C x 1 x 1 logits");
  return out.channels;
}

NodeId Graph::append(std::string name, std::unique_ptr<Layer> layer, std::vector<NodeId> inputs) {
  for (NodeId in : inputs)
    if (in != kInput && (in < 0 || std::size_t(in) >= nodes_.size()))
      throw std::logic_error("graph: node '" + name + "' reads a node that is not built yet");
  const std::vector<ParamSpec> specs = layer->params();
  Node node{std::move(name), std::move(layer), std::move(inputs), params_.size(), specs.size()};
  for (const auto& spec : specs)
    params_.push_back({node.name.empty() ? spec.suffix : node.name + "." + spec.suffix, spec.shape,
                       nodes_.size()});
  nodes_.push_back(std::move(node));
  return NodeId(nodes_.size() - 1);
}

NodeId Graph::append_borrowing(std::unique_ptr<Layer> layer, std::vector<NodeId> inputs,
                               NodeId owner) {
  if (owner < 0 || std::size_t(owner) >= nodes_.size() || nodes_[owner].param_count == 0)
    throw std::logic_error("graph: a borrowing node needs an earlier node with parameters");
  if (!layer->params().empty())
    throw std::logic_error("graph: a borrowing node's layer must own no parameters");
  const std::size_t borrowed = nodes_[owner].first_param;
  const NodeId id = append("", std::move(layer), std::move(inputs));
  nodes_[id].borrowed_param = borrowed;
  return id;
}

NodeId Graph::conv(NodeId x, const std::string& name, int out_channels, int kernel, int stride,
                   int pad, bool bias) {
  return conv(x, name, Conv2dOptions{out_channels, kernel, kernel, stride, pad, pad, bias});
}

NodeId Graph::conv(NodeId x, const std::string& name, const Conv2dOptions& options) {
  return append(name, std::make_unique<Conv2d>(shape(x), options), {x});
}

NodeId Graph::batch_norm(NodeId x, const std::string& name, float eps) {
  return append(name, std::make_unique<BatchNorm>(shape(x), eps), {x});
}

NodeId Graph::relu(NodeId x) { return append("", std::make_unique<Relu>(shape(x)), {x}); }

NodeId Graph::max_pool(NodeId x, int kernel, int stride, int pad) {
  return append("", std::make_unique<MaxPool>(shape(x), PoolOptions{kernel, kernel, stride, pad}),
             {x});
}

NodeId Graph::avg_pool(NodeId x, int kernel, int stride, int pad) {
  return append("", std::make_unique<AvgPool>(shape(x), PoolOptions{kernel, kernel, stride, pad}),
             {x});
}

NodeId Graph::global_avg_pool(NodeId x) {
  return append("", std::make_unique<AvgPool>(shape(x), AvgPool::global(shape(x))), {x});
}

NodeId Graph::residual_add(NodeId a, NodeId b) {
  return append("", std::make_unique<ResidualAdd>(shape(a), shape(b)), {a, b});
}

NodeId Graph::concat(std::vector<NodeId> xs) {
  std::vector<FeatureShape> shapes;
  for (NodeId x : xs) shapes.push_back(shape(x));
  return append("", std::make_unique<Concat>(std::move(shapes)), std::move(xs));
}

NodeId Graph::linear(NodeId x, const std::string& name, int out_features) {
  return append(name, std::make_unique<Linear>(shape(x), out_features), {x});
}

}  // namespace gradsync
