#pragma once
// Deterministic initial parameter values from a seed.

#include <cstdint>
#include <vector>

#include "models/graph.h"

namespace gradsync {

// Allocates the graph's parameter values and fills them: the same seed gives
// bit-identical values in every process. Gradients are left for the model to
// lay out (allocate_gradients, models/gradient_block.h).
std::vector<Parameter> initialize_parameters(const Graph& graph, std::uint64_t seed);

}  // namespace gradsync
