// ViT-B/16 (Dosovitskiy et al., 2021) as torchvision's vit_b_16 builds it,
// parameter for parameter and in its names: a 16x16 stride-16 convolution
// cuts a 224x224 image into 196 patches of 768 features (conv_proj); a class
// token is put in front and a position embedding added (197 tokens); 12
// pre-norm encoder layers: ln_1, self-attention (in_proj d -> 3d, 12 heads,
// out_proj), add; ln_2, MLP (d -> 3072, GELU (erf), 3072 -> d), add; then
// encoder.ln, and the class token's row into heads.head (1000 classes).
// Dropout is the identity. 86,567,656 parameters.
#include "models/zoo.h"

namespace gradsync {

Graph build_vit_b16() {
  constexpr int d = 768, heads = 12, layers = 12, mlp = 3072;
  constexpr float eps = 1e-6f;
  const LinearOptions per_position{.per_position = true};
  Graph g(ImageShape{3, 224, 224});
  NodeId x = g.conv(kInput, "conv_proj", d, 16, 16);
  x = g.patch_tokens(x);
  for (int i = 0; i < layers; ++i) {
    const std::string layer = "encoder.layers.encoder_layer_" + std::to_string(i);
    NodeId h = g.layer_norm(x, layer + ".ln_1", eps);
    h = g.linear(
        h, layer + ".self_attention", 3 * d,
        {.per_position = true, .weight_suffix = "in_proj_weight", .bias_suffix = "in_proj_bias"});
    h = g.attention({h}, {.heads = heads, .causal = false});
    h = g.linear(h, layer + ".self_attention.out_proj", d, per_position);
    x = g.residual_add(x, h);
    h = g.layer_norm(x, layer + ".ln_2", eps);
    h = g.gelu(g.linear(h, layer + ".mlp.0", mlp, per_position), GeluForm::exact);
    h = g.linear(h, layer + ".mlp.3", d, per_position);
    x = g.residual_add(x, h);
  }
  x = g.layer_norm(x, "encoder.ln", eps);
  g.linear(g.take_token(x, 0), "heads.head", 1000);
  return g;
}

}  // namespace gradsync
