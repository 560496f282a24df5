#pragma once
// `zero2-mpi` and `zero3-mpi`: sharded data parallelism (ZeRO stages 2 and
// 3) on the MPI library's own collectives: MPI_Reduce_scatter for the
// gradients, MPI_Allgatherv for the parameters, whatever algorithms the
// library picks for them.

#include <memory>

#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_zero2_mpi(const World& world, const StrategyOptions& options);
std::unique_ptr<Strategy> make_zero3_mpi(const World& world, const StrategyOptions& options);

}  // namespace gradsync
