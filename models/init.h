#pragma once
// Deterministic initial parameter values from a seed.

#include <cstdint>
#include <vector>

#include "models/graph.h"

namespace gradsync {

// Allocates the graph's parameters (value and grad) and fills the values:
// the same seed gives bit-identical values in every process.
std::vector<Parameter> initialize_parameters(const Graph& graph, std::uint64_t seed);

}  // namespace gradsync
