#pragma once
// The latency path of the MPI point-to-point strategies (ring-mpi, tree-mpi,
// double-tree-mpi, halving-doubling-mpi, and the leaders' tree of
// hierarchical-mpi): a buffer of at most --short-allreduce bytes is reduced
// by recursive doubling, whatever the strategy does with longer ones, as
// MPICH, Open MPI and NCCL switch algorithm by size. See short_allreduce.cc
// for the algorithm, its cost and the measurements behind the defaults.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "strategies/core/cost.h"
#include "strategies/core/reduce_kernel.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"
#include "strategies/mpi/mpi_pipeline.h"

namespace gradsync {

// What the records call the latency path (a row's `path`).
inline constexpr std::string_view kShortPathName = "recursive doubling";

// Whether an allreduce of `bytes` bytes among `workers` takes the latency
// path when it is taken up to `limit` bytes (--short-allreduce): the
// strategies and the cost model ask it alike.
bool takes_short_path(double bytes, int workers, std::size_t limit);

class ShortAllreduce {
 public:
  // Collective over `world`: every rank builds it, and it talks over a
  // duplicate of `world` of its own. `owner` (the strategy's name) begins
  // the name of every wait, so a timeout says whose latency path stalled.
  ShortAllreduce(const World& world, const StrategyOptions& options, std::string_view owner);

  // Whether a buffer of `bytes` bytes takes this path.
  bool takes(std::size_t bytes) const {
    return takes_short_path(static_cast<double>(bytes), world_.size(), limit_);
  }
  // kShortPathName when a buffer of `bytes` bytes takes it, else empty
  // (Strategy::path_for).
  std::string path_for(std::size_t bytes) const {
    return takes(bytes) ? std::string(kShortPathName) : std::string();
  }

  // Sums `buffer` over the world in place with `sum`; `traffic` counts its
  // bytes. Every rank ends with bit-identical sums.
  template <typename T>
  void allreduce(std::span<T> buffer, ElementSum sum, Traffic& traffic);

 private:
  World world_;
  std::size_t limit_;
  std::string fold_, doubling_, unfold_;  // the waits' operations
  Scratch scratch_;
};

// The counts of the latency path (strategies/core/cost.h) along the longest
// rank's path: the fold, log2 p' swaps of the whole buffer, the result back.
CostTerms recursive_doubling_terms(double bytes, int p);

}  // namespace gradsync
