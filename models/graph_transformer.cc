// Graph builders for the transformer layers: each constructs its layer from
// the shapes of its inputs and appends it, as graph.cc's builders do.
#include <stdexcept>

#include "models/graph.h"
#include "models/layer_norm.h"
#include "models/patch_tokens.h"
#include "models/position_bias.h"
#include "models/take_token.h"
#include "models/tied_linear.h"

namespace gradsync {

NodeId Graph::linear(NodeId x, const std::string& name, int out_features,
                     const LinearOptions& options) {
  return append(name, std::make_unique<Linear>(shape(x), out_features, options), {x});
}

NodeId Graph::layer_norm(NodeId x, const std::string& name, float eps) {
  return append(name, std::make_unique<LayerNorm>(shape(x), eps), {x});
}

NodeId Graph::gelu(NodeId x, GeluForm form) {
  return append("", std::make_unique<Gelu>(shape(x), form), {x});
}

NodeId Graph::attention(std::vector<NodeId> qkv, AttentionOptions options) {
  std::vector<FeatureShape> shapes;
  for (NodeId x : qkv) shapes.push_back(shape(x));
  return append("", std::make_unique<Attention>(std::move(shapes), options), std::move(qkv));
}

NodeId Graph::embedding(NodeId tokens, const std::string& name, const EmbeddingOptions& options) {
  return append(name, std::make_unique<Embedding>(shape(tokens), options), {tokens});
}

NodeId Graph::tied_linear(NodeId x, NodeId owner) {
  if (owner < 0 || std::size_t(owner) >= nodes_.size() || nodes_[owner].param_count == 0)
    throw std::logic_error("graph: a tied linear layer needs an earlier node with parameters");
  const std::vector<int>& weight = params_[nodes_[owner].first_param].shape;
  if (weight.size() != 2) throw std::logic_error("graph: a tied weight must be a matrix");
  return append_borrowing(std::make_unique<TiedLinear>(shape(x), weight[0]), {x}, owner);
}

NodeId Graph::position_bias(NodeId x, const std::string& name) {
  return append(name, std::make_unique<PositionBias>(shape(x)), {x});
}

NodeId Graph::patch_tokens(NodeId x) {
  return append("", std::make_unique<PatchTokens>(shape(x)), {x});
}

NodeId Graph::take_token(NodeId x, int index) {
  return append("", std::make_unique<TakeToken>(shape(x), index), {x});
}

}  // namespace gradsync
