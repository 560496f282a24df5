#pragma once
// MPI's sum for each element format a strategy hands to an MPI collective:
// MPI_SUM for float, and for 16-bit elements (--compression) user operations
// that add at 16 bits (Horovod's float16 sum), made once and freed with their
// owner (before MPI_Finalize).

#include <mpi.h>

#include "strategies/core/compression.h"

namespace gradsync {

class MpiSumOps {
 public:
  MpiSumOps();
  ~MpiSumOps();
  MpiSumOps(const MpiSumOps&) = delete;
  MpiSumOps& operator=(const MpiSumOps&) = delete;

  // MPI_SUM for Compression::none (float elements), else the 16-bit sum.
  MPI_Op get(Compression format) const;

 private:
  MPI_Op fp16_ = MPI_OP_NULL;
  MPI_Op bf16_ = MPI_OP_NULL;
};

}  // namespace gradsync
