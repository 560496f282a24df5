#include "tree_mpi.h"

#include <stdexcept>

namespace gradsync {

std::unique_ptr<Strategy> make_tree_mpi(const World&, const StrategyOptions&) {
  throw std::runtime_error("tree-mpi: not built yet");
}

}  // namespace gradsync
