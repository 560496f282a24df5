// Builds without CUDA (see models/CMakeLists.txt): no cuda compute backend.
#include <stdexcept>

#include "models/cuda_model.h"

namespace gradsync {

std::unique_ptr<Model> make_cuda_model(std::string, Graph, const ModelOptions&) {
  throw std::invalid_argument("--compute cuda: " + cuda_compute_unavailable(0));
}

bool cuda_compute_built() { return false; }

std::string cuda_compute_unavailable(int) {
  return "not built in (configured with GRADSYNC_CUDA=OFF, or no CUDA toolkit with NCCL and cuDNN "
         "was found)";
}

}  // namespace gradsync
