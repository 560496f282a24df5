#pragma once
// A model as a graph of layers in topological (forward) order. Each node
// reads earlier nodes' outputs (or the model input) and produces one output.
// Built from shapes only: parameter names, counts and FLOPs are known
// without allocating any tensor.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/attention.h"
#include "models/avg_pool.h"
#include "models/conv2d.h"
#include "models/embedding.h"
#include "models/gelu.h"
#include "models/layer.h"
#include "models/linear.h"
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
  std::size_t param_count = 0;  // parameters it owns
  // A node that owns none may use one earlier node's parameter (a tied
  // weight: GPT-2's head uses the token embedding); its layer adds into that
  // gradient, and the owner hands it over, once, when its own backward ends.
  std::optional<std::size_t> borrowed_param;
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
  explicit Graph(ImageShape input, Task task = Task::classify) : input_(input), task_(task) {}

  ImageShape input() const { return input_; }
  Task task() const { return task_; }
  // 1 for a classifier; a token model labels every position of its input.
  int labels_per_sample() const { return task_ == Task::classify ? 1 : input_.channels; }
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
  // The number of classes: a classifier's last node is C x 1 x 1; a token
  // model's is a sequence of T rows of logits over its vocabulary.
  int classes() const;

  // Appends a node; returns its id. A parameter's name is "<name>.<suffix>",
  // or the suffix alone when `name` is empty.
  NodeId append(std::string name, std::unique_ptr<Layer> layer, std::vector<NodeId> inputs);
  // Appends a node whose layer owns no parameter but uses `owner`'s first.
  NodeId append_borrowing(std::unique_ptr<Layer> layer, std::vector<NodeId> inputs, NodeId owner);

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
  // Transformer layers (graph_transformer.cc): sequences are T x d
  // (tensor.h's sequence_shape).
  NodeId linear(NodeId x, const std::string& name, int out_features, const LinearOptions& options);
  NodeId layer_norm(NodeId x, const std::string& name, float eps);
  NodeId gelu(NodeId x, GeluForm form);
  NodeId attention(std::vector<NodeId> qkv, AttentionOptions options);
  NodeId embedding(NodeId tokens, const std::string& name, const EmbeddingOptions& options);
  // y = x W^T with W the first parameter of `owner` (an embedding's token table).
  NodeId tied_linear(NodeId x, NodeId owner);
  NodeId position_bias(NodeId x, const std::string& name);
  NodeId patch_tokens(NodeId x);
  NodeId take_token(NodeId x, int index);

 private:
  ImageShape input_;
  Task task_;
  std::vector<Node> nodes_;
  std::vector<GraphParam> params_;
};

}  // namespace gradsync
