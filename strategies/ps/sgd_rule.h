#pragma once
// SGD with momentum on one block of host parameters: the update rule, in one
// place for the two that apply it on the host, the trainer's optimizer
// (harness/engine/optimizer.h) and a parameter-server shard that owns the
// parameters (ps-zmq --ps-mode async|ssp). For every element k, with
// velocity v (zero at first):
//   v = momentum v + (g / divide_by + weight_decay w);  w -= lr v
// divide_by is the averaging over workers of summed gradients (1: none); the
// division is correctly rounded, as an averaging pass of its own would be.

#include <cstddef>

namespace gradsync {

// One step's scalars, in the fp32 the update runs in.
struct SgdCoefficients {
  float lr = 0;
  float momentum = 0;
  float weight_decay = 0;
};

inline void sgd_momentum_update(float* w, const float* g, float* v, std::size_t n,
                                const SgdCoefficients& c, float divide_by = 1) {
  for (std::size_t k = 0; k < n; ++k) {
    v[k] = c.momentum * v[k] + (g[k] / divide_by + c.weight_decay * w[k]);
    w[k] -= c.lr * v[k];
  }
}

}  // namespace gradsync
