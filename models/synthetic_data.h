#pragma once
// Synthetic training data with a learnable signal, generated from a seed and
// never read from anywhere. Each class has a fixed random template; a sample
// is its class's template plus Gaussian noise, so a model can learn to tell
// classes apart and "loss falls" is a meaningful test. Templates are constant
// over 4x4 pixel blocks (spatial structure a convolution can use); the noise
// has standard deviation 0.5 against the template's amplitude 1. Sample `index` of step
// `step` depends only on (seed, step, index): N workers taking samples
// rank x B .. rank x B + B - 1 see exactly what one worker with batch N x B sees.
//
// Token models (Task::next_token, masked_token) get sequences with a
// learnable signal of the same kind: a fixed successor table drawn from the
// seed says which token follows each token, and each position follows it
// with probability 3/4, else it is uniform over the vocabulary (`classes`).
// A causal model is labelled with the token after each position; a masked
// model sees 15% of its positions replaced by token 0, and is labelled with
// every position's original token.

#include <cstdint>
#include <vector>

#include "models/model.h"

namespace gradsync {

struct SyntheticBatch {
  std::vector<float> images;  // batch x shape.elements(), NCHW (token ids for token models)
  std::vector<int> labels;    // batch x labels per sample values in [0, classes)
};

// Fills `out` with samples first_sample .. first_sample + batch - 1 of `step`.
void make_synthetic_batch(const ImageShape& shape, int classes, std::uint64_t seed,
                          std::uint64_t step, std::uint64_t first_sample, int batch,
                          SyntheticBatch& out, Task task = Task::classify);

}  // namespace gradsync
