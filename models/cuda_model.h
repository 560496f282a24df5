#pragma once
// The cuda compute backend: the zoo's graphs on cuDNN and cuBLAS, parameters
// and gradients in device memory (Model::device_state()). CUDA builds compile
// the backend; builds without CUDA compile cuda_absent.cc, whose factory
// throws saying so.

#include <memory>
#include <string>

#include "graph.h"

namespace gradsync {

// Builds `graph` on GPU options.gpu with options.precision; parameters are
// initialized from options.seed exactly as the CPU model initializes them.
std::unique_ptr<Model> make_cuda_model(std::string name, Graph graph, const ModelOptions& options);

// Whether this build has the cuda backend.
bool cuda_compute_built();

}  // namespace gradsync
