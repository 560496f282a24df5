#pragma once
// Gloo's own allreduce algorithms as strategies: the collective library
// under PyTorch's CPU DistributedDataParallel (Debian's libgloo-dev), run
// under the same harness as the suite's own strategies, over TCP between
// the ranks, its mesh connected over the job's MPI world (gloo_mesh_gloo.cc).
//
//   gloo-ring              gloo::allreduce, Algorithm::RING: pipelined
//                          reduce-scatter + allgather ring in segments of at
//                          most 1 MiB (what ProcessGroupGloo runs for dense
//                          CPU tensors)
//   gloo-bcube             gloo::allreduce, Algorithm::BCUBE (any rank count)
//   gloo-ring-chunked      gloo::AllreduceRingChunked (Gloo's older API)
//   gloo-halving-doubling  gloo::AllreduceHalvingDoubling (Gloo's older API)
//
// Optional at build time (cmake/GradsyncGloo.cmake): without Gloo the
// entries are listed, unusable, with the reason (gloo/absent.cc).

#include <memory>

#include "strategies/core/availability.h"
#include "strategies/core/cost.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

Availability gloo_availability();

std::unique_ptr<Strategy> make_gloo_ring(const World& world, const StrategyOptions& options);
std::unique_ptr<Strategy> make_gloo_bcube(const World& world, const StrategyOptions& options);
std::unique_ptr<Strategy> make_gloo_ring_chunked(const World& world,
                                                 const StrategyOptions& options);
std::unique_ptr<Strategy> make_gloo_halving_doubling(const World& world,
                                                     const StrategyOptions& options);

// Their counts (gloo_cost.cc), from Gloo's algorithms as the package builds them.
AllreduceCounts gloo_ring_counts(double bytes, const StrategyOptions& options,
                                 const WorkerPlacement& placement);
AllreduceCounts gloo_bcube_counts(double bytes, const StrategyOptions& options,
                                  const WorkerPlacement& placement);
AllreduceCounts gloo_ring_chunked_counts(double bytes, const StrategyOptions& options,
                                         const WorkerPlacement& placement);
AllreduceCounts gloo_halving_doubling_counts(double bytes, const StrategyOptions& options,
                                             const WorkerPlacement& placement);

}  // namespace gradsync
