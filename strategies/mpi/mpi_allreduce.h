#pragma once
// `mpi-allreduce`: the MPI library's own MPI_Allreduce, whatever algorithm it
// picks for the size and job. The reference every other strategy is held to.

#include <memory>

#include "strategies/core/availability.h"
#include "strategies/core/cost.h"
#include "strategies/core/cost_forms.h"  // rabenseifner_terms
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

std::unique_ptr<Strategy> make_mpi_allreduce(const World& world, const StrategyOptions& options);
Availability mpi_allreduce_availability();

// MPI_Bcast of `buffer` from `root` over `world`, in pieces an int counts,
// each wait bounded by the world's timeout: the MPI-collective strategies'
// broadcast.
void mpi_broadcast(const World& world, std::span<float> buffer, int root);

// Whether the MPI library reduces device buffers itself (a CUDA-aware Open
// MPI); then mpi-allreduce takes device buffers without staging.
bool cuda_aware_mpi();

// mpi-allreduce's cost: rabenseifner_terms (core/cost_forms.h), how the cost
// model counts the library's allreduce, whose algorithm it cannot see, over
// every worker. A black box
// (StrategyCost::per_workers): calibrated per worker count and tabulated.
AllreduceCounts mpi_allreduce_counts(double bytes, const StrategyOptions& options,
                                     const WorkerPlacement& placement);

// The first line of the MPI library's own version (MPI_Get_library_version),
// blanks folded: "Open MPI v4.1.4, package: ...", "MPICH Version: 4.0.2".
std::string mpi_library_version();

}  // namespace gradsync
