#pragma once
// A model as a graph of layers in topological (forward) order. Each node
// reads earlier nodes' outputs (or the model input) and produces one output.
// Built from shapes only: parameter names, counts and FLOPs are known
// without allocating any tensor.

#include <memory>
#include <string>
#include <vector>

#include "models/avg_pool.h"
#include "models/conv2d.h"
#include "models/layer.h"
#include "models/model.h"

namespace gradsync {

// A node id; kInput names the model's input.
using NodeId = int;
inline constexpr NodeId kInput = -1;

struct Node {
  std::string name;  // parameter name prefix, e.g. "layer1.0.conv1"
  std::unique_ptr<Layer> layer;
  std::vector<NodeId> inputs;
  std::size_t first_param = 0;  // index of its first parameter in the model's list
  std::size_t param_count = 0;
};

// A trainable tensor of the graph, before allocation.
struct GraphParam {
  std::string name;  // e.g. "layer1.0.conv1.weight"
  std::vector<int> shape;
  std::size_t node = 0;
  std::size_t elements() const;
};

class Graph {
 public:
  explicit Graph(ImageShape input) : input_(input) {}

  ImageShape input() const { return input_; }
  FeatureShape shape(NodeId id) const;
  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<Node>& nodes() { return nodes_; }
  const std::vector<GraphParam>& params() const { return params_; }
  std::uint64_t parameter_elements() const;
  double forward_flops() const;
  // Parameter indices in the order backward hands their gradients over:
  // nodes last to first, a node's own parameters first to last (what the
  // cpu, emulated and cuda backends do; models lay their gradient blocks out
  // in this order, models/gradient_block.h).
  std::vector<std::size_t> backward_order() const;
  // The output's channels: the number of classes (the last node must be C x 1 x 1).
  int classes() const;

  // Appends a node; returns its id.
  NodeId append(std::string name, std::unique_ptr<Layer> layer, std::vector<NodeId> inputs);

  // Builders for the layer kinds (name: the parameter prefix; "" for none).
  NodeId conv(NodeId x, const std::string& name, int out_channels, int kernel, int stride = 1,
              int pad = 0, bool bias = true);
  NodeId conv(NodeId x, const std::string& name, const Conv2dOptions& options);
  NodeId batch_norm(NodeId x, const std::string& name, float eps = 1e-5f);
  NodeId relu(NodeId x);
  NodeId max_pool(NodeId x, int kernel, int stride, int pad = 0);
  NodeId avg_pool(NodeId x, int kernel, int stride, int pad = 0);
  NodeId global_avg_pool(NodeId x);
  NodeId residual_add(NodeId a, NodeId b);
  NodeId concat(std::vector<NodeId> xs);
  NodeId linear(NodeId x, const std::string& name, int out_features);

 private:
  ImageShape input_;
  std::vector<Node> nodes_;
  std::vector<GraphParam> params_;
};

}  // namespace gradsync
