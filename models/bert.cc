// BERT (Devlin et al., 2019) as Hugging Face's BertForMaskedLM builds it,
// parameter for parameter and in its names: word, position and token-type
// embeddings summed, LayerNorm; per layer, post-norm: query, key and value
// (d -> d each), multi-head attention, attention.output.dense, add,
// LayerNorm; intermediate.dense (d -> 4d), GELU (the erf form),
// output.dense (4d -> d), add, LayerNorm; then the masked-LM head:
// transform.dense, GELU, transform.LayerNorm, the decoder, whose weight is
// the word embeddings' (tied) and its bias cls.predictions.bias. The head
// scores every position, as Hugging Face's does before it drops the
// unmasked ones. No pooler (the masked-LM model has none). Dropout is the
// identity. 109,514,298 parameters for bert-base (12 x 768), 335,174,458
// for bert-large (24 x 1024); with the pooler instead of the head, BertModel
// has the published 109,482,240 and 335,141,888.
#include "models/zoo.h"

namespace gradsync {
namespace {

constexpr float kEps = 1e-12f;  // BertConfig.layer_norm_eps

NodeId bert_layer(Graph& g, NodeId x, const TransformerShape& s, const std::string& name) {
  const int d = s.features;
  const LinearOptions per_position{.per_position = true};
  const NodeId q = g.linear(x, name + ".attention.self.query", d, per_position);
  const NodeId k = g.linear(x, name + ".attention.self.key", d, per_position);
  const NodeId v = g.linear(x, name + ".attention.self.value", d, per_position);
  NodeId h = g.attention({q, k, v}, {.heads = s.heads, .causal = false});
  h = g.linear(h, name + ".attention.output.dense", d, per_position);
  const NodeId a = g.layer_norm(g.residual_add(x, h), name + ".attention.output.LayerNorm", kEps);
  h = g.linear(a, name + ".intermediate.dense", 4 * d, per_position);
  h = g.gelu(h, GeluForm::exact);
  h = g.linear(h, name + ".output.dense", d, per_position);
  return g.layer_norm(g.residual_add(a, h), name + ".output.LayerNorm", kEps);
}

}  // namespace

Graph build_bert(const TransformerShape& s, int sequence_length) {
  const int d = s.features;
  Graph g(ImageShape{sequence_length, 1, 1}, Task::masked_token);
  const NodeId embeddings = g.embedding(kInput, "bert.embeddings",
                                        {.vocabulary = s.vocabulary,
                                         .max_positions = s.positions,
                                         .type_vocabulary = 2,
                                         .features = d,
                                         .token_suffix = "word_embeddings.weight",
                                         .position_suffix = "position_embeddings.weight",
                                         .type_suffix = "token_type_embeddings.weight"});
  NodeId x = g.layer_norm(embeddings, "bert.embeddings.LayerNorm", kEps);
  for (int i = 0; i < s.layers; ++i)
    x = bert_layer(g, x, s, "bert.encoder.layer." + std::to_string(i));
  x = g.linear(x, "cls.predictions.transform.dense", d, {.per_position = true});
  x = g.gelu(x, GeluForm::exact);
  x = g.layer_norm(x, "cls.predictions.transform.LayerNorm", kEps);
  x = g.tied_linear(x, embeddings);
  g.position_bias(x, "cls.predictions");
  return g;
}

}  // namespace gradsync
