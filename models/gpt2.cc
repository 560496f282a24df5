// GPT-2 (Radford et al., 2019) as Hugging Face's GPT2LMHeadModel builds it,
// parameter for parameter and in its names: token and position embeddings
// (wte, wpe), then per block, pre-norm: ln_1, c_attn (d -> 3d: q | k | v),
// causal multi-head attention, c_proj, add; ln_2, c_fc (d -> 4d), GELU (the
// tanh form, "gelu_new"), c_proj (4d -> d), add; then ln_f and the language
// model head, whose weight is wte's (tied, so counted once). Weights are
// stored out x in (nn.Linear's layout; GPT-2's Conv1D stores in x out: same
// elements). Dropout is the identity. 12 d^2 + 13 d parameters per block;
// 124,439,808 in all for 12 blocks of 768 (Hugging Face's gpt2).
#include "models/zoo.h"

namespace gradsync {

Graph build_gpt2(const TransformerShape& s, int sequence_length) {
  const int d = s.features;
  Graph g(ImageShape{sequence_length, 1, 1}, Task::next_token);
  const NodeId embeddings = g.embedding(kInput, "transformer",
                                        {.vocabulary = s.vocabulary,
                                         .max_positions = s.positions,
                                         .features = d,
                                         .token_suffix = "wte.weight",
                                         .position_suffix = "wpe.weight"});
  NodeId x = embeddings;
  const LinearOptions per_position{.per_position = true};
  for (int i = 0; i < s.layers; ++i) {
    const std::string block = "transformer.h." + std::to_string(i);
    NodeId h = g.layer_norm(x, block + ".ln_1", 1e-5f);
    h = g.linear(h, block + ".attn.c_attn", 3 * d, per_position);
    h = g.attention({h}, {.heads = s.heads, .causal = true});
    h = g.linear(h, block + ".attn.c_proj", d, per_position);
    x = g.residual_add(x, h);
    h = g.layer_norm(x, block + ".ln_2", 1e-5f);
    h = g.linear(h, block + ".mlp.c_fc", 4 * d, per_position);
    h = g.gelu(h, GeluForm::tanh);
    h = g.linear(h, block + ".mlp.c_proj", d, per_position);
    x = g.residual_add(x, h);
  }
  x = g.layer_norm(x, "transformer.ln_f", 1e-5f);
  g.tied_linear(x, embeddings);
  return g;
}

}  // namespace gradsync
