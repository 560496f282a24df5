#include "models/blas_threads.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace gradsync {

int share_blas_threads(int local_workers) {
  if (std::getenv("OPENBLAS_NUM_THREADS") == nullptr) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    openblas_set_num_threads(std::max(1, cores / std::max(1, local_workers)));
  }
  return openblas_get_num_threads();
}

}  // namespace gradsync
