#include "strategies/mpi/mpi_sum_ops.h"

#include <cstdint>

#include "strategies/core/reduce_kernel.h"
#include "strategies/core/world.h"

namespace gradsync {
namespace {

// MPI hands the function `len` elements of `in` to add into `inout`.
template <Compression format>
void sum_16_bit(void* in, void* inout, int* len, MPI_Datatype*) {
  sum_into(static_cast<std::uint16_t*>(inout), static_cast<const std::uint16_t*>(in),
           static_cast<std::size_t>(*len), format);
}

}  // namespace

MpiSumOps::MpiSumOps() {
  check_mpi(MPI_Op_create(sum_16_bit<Compression::fp16>, /*commute=*/1, &fp16_), "MPI_Op_create");
  check_mpi(MPI_Op_create(sum_16_bit<Compression::bf16>, /*commute=*/1, &bf16_), "MPI_Op_create");
}

MpiSumOps::~MpiSumOps() {
  MPI_Op_free(&fp16_);
  MPI_Op_free(&bf16_);
}

MPI_Op MpiSumOps::get(Compression format) const {
  switch (format) {
    case Compression::fp16: return fp16_;
    case Compression::bf16: return bf16_;
    case Compression::none: break;
  }
  return MPI_SUM;
}

}  // namespace gradsync
