// Initialization. Weights of convolution and linear layers are drawn
// He-uniform, U(-b, b) with b = sqrt(6 / fan_in) (variance 2 / fan_in, which
// keeps ReLU activations at scale even without batch norm), and so are
// embedding tables, with their width as fan-in; batch- and layer-norm
// gammas are 1 and every bias, beta, class token and ViT position embedding is 0. Each tensor has
// its own std::mt19937_64 stream seeded from (seed, tensor index) through SplitMix64, and uniforms
// are built from the raw 64-bit outputs (not from std::uniform_real_distribution, whose algorithm
// varies between standard libraries), so the values depend only on the seed and the model.
#include "models/init.h"

#include <cmath>
#include <random>

#include "models/splitmix.h"

namespace gradsync {
std::vector<Parameter> initialize_parameters(const Graph& graph, std::uint64_t seed) {
  std::vector<Parameter> out;
  out.reserve(graph.params().size());
  for (std::size_t i = 0; i < graph.params().size(); ++i) {
    const GraphParam& spec = graph.params()[i];
    const Layer& layer = *graph.nodes()[spec.node].layer;
    Parameter p{spec.name, spec.shape, std::vector<float>(spec.elements(), 0.0f), {}};
    // "weight" closes every weight's name ("fc.weight", torchvision's ViT's
    // "in_proj_weight"); every other tensor (biases, class tokens, position
    // embeddings not in a table) starts at zero.
    const bool is_weight = spec.name.ends_with("weight");
    if (is_weight && layer.fan_in() > 0) {
      const double bound = std::sqrt(6.0 / layer.fan_in());
      std::mt19937_64 rng(splitmix64(seed ^ splitmix64(i)));
      for (float& v : p.value) {
        const double u = double(rng() >> 11) * 0x1.0p-53;  // [0, 1)
        v = float((2 * u - 1) * bound);
      }
    } else if (is_weight) {
      std::fill(p.value.begin(), p.value.end(), 1.0f);  // batch-norm gamma
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace gradsync
